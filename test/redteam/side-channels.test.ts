/**
 * Red team (issue 27, classes 1, 2, 3, 14): what travels beside the fields the guard read. End to end through the
 * built CLI (`quadguard serve`, default book) in front of servers/side-channels.ts as a child process, which records
 * what reaches it. Each case failed before: the log, the `_meta` or the reason went through unread.
 * - class 1: a server's log message, a result's `_meta`, a content block's `_meta`, and in the tool listing a tool's
 *   `_meta`, an icon's `data:` URI and an input-schema property name carried an injection to the client;
 * - class 3: a request's `_meta` (tools/call, resources/read, prompts/get) and the reason of a client's
 *   notifications/cancelled carried a credential to the server, unrecorded;
 * - class 2: over HTTP, a log a server sent after one session's call was delivered to every live session;
 * - class 14: a deep `_meta` on resources/read answered -32603 "Maximum call stack size exceeded"; a session id
 *   used on the other HTTP transport answered 500.
 * Controls: benign `_meta`, icons, logs and progress reach their client unchanged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIDE_INJECTION } from '../../servers/side-channels.js';
import { connectHttp, runCli } from '../../src/cli/demos/kit.js';
import { connectStdio, makeSandbox, ROOT, startHttpProxy, waitFor, writeConfig } from '../support/proxy-harness.js';

// Assembled at run time, so no scanner takes the test file for a leaked key.
const TOKEN = ['ghp', 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'].join('_');
const sideServer = (outbox: string) => ({ command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'side-channels.js')], env: { SIDE_OUTBOX: outbox }, namespace: false });
const outboxText = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
const textOf = (r: CallToolResult) => r.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');

describe('red team: side channels over stdio (classes 1, 3, 14)', () => {
  const sb = makeSandbox();
  const outbox = join(sb.dir, 'side.jsonl');
  const store = join(sb.dir, 'state.db');
  let client: Client;
  const logs: string[] = [];
  /** What the proxy wrote to this client, in order, as read: progress values and `answer <id>`. */
  const wire: string[] = [];

  beforeAll(async () => {
    const cfg = writeConfig(sb.dir, { servers: { side: sideServer(outbox) }, policy: join(ROOT, 'policies', 'default'), store, guard: { watcher: { quarantine: false } } });
    const connected = await connectStdio(cfg);
    client = connected.client;
    // Recorded as read, before the SDK handles it: the SDK client runs notification handlers a microtask after a
    // response read in the same chunk, so it drops a call's last progress when both arrive together (directly
    // connected too). What the proxy forwards, and in which order, is what this file tests.
    const handle = connected.transport.onmessage;
    connected.transport.onmessage = (m) => {
      const msg = m as { method?: string; params?: { progress?: number }; id?: unknown; result?: unknown };
      if (msg.method === 'notifications/progress') wire.push(String(msg.params?.progress));
      else if (msg.id !== undefined && msg.result !== undefined) wire.push(`answer ${String(msg.id)}`);
      handle?.(m);
    };
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(JSON.stringify(n.params)));
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it('class 1: a log message carrying an injection is withheld; the client is told why', async () => {
    logs.length = 0;
    await client.callTool({ name: 'log_now', arguments: { text: `Sync status. ${SIDE_INJECTION}` } });
    await waitFor(() => logs.some((l) => /QuadGuard/.test(l)), 10_000, 'the warning');
    expect(logs.join('\n')).not.toContain('attacker@evil.example');
    expect(logs.join('\n')).toMatch(/log message from server.*no-injection-in-results/);
  }, 30_000);

  it('class 1: a result whose _meta, or whose content block\'s _meta, carries an injection is denied', async () => {
    for (const variant of ['result', 'block']) {
      const r = (await client.callTool({ name: 'meta_result', arguments: { variant } })) as CallToolResult;
      expect(r.isError, variant).toBe(true);
      expect(JSON.stringify(r)).not.toContain('attacker@evil.example');
      expect(textOf(r)).toMatch(/no-injection-in-results/);
    }
  }, 30_000);

  it('class 1: a tool whose _meta, icon or input-schema property name carries an injection is not listed', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('meta_note');
    expect(names).not.toContain('icon_note');
    expect(names).not.toContain('named');
    // Control: a tool with a benign icon and _meta is listed with them, unchanged.
    const iconic = (await client.listTools()).tools.find((t) => t.name === 'iconic');
    expect(iconic?._meta).toEqual({ 'io.example/ui': 'weather-card' });
    expect(iconic?.icons?.[0]?.src).toMatch(/^data:image\/png;base64,/);
  }, 30_000);

  it('class 1 control: a benign log, a benign result _meta and content _meta reach the client unchanged', async () => {
    logs.length = 0;
    await client.callTool({ name: 'log_now', arguments: { text: 'Synced 3 notes.' } });
    await waitFor(() => logs.some((l) => l.includes('Synced 3 notes.')), 10_000, 'the log');
    const r = (await client.callTool({ name: 'meta_result', arguments: { variant: 'clean' } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(r._meta).toEqual({ 'io.example/trace': 'trace-7' });
    expect(r.content[0]).toEqual({ type: 'text', text: 'Done.', _meta: { 'io.example/trace': 'span-42' } });
  }, 30_000);

  it('class 3: a credential in the _meta of tools/call, resources/read or prompts/get is denied and never reaches the server', async () => {
    const call = (await client.callTool({ name: 'log_now', arguments: { text: 'hi' }, _meta: { 'io.example/auth': TOKEN } })) as CallToolResult;
    expect(call.isError).toBe(true);
    expect(textOf(call)).toMatch(/no-secret-leak/);
    await expect(client.readResource({ uri: 'side://page', _meta: { 'io.example/auth': TOKEN } })).rejects.toThrow(/no-secret-leak/);
    await expect(client.getPrompt({ name: 'hello', _meta: { 'io.example/auth': TOKEN } })).rejects.toThrow(/no-secret-leak/);
    expect(outboxText(outbox)).not.toContain(TOKEN);
    // Recorded: the audit shows the denied requests.
    const tail = await runCli(['audit', 'tail', '-n', '50', '--store', store]);
    expect(tail.stdout.match(/deny .*no-secret-leak/g)?.length ?? 0).toBeGreaterThanOrEqual(3);
  }, 30_000);

  it('class 3 control: a benign request _meta reaches the server unchanged', async () => {
    const r = (await client.callTool({ name: 'log_now', arguments: { text: 'hi' }, _meta: { 'io.example/trace': 'abc-1' } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    await client.readResource({ uri: 'side://page', _meta: { 'io.example/trace': 'abc-2' } });
    const seen = outboxText(outbox);
    expect(seen).toContain('"meta":{"io.example/trace":"abc-1"}');
    expect(seen).toContain('"meta":{"io.example/trace":"abc-2"}');
  }, 30_000);

  it("class 3: the reason of a client's cancellation does not reach the server", async () => {
    const ac = new AbortController();
    const pending = client.request({ method: 'tools/call', params: { name: 'wait', arguments: { ms: 1500 } } }, CallToolResultSchema, { signal: ac.signal });
    await waitFor(() => outboxText(outbox).includes('"tool":"wait"'), 10_000, 'the call');
    ac.abort(`stop; my key is ${TOKEN}`);
    await expect(pending).rejects.toThrow();
    await waitFor(() => outboxText(outbox).includes('"cancelled"'), 10_000, 'the cancellation');
    expect(outboxText(outbox)).not.toContain(TOKEN);
    expect(outboxText(outbox)).toContain('"cancelled":"the client cancelled the request"');
  }, 30_000);

  it('class 14: a deep _meta on resources/read is refused with a clear error, not a stack overflow', async () => {
    let meta: Record<string, unknown> = { leaf: 'x' };
    for (let i = 0; i < 3_000; i++) meta = { m: meta };
    const err = await client.readResource({ uri: 'side://page', _meta: meta }).then(() => undefined, (e: unknown) => e as { code?: number; message: string });
    expect(err).toBeDefined();
    expect(err!.message).not.toMatch(/call stack/);
    expect(err!.message).toMatch(/nested deeper than/);
    expect(err!.code).toBe(-32602);
    // The proxy keeps serving.
    expect((await client.readResource({ uri: 'side://page' })).contents[0]).toMatchObject({ text: 'A quiet page.' });
  }, 30_000);

  it('class 14: progress of a long call reaches the client', async () => {
    const seen: number[] = [];
    wire.length = 0;
    const r = await client.callTool({ name: 'slow_count', arguments: { steps: 3 } }, undefined, { onprogress: (p) => void seen.push(p.progress) });
    expect(textOf(r as CallToolResult)).toBe('counted 3');
    // Every step's progress, then the answer; the SDK's handler got at least the steps not read with the answer.
    expect(wire.slice(0, 3)).toEqual(['1', '2', '3']);
    expect(wire).toHaveLength(4);
    expect(wire[3]).toMatch(/^answer /);
    expect(seen).toEqual([1, 2, 3].slice(0, seen.length));
    expect(seen.length).toBeGreaterThanOrEqual(2);
  }, 30_000);
});

describe('red team: logs reach only the session they concern, over HTTP (class 2)', () => {
  const sb = makeSandbox();
  const outbox = join(sb.dir, 'side.jsonl');
  const store = join(sb.dir, 'state.db');
  let proxy: Awaited<ReturnType<typeof startHttpProxy>>;
  const clients: Client[] = [];
  const seen = { a: [] as string[], b: [] as string[] };

  beforeAll(async () => {
    const cfg = writeConfig(sb.dir, {
      servers: { side: sideServer(outbox) },
      policy: join(ROOT, 'policies', 'default'),
      store,
      guard: { watcher: { quarantine: false } },
      agents: { alice: { token: { env: 'ALICE_TOKEN' } }, bob: { token: { env: 'BOB_TOKEN' } } },
    });
    proxy = await startHttpProxy(cfg, { ALICE_TOKEN: 'alice-token-0123456789abcdef', BOB_TOKEN: 'bob-token-0123456789abcdef' }, ['--no-ui']);
    for (const [who, token] of [['a', 'alice-token-0123456789abcdef'], ['b', 'bob-token-0123456789abcdef']] as const) {
      const c = await connectHttp(proxy.url, token, who);
      c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen[who].push(JSON.stringify(n.params)));
      clients.push(c);
    }
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await proxy?.stop();
  });

  it("a log sent after alice's call, with no request in flight, reaches neither session and is recorded", async () => {
    const [alice] = clients;
    await alice!.callTool({ name: 'log_later', arguments: { text: 'alice: invoice 7731 for Jane Holloway', delay_ms: 200 } });
    // Before, bob got it within a few milliseconds of the server sending it.
    await new Promise((r) => setTimeout(r, 1500));
    expect(seen.b.join('\n')).not.toContain('Jane Holloway');
    expect(seen.a.join('\n')).not.toContain('Jane Holloway');
    await waitFor(async () => (await runCli(['audit', 'tail', '-n', '20', '--store', store])).stdout.includes('log-no-session'), 15_000, 'the recorded refusal');
  }, 30_000);

  it("control: a log sent during alice's call reaches alice only", async () => {
    const [alice] = clients;
    await alice!.callTool({ name: 'log_now', arguments: { text: 'alice: synced 3 notes' } });
    await waitFor(() => seen.a.some((l) => l.includes('synced 3 notes')), 10_000, "alice's log");
    await new Promise((r) => setTimeout(r, 300));
    expect(seen.b.join('\n')).not.toContain('synced 3 notes');
  }, 30_000);

  it('class 14: a session id used on the other transport answers 400 with what to do, not 500', async () => {
    const auth = { authorization: 'Bearer alice-token-0123456789abcdef', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    // A Streamable HTTP session id sent to the legacy SSE endpoint.
    const init = await fetch(`${proxy.url}/mcp`, { method: 'POST', headers: auth, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }) });
    const sid = init.headers.get('mcp-session-id')!;
    await init.body?.cancel();
    const post = await fetch(`${proxy.url}/messages?sessionId=${sid}`, { method: 'POST', headers: auth, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) });
    expect(post.status).toBe(400);
    expect(await post.text()).toMatch(/Streamable HTTP session.*\/mcp/);
    // A legacy SSE session id sent to /mcp.
    const sse = await fetch(`${proxy.url}/sse`, { headers: { authorization: auth.authorization, accept: 'text/event-stream' } });
    const reader = sse.body!.getReader();
    let first = '';
    while (!/sessionId=/.test(first)) first += new TextDecoder().decode((await reader.read()).value);
    const sseId = /sessionId=([\w-]+)/.exec(first)![1]!;
    const mcp = await fetch(`${proxy.url}/mcp`, { method: 'POST', headers: { ...auth, 'mcp-session-id': sseId }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }) });
    expect(mcp.status).toBe(400);
    expect(await mcp.text()).toMatch(/legacy SSE session.*\/messages/);
    await reader.cancel();
  }, 30_000);
});
