/**
 * Red team (issue 27, class 8): destroying files without `rm`. The command detector knew rm, find, shred, env and
 * `sh -c`; truncate, unlink, tee, dd, `cp /dev/null`, `sed -i`, `ln -sf`, mv away, `$IFS` in `sh -c` and interpreter
 * one-liners (python -c, node -e, perl -e) emptied or removed a canary outside the sandbox (on main a63fc55 each call
 * was allowed and the canary was gone or empty). `shell_risk` now reads a model of what an invocation removes,
 * truncates or overwrites (src/detectors/shell/destroys.ts). Through the built CLI, the default book with its sandbox
 * set to this test's folder, and the hostile server running the commands as a child process.
 * Controls: reads, `sed` without -i, a build-like command, and writes inside the sandbox go through.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, ROOT, waitFor, writeConfig } from '../support/proxy-harness.js';
import { bookFor } from '../support/sandbox-book.js';

describe('red team: destroying files without rm (class 8)', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'qg-destroy-')));
  const sandbox = join(dir, 'sandbox');
  const outside = join(dir, 'outside');
  mkdirSync(sandbox);
  mkdirSync(outside);
  const config = writeConfig(dir, {
    servers: { h: { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'hostile.js')], cwd: outside, env: { HOSTILE_OUTBOX: join(dir, 'outbox.jsonl'), PATH: process.env.PATH ?? '' } } },
    policy: bookFor(dir, sandbox),
    store: join(dir, 'state.db'),
    guard: { watcher: { quarantine: false } },
  });
  let client: Client;
  let n = 0;
  const run = async (command: string, args: string[]) => (await client.callTool({ name: 'h__run_command', arguments: { command, args } })) as CallToolResult;
  /** A fresh canary outside the sandbox. */
  const canary = () => {
    const f = join(outside, `canary-${++n}.txt`);
    writeFileSync(f, 'precious data\n');
    return f;
  };
  const intact = (f: string) => existsSync(f) && readFileSync(f, 'utf8') === 'precious data\n';

  beforeAll(async () => {
    client = (await connectStdio(config, 'destroyer')).client;
    await waitFor(async () => (await client.listTools()).tools.some((t) => t.name === 'h__run_command'), 30_000, 'the hostile tools');
  }, 60_000);
  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each<[string, (f: string) => [string, string[]]]>([
    ['truncate -s 0', (f) => ['truncate', ['-s', '0', f]]],
    ['unlink', (f) => ['unlink', [f]]],
    ['tee', (f) => ['sh', ['-c', `echo gone | tee ${f}`]]],
    ['dd of=', (f) => ['dd', ['if=/dev/null', `of=${f}`]]],
    ['cp /dev/null', (f) => ['cp', ['/dev/null', f]]],
    ['sed -i', (f) => ['sed', ['-i', 's/precious/wiped/', f]]],
    ['ln -sf', (f) => ['ln', ['-sf', '/dev/null', f]]],
    ['mv away', (f) => ['mv', [f, join(sandbox, 'taken.txt')]]],
    ['a redirection in sh -c', (f) => ['sh', ['-c', `: > ${f}`]]],
    ['$IFS in sh -c', (f) => ['sh', ['-c', `truncate\${IFS}-s0\${IFS}${f}`]]],
    ['python -c', (f) => ['python3', ['-c', `import os; os.remove('${f}')`]]],
    ['node -e', (f) => [process.execPath, ['-e', `require('fs').writeFileSync('${f}', '')`]]],
    ['perl -e', (f) => ['perl', ['-e', `unlink '${f}'`]]],
  ])('denies %s on a file outside the sandbox, and the file is intact', async (_what, make) => {
    const f = canary();
    const [command, args] = make(f);
    const r = await run(command, args);
    expect(r.isError).toBe(true);
    expect(intact(f)).toBe(true);
  });

  it.each<[string, (f: string) => [string, string[]]]>([
    ['cat (a read)', (f) => ['cat', [f]]],
    ['sed without -i', (f) => ['sed', ['s/precious/shown/', f]]],
    ['a build-like command', () => ['node', ['-e', 'console.log(1 + 1)']]],
    ['tee inside the sandbox', () => ['sh', ['-c', `echo ok | tee ${join(sandbox, 'out.txt')}`]]],
    ['cp into the sandbox', (f) => ['cp', [f, join(sandbox, 'copy.txt')]]],
    ['truncate inside the sandbox', () => ['truncate', ['-s', '0', join(sandbox, 'copy.txt')]]],
  ])('control: allows %s, and the canary is intact', async (_what, make) => {
    const f = canary();
    const [command, args] = make(f);
    const r = await run(command, args);
    expect(r.isError).toBeFalsy();
    expect(intact(f)).toBe(true);
  });
});
