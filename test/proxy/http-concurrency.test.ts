import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, server, startHttpProxy, writeConfig } from '../support/proxy-harness.js';

const SESSIONS = 64;
const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

/**
 * Blocks this thread for `ms`: no timer fires and no socket is read, as in a client starved of CPU (the throughput
 * bench's client, opening 96 sessions at once on a loaded machine, was blocked for up to 3.7 s at a time).
 */
const busy = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe('quadguard serve --http under many sessions at once', () => {
  const sb = makeSandbox();
  let proxy: Awaited<ReturnType<typeof startHttpProxy>>;
  beforeAll(async () => {
    proxy = await startHttpProxy(writeConfig(sb.dir, { servers: { ws: server('workspace', '--root', sb.workspace) } }));
  });
  afterAll(async () => {
    await proxy?.stop();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('answers calls on 64 sessions opened at once, also on connections reused after the client could not read for 7.5 s', async () => {
    const connect = async () => {
      const c = new Client({ name: 'many', version: '0' });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`)));
      return c;
    };
    const clients = await Promise.all(Array.from({ length: SESSIONS }, connect));
    const callAll = () => Promise.all(clients.map((c) => c.callTool({ name: 'ws__read_file', arguments: { path: 'notes.txt' } })));
    for (const r of await callAll()) expect(text(r)).toBe('hello notes\n');
    // The answers are in; the client is then too busy to do anything for 7.5 s, and sends its next calls at once on
    // the connections the answers came on (its own idle timer never got to run). With Node's default 5 s keep-alive
    // the server had closed them after 6 s, under the requests: every call failed with "other side closed".
    busy(7500);
    for (const r of await callAll()) expect(text(r)).toBe('hello notes\n');
    await Promise.all(clients.map((c) => c.close()));
  }, 60_000);

  it('advertises the keep-alive it keeps (http.keep_alive_ms, 65 s by default), so clients that honour it retire connections first', async () => {
    const r = await fetch(`${proxy.url}/mcp`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.headers.get('keep-alive')).toBe('timeout=65');
    await r.body?.cancel();
  });
});
