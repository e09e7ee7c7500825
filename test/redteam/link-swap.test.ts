/**
 * Red team (#27, class 9): a symbolic link swapped between the check and the act. server-filesystem rooted above the
 * sandbox, behind the built CLI with the default book (sandbox = this test's `sandbox`). Another local process flips
 * a link in the sandbox between a folder inside and one outside as fast as it can while the agent moves `sandbox/dir/canary.txt`
 * away through the link: the guard checked the link pointing inside, the server acted after it pointed outside, and the outside canary
 * was moved away within a few tries (fails before; with `resolve_paths: false` it still does). Now the proxy resolves
 * the path once and forwards it resolved: the server moves the file the guard checked, and the audit row shows the
 * resolved path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/sqlite.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, filesystemServer, storeCount, waitFor, writeConfig } from '../support/proxy-harness.js';
import { bookFor } from '../support/sandbox-book.js';

const TRIES = 40;
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'qg-swap-')));
const sandbox = join(dir, 'sandbox');
// Names with a dot: the audit masks the random-looking temporary folder as one token, and keeps what follows a dot.
const real = join(sandbox, 'in.real');
const outside = join(dir, 'out.side');
const link = join(sandbox, 'swap.link');
const store = join(dir, 'state.db');

/** Flips `link` between two targets (an atomic rename of a fresh link each time) until killed. */
const FLIPPER = `
const { symlinkSync, renameSync, rmSync } = require('node:fs');
const [link, a, b] = process.argv.slice(1);
const tmp = link + '.tmp';
let t = a;
for (;;) {
  rmSync(tmp, { force: true });
  symlinkSync(t, tmp);
  renameSync(tmp, link);
  t = t === a ? b : a;
}`;

let client: Client;
let flipper: ChildProcess | undefined;

beforeAll(async () => {
  mkdirSync(real, { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'canary.txt'), 'outside canary\n');
  symlinkSync(real, link);
  const fs = filesystemServer(dir);
  const config = writeConfig(dir, {
    servers: { fs: { command: fs.command, args: fs.args } },
    policy: bookFor(dir, sandbox),
    store,
    guard: { watcher: { quarantine: false } },
  });
  client = (await connectStdio(config, 'swapper')).client;
}, 60_000);

afterAll(async () => {
  // Waited for: a flip still in its system call when the signal comes would add a link to the folder being removed.
  if (flipper && flipper.exitCode === null && flipper.signalCode === null) {
    const exited = once(flipper, 'exit');
    flipper.kill('SIGKILL');
    await exited;
  }
  await client?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('red team: a link flipped between the check and the act', () => {
  it(`the outside canary survives ${TRIES} tries, and allowed moves act on the resolved path`, async () => {
    flipper = spawn(process.execPath, ['-e', FLIPPER, link, real, outside], { stdio: 'ignore' });
    let allowed = 0;
    let denied = 0;
    try {
      for (let k = 0; k < TRIES; k++) {
        writeFileSync(join(real, 'canary.txt'), `decoy ${k}\n`);
        const r = (await client.callTool({ name: 'fs__move_file', arguments: { source: join(link, 'canary.txt'), destination: join(sandbox, `got-${k}.txt`) } })) as CallToolResult;
        expect(existsSync(join(outside, 'canary.txt')), `try ${k}`).toBe(true);
        if (r.isError) denied++;
        else {
          allowed++;
          // The server was handed the resolved path: it names it in its answer.
          expect((r.content[0] as { text: string }).text).toContain(join(real, 'canary.txt'));
        }
      }
    } finally {
      flipper.kill('SIGKILL');
    }
    expect(readFileSync(join(outside, 'canary.txt'), 'utf8')).toBe('outside canary\n');
    // The race was run: some checks saw the link inside (allowed), some outside (denied by the path rule).
    expect(allowed).toBeGreaterThan(0);
    expect(allowed + denied).toBe(TRIES);
    // Rows are committed to the store in groups after the answer (the journal holds them first): wait for every call's.
    const calls = "SELECT COUNT(*) AS n FROM audit WHERE kind = 'tool_call' AND tool = 'move_file'";
    await waitFor(() => storeCount(store, calls) >= TRIES, 10_000, `the ${TRIES} calls' rows in the store`);
    const db = openDatabase(store, { readonly: true });
    try {
      const bodies = (db.prepare("SELECT coalesce(i.body, b.body) AS body FROM audit_interaction i LEFT JOIN audit_body b ON b.digest = i.body_digest").all() as Array<{ body: string | null }>).map((r) => r.body ?? '');
      const moves = bodies.filter((b) => b.includes('move_file') && b.includes('"source"'));
      expect(moves.length).toBe(TRIES);
      // Every recorded source is the resolved one (inside or outside), never the link's name.
      for (const b of moves) expect(b.includes('.real/canary.txt') || b.includes('.side/canary.txt'), b).toBe(true);
      expect(moves.some((b) => b.includes('.link/canary.txt'))).toBe(false);
    } finally {
      db.close();
    }
  }, 120_000);
});
