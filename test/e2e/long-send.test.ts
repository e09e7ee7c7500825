/**
 * End to end over stdio: long sends (a call's arguments of 32 K characters and more, which the guard reads in its
 * worker pool: `guard.pool.min_send_chars`) through the built `quadguard serve` with policies/default in front of
 * the real mail server and @modelcontextprotocol/server-filesystem. A long write and a long mail of text nobody read
 * arrive whole; a long mail carrying a private mail read before is denied, nothing arrives, and the audit records
 * each decision. The leak is read in the pool here: with the worker's reading of a send emptied, it went out.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, filesystemServer, makeSandbox, ROOT, server, storeCount, waitFor, writeConfig } from '../support/proxy-harness.js';
import { metaDecision, text } from './helpers.js';

/** `chars` characters of made-up words (seeded): two seeds share no run of text a fingerprint could match. */
function prose(seed: number, chars: number): string {
  let s = seed;
  const next = (n: number) => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8) % n;
  let out = '';
  while (out.length < chars) {
    const syllables = 2 + next(3);
    for (let j = 0; j < syllables; j++) out += 'bdfgklmnprstvz'[next(14)]! + 'aeiou'[next(5)]!;
    out += next(12) === 0 ? '. ' : ' ';
  }
  return out.slice(0, chars);
}

const PRIVATE = prose(1, 40_000);
const UNREAD_MAIL = prose(2, 40_000);
const UNREAD_FILE = prose(3, 64 * 1024);

describe('e2e: long sends through real servers (the worker pool, default book)', () => {
  const sb = makeSandbox();
  const store = join(sb.dir, 'state.db');
  let client: Client;
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  const outbox = () => (existsSync(sb.outbox) ? readFileSync(sb.outbox, 'utf8') : '');

  beforeAll(async () => {
    writeFileSync(sb.inbox, JSON.stringify([{ id: '1', from: 'cfo@example.com', subject: 'Board minutes', body: PRIVATE }]));
    const fs = filesystemServer(sb.fsDir);
    const cfg = writeConfig(sb.dir, {
      servers: { mail: server('mail', '--inbox', sb.inbox, '--outbox', sb.outbox), fs: { command: fs.command, args: fs.args } },
      policy: join(ROOT, 'policies', 'default'),
      store,
      guard: { watcher: { quarantine: false }, pool: { workers: 1 } },
    });
    client = (await connectStdio(cfg, 'assistant')).client;
    await client.listTools();
  }, 60_000);
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('writes a 64 KB file of text nobody read, whole', async () => {
    const path = join(sb.fsDir, 'long.txt');
    const res = await call('fs__write_file', { path, content: UNREAD_FILE });
    expect(res.isError, text(res)).toBeFalsy();
    expect(readFileSync(path, 'utf8')).toBe(UNREAD_FILE);
  }, 60_000);

  it('sends a 40 KB mail of text nobody read; after reading a private 40 KB mail, a mail carrying it is denied and nothing arrives', async () => {
    const sent = await call('mail__send_email', { to: 'partner@outside.example', subject: 'unread', body: UNREAD_MAIL });
    expect(sent.isError, text(sent)).toBeFalsy();
    expect(outbox()).toContain(UNREAD_MAIL);

    const read = await call('mail__read_email', { id: '1' });
    expect(read.isError, text(read)).toBeFalsy();
    expect(text(read)).toContain(PRIVATE);

    const before = outbox();
    const leak = await call('mail__send_email', { to: 'partner@outside.example', subject: 'leak', body: `Forwarding this: ${PRIVATE}` });
    expect(leak.isError, text(leak)).toBe(true);
    expect(metaDecision(leak)?.rules).toContain('no-read-then-exfiltrate');
    expect(text(leak)).toMatch(/data came from mail__read_email/);
    expect(outbox()).toBe(before);

    // The text nobody read still goes out after the read: only what was read is held.
    const again = await call('mail__send_email', { to: 'partner@outside.example', subject: 'unread-again', body: UNREAD_MAIL });
    expect(again.isError, text(again)).toBeFalsy();

    // Each decision reaches the store (committed in groups after the answer).
    const rows = (decision: string) => `SELECT COUNT(*) AS n FROM audit WHERE kind = 'tool_call' AND tool = 'send_email' AND decision = '${decision}'`;
    await waitFor(() => storeCount(store, rows('allow')) >= 2 && storeCount(store, rows('deny')) >= 1, 10_000, "the sends' audit rows");
    expect(storeCount(store, rows('deny'))).toBe(1);
  }, 60_000);
});
