import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, makeSandbox, server, waitFor, writeConfig } from '../support/proxy-harness.js';

/** The built CLI on raw stdio: what a client sees line by line, with no SDK in between. */
describe('quadguard serve over stdio: a message over the size limit', () => {
  const sb = makeSandbox();
  afterAll(() => rmSync(sb.dir, { recursive: true, force: true }));

  it('answers an 11 MiB line with -32600 and its id, then keeps serving, children included', async () => {
    const cfg = writeConfig(sb.dir, { servers: { ws: server('workspace', '--root', sb.workspace) } });
    const child = spawn(process.execPath, [CLI, 'serve', '--config', cfg, '--agent', 'tester'], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const replies = () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: unknown; result?: unknown; error?: { code: number; message: string } });
    const send = (msg: unknown) => child.stdin.write(`${JSON.stringify(msg)}\n`);
    try {
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
      await waitFor(() => replies().some((r) => r.id === 1), 15_000, 'initialize');
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      // One line of 11 MiB, written in pieces as a pipe delivers it.
      const big = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ws__write_file', arguments: { path: 'x', content: 'A'.repeat(11 * 1024 * 1024) } } });
      for (let i = 0; i < big.length; i += 1 << 20) child.stdin.write(big.slice(i, i + (1 << 20)));
      child.stdin.write('\n');
      await waitFor(() => replies().some((r) => r.id === 2), 15_000, 'the oversize answer');
      expect(replies().find((r) => r.id === 2)?.error).toMatchObject({ code: -32600, message: expect.stringMatching(/larger than the 4194304-byte limit/) });
      send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ws__read_file', arguments: { path: 'notes.txt' } } });
      await waitFor(() => replies().some((r) => r.id === 3), 15_000, 'a call after the oversize line');
      expect(JSON.stringify(replies().find((r) => r.id === 3)?.result)).toContain('hello notes');
    } finally {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    }
  });
});
