import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, server, startHttpProxy, writeConfig } from '../support/proxy-harness.js';

const TOKEN = 'planner-token-0123456789abcdef';
const OTHER = 'critic-token-0123456789abcdef00';
const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } });

describe('quadguard serve --http (Streamable HTTP + legacy SSE, bearer tokens)', () => {
  const sb = makeSandbox();
  let proxy: Awaited<ReturnType<typeof startHttpProxy>>;
  const connect = async (token: string, kind: 'http' | 'sse' = 'http') => {
    const init = { headers: { authorization: `Bearer ${token}` } };
    const t = kind === 'http' ? new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`), { requestInit: init }) : new SSEClientTransport(new URL(`${proxy.url}/sse`), { requestInit: init, eventSourceInit: { fetch: (u, i) => fetch(u, { ...i, headers: { ...(i?.headers as Record<string, string>), authorization: `Bearer ${token}` } }) } });
    const c = new Client({ name: 'test', version: '0' });
    await c.connect(t);
    return c;
  };

  beforeAll(async () => {
    const cfg = writeConfig(sb.dir, {
      servers: {
        ws: { ...server('workspace', '--root', sb.workspace), tools: { deny: ['delete_*'] } },
        bad: { ...server('misbehaving'), timeout_ms: 1500 },
      },
      agents: { planner: { token: { env: 'PLANNER_TOKEN' }, profile: { role: 'planner' } }, critic: { token: { value: OTHER } } },
      http: { body_limit: '64kb' },
    });
    proxy = await startHttpProxy(cfg, { PLANNER_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await proxy?.stop();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('answers 401 (JSON-RPC body) without a valid token, and never starts a session', async () => {
    const none = await post(`${proxy.url}/mcp`, JSON.stringify(INIT));
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await none.json()) as any).error.message).toMatch(/Unauthorized/);
    const wrong = await post(`${proxy.url}/mcp`, JSON.stringify(INIT), { authorization: 'Bearer wrong-token-000000000000' });
    expect(wrong.status).toBe(401);
    expect((await fetch(`${proxy.url}/sse`)).status).toBe(401);
  });

  it('lists, calls and denies over Streamable HTTP with a token', async () => {
    const c = await connect(TOKEN);
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toContain('ws__read_file');
    expect(names).not.toContain('ws__delete_file');
    expect(text(await c.callTool({ name: 'ws__read_file', arguments: { path: 'notes.txt' } }))).toBe('hello notes\n');
    const d = (await c.callTool({ name: 'ws__delete_file', arguments: { path: 'notes.txt' } })) as CallToolResult;
    expect(d.isError).toBe(true);
    expect(text(d)).toMatch(/^Blocked by QuadGuard/);
    const seen: number[] = [];
    await c.callTool({ name: 'bad__slow', arguments: { steps: 2 } }, undefined, { onprogress: (p) => seen.push(p.progress) });
    expect(seen).toEqual([1, 2]);
    await c.close();
  });

  it('guards every message of a JSON-RPC batch', async () => {
    const c = await connect(TOKEN);
    const sid = (c.transport as StreamableHTTPClientTransport).sessionId!;
    const batch = [
      { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'ws__read_file', arguments: { path: 'notes.txt' } } },
      { jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'ws__delete_file', arguments: { path: 'notes.txt' } } },
    ];
    const r = await post(`${proxy.url}/mcp`, JSON.stringify(batch), { authorization: `Bearer ${TOKEN}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
    expect(r.status).toBe(200);
    const body = await r.text();
    const results = [...body.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1]!));
    const byId = new Map(results.map((m) => [m.id, m]));
    expect(byId.get(11).result.content[0].text).toBe('hello notes\n');
    expect(byId.get(12).result.isError).toBe(true);
    expect(byId.get(12).result.content[0].text).toMatch(/^Blocked by QuadGuard/);
    await c.close();
  });

  it('binds guard_check_message senders to the authenticated agent', async () => {
    const c = await connect(TOKEN);
    const ok = await c.callTool({ name: 'guard_check_message', arguments: { sender: 'planner', recipient: 'critic', content: 'plan ready' } });
    expect(JSON.parse(text(ok)).decision).toBe('allow');
    const spoof = (await c.callTool({ name: 'guard_check_message', arguments: { sender: 'critic', recipient: 'planner', content: 'approved' } })) as CallToolResult;
    expect(spoof.isError).toBe(true);
    expect(JSON.parse(text(spoof))).toMatchObject({ decision: 'deny', violated_rules: ['sender-must-match-identity'] });
    expect(JSON.parse(text(spoof)).rationale).toMatch(/not the authenticated agent "planner"/);
    await c.close();
  });

  it('serves legacy SSE on /sse + /messages', async () => {
    const c = await connect(OTHER, 'sse');
    expect(text(await c.callTool({ name: 'bad__echo', arguments: { text: 'via sse' } }))).toBe('via sse');
    await c.close();
  });

  it('answers malformed JSON with -32700, oversized bodies with a JSON 413, unknown sessions with 404, and keeps serving', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const bad = await post(`${proxy.url}/mcp`, '{"jsonrpc": "2.0", "id": 1, "method": ', auth);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.code).toBe(-32700);
    const big = await post(`${proxy.url}/mcp`, JSON.stringify({ ...INIT, params: { ...INIT.params, pad: 'x'.repeat(100_000) } }), auth);
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toMatch(/json/);
    expect(((await big.json()) as any).error.message).toMatch(/too large/);
    const notRpc = await post(`${proxy.url}/mcp`, JSON.stringify({ hello: 'world' }), auth);
    expect(notRpc.status).toBe(400);
    expect(((await notRpc.json()) as any).jsonrpc).toBe('2.0');
    const gone = await post(`${proxy.url}/mcp`, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { ...auth, 'mcp-session-id': 'no-such-session' });
    expect(gone.status).toBe(404);
    const c = await connect(TOKEN);
    expect((await c.listTools()).tools.length).toBeGreaterThan(1);
    await c.close();
  });

  it('refuses a session used with another agent\'s token, and rejects foreign Host headers (DNS rebinding)', async () => {
    const c = await connect(TOKEN);
    const sid = (c.transport as StreamableHTTPClientTransport).sessionId!;
    const hijack = await post(`${proxy.url}/mcp`, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), { authorization: `Bearer ${OTHER}`, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
    expect(hijack.status).toBe(403);
    await c.close();
    const { request } = await import('node:http');
    const status = await new Promise<number>((res, rej) => {
      const r = request({ host: '127.0.0.1', port: proxy.port, path: '/mcp', method: 'POST', headers: { host: 'evil.example.com', 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` } }, (resp) => {
        resp.resume();
        res(resp.statusCode ?? 0);
      });
      r.on('error', rej);
      r.end(JSON.stringify(INIT));
    });
    expect(status).toBe(403);
  });
});

describe('quadguard serve --http without tokens', () => {
  it('runs unauthenticated on loopback with a warning, and stateless mode serves without sessions', async () => {
    const sb = makeSandbox();
    const cfg = writeConfig(sb.dir, { servers: { ws: server('workspace', '--root', sb.workspace) }, http: { stateless: true } });
    const proxy = await startHttpProxy(cfg);
    try {
      expect(proxy.stderr()).toMatch(/unauthenticated \(loopback only\)/);
      const t = new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`));
      const c = new Client({ name: 'test', version: '0' });
      await c.connect(t);
      expect(t.sessionId).toBeUndefined();
      expect(text(await c.callTool({ name: 'ws__read_file', arguments: { path: 'notes.txt' } }))).toBe('hello notes\n');
      await c.close();
    } finally {
      await proxy.stop();
      rmSync(sb.dir, { recursive: true, force: true });
    }
  });
});
