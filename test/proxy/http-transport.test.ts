/**
 * `NodeStreamableHttpTransport` against the SDK's `StreamableHTTPServerTransport`: the same server behind each, on
 * real HTTP servers on 127.0.0.1, given the same raw requests (every refusal the transport makes, sessions, batches,
 * notifications during a call, the GET stream, DELETE, stateless mode), must give the same status, headers that
 * matter and body (SSE events read as JSON). Then what the SDK does not show by comparison: a client that goes away
 * mid-call does not stop the server serving, and a long answer goes out a slice per turn of the event loop.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { NodeStreamableHttpTransport } from '../../src/proxy/http-transport.js';

type Kind = 'sdk' | 'ours';
interface Front {
  url: string;
  /** Session ids the transports made, replaced by `<sid>` when answers are compared. */
  sids: Set<string>;
  close(): Promise<void>;
}

function makeServer(): McpServer {
  const server = new McpServer({ name: 'parity', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('chatty', { inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
    for (let i = 1; i <= steps; i++) {
      const token = extra._meta?.progressToken;
      if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: `step ${i}` } });
    }
    return { content: [{ type: 'text', text: `did ${steps}` }] };
  });
  // A long text with pairs, escapes and a lone half, and as many long notifications before it.
  server.registerTool('long', { inputSchema: { chars: z.number(), notes: z.number().default(0) } }, async ({ chars, notes }, extra) => {
    const text = `${'ab😀"\\\n'.repeat(Math.ceil(chars / 7)).slice(0, chars - 1)}\ud83d`;
    for (let i = 0; i < notes; i++) await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: `${i}${text}` } });
    return { content: [{ type: 'text', text }] };
  });
  server.registerTool('slow', { inputSchema: { ms: z.number() } }, async ({ ms }) => {
    await new Promise((r) => setTimeout(r, ms));
    return { content: [{ type: 'text', text: 'late' }] };
  });
  return server;
}

/**
 * A front end as the proxy's: a POST's body parsed first (bad JSON answered before the transport, as express.json
 * does), a POST of an initialize request without a session id opens a session, anything else goes to its session
 * or, without a known id, to the first session (so the transport's own checks answer). `stateless`: a new server and
 * transport per request.
 */
async function startFront(kind: Kind, stateless = false, onResponse?: (res: ServerResponse) => void): Promise<Front> {
  const sids = new Set<string>();
  const sessions = new Map<string, { handleRequest(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> }>();
  const make = (sessionful: boolean) => {
    const onsessioninitialized = (id: string) => {
      sids.add(id);
      sessions.set(id, transport);
    };
    const opts = sessionful ? { sessionIdGenerator: randomUUID, onsessioninitialized } : {};
    const transport = kind === 'sdk' ? new StreamableHTTPServerTransport(opts) : new NodeStreamableHttpTransport(opts);
    return transport;
  };
  const http: HttpServer = createServer((req, res) => {
    onResponse?.(res);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let body: unknown;
        if (req.method === 'POST') {
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            res.writeHead(400, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad json"},"id":null}');
            return;
          }
        }
        const sid = req.headers['mcp-session-id'];
        const opens = sid === undefined && (body as { method?: string } | undefined)?.method === 'initialize';
        let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
        if (!transport && !opens) transport = sessions.values().next().value;
        if (stateless || !transport) {
          const t = make(!stateless);
          await makeServer().connect(t);
          transport = t;
        }
        await transport.handleRequest(req, res, body);
      })();
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url,
    sids,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

const ACCEPT = 'application/json, text/event-stream';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };

interface Step {
  method?: string;
  body?: unknown;
  /** Headers; `sid: true` sends the session's id, a string sends that one. */
  headers?: Record<string, string>;
  sid?: boolean | string;
  /** Read only the head and keep the stream open until the run ends (a GET stream). */
  headOnly?: boolean;
}

interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: unknown;
}

/** Sends one raw request; an SSE body is read as its events' data, parsed. */
async function send(front: Front, step: Step, sid: string | undefined, open: AbortController[]): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT, ...step.headers };
  if (step.sid === true && sid) headers['mcp-session-id'] = sid;
  else if (typeof step.sid === 'string') headers['mcp-session-id'] = step.sid;
  const ac = new AbortController();
  const r = await fetch(front.url, { method: step.method ?? 'POST', headers, signal: ac.signal, ...(step.body === undefined ? {} : { body: typeof step.body === 'string' ? step.body : JSON.stringify(step.body) }) });
  const pick = ['content-type', 'cache-control', 'x-accel-buffering', 'allow', 'mcp-session-id'];
  const seen: Record<string, string | undefined> = {};
  for (const h of pick) {
    const v = r.headers.get(h) ?? undefined;
    seen[h] = v !== undefined && front.sids.has(v) ? '<sid>' : v;
  }
  if (step.headOnly) {
    open.push(ac);
    return { status: r.status, headers: seen, body: null };
  }
  const text = await r.text();
  let body: unknown = text;
  if (r.headers.get('content-type')?.startsWith('text/event-stream')) {
    body = text
      .split('\n\n')
      .filter((e) => e.trim() !== '')
      .map((e) => ({ event: /^event: (.*)$/m.exec(e)?.[1], data: JSON.parse(/^data: (.*)$/m.exec(e)?.[1] ?? 'null') as unknown }));
  } else if (text !== '') body = JSON.parse(text) as unknown;
  return { status: r.status, headers: seen, body };
}

/** Runs the steps in order on a front end; the session id comes from the first answer that carries one. */
async function run(front: Front, steps: Step[]): Promise<Answer[]> {
  let sid: string | undefined;
  const out: Answer[] = [];
  const open: AbortController[] = [];
  for (const step of steps) {
    const a = await send(front, step, sid, open);
    if (!sid && a.headers['mcp-session-id'] === '<sid>') sid = [...front.sids].at(-1);
    out.push(a);
  }
  for (const ac of open) ac.abort();
  return out;
}

const call = (id: number | string, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

const STATEFUL: Step[] = [
  { body: INIT, headers: { accept: 'application/json' } },
  { body: INIT, headers: { accept: 'text/event-stream' } },
  { body: INIT, headers: { 'content-type': 'text/plain' } },
  { body: INIT, headers: { 'content-type': 'application/json; charset=utf-8', accept: 'text/event-stream, application/json;q=0.9' } },
  { body: INIT, sid: true },
  { body: [INIT, { ...INIT, id: 2 }] },
  { body: initialized, sid: true },
  { body: { jsonrpc: '2.0', id: 3, method: 'tools/list' } },
  { body: { jsonrpc: '2.0', id: 3, method: 'tools/list' }, sid: 'not-a-session' },
  { body: { jsonrpc: '2.0', id: 3, method: 'tools/list' }, sid: true, headers: { 'mcp-protocol-version': '1999-01-01' } },
  { body: { jsonrpc: '2.0', id: 3, method: 'tools/list' }, sid: true, headers: { 'mcp-protocol-version': '2025-06-18' } },
  { body: { foo: 1 }, sid: true },
  { body: { jsonrpc: '2.0', id: null, method: 'tools/list' }, sid: true },
  { body: { jsonrpc: '2.0', id: 4, method: 'tools/list', extra: true }, sid: true },
  { body: { jsonrpc: '2.0', id: 5.5, method: 'tools/list' }, sid: true },
  { body: 42, sid: true },
  { body: Array.from({ length: 101 }, (_, i) => ({ jsonrpc: '2.0', method: 'notifications/x', params: { i } })), sid: true },
  { body: [], sid: true },
  { body: [call(6, 'echo', { text: 'a' }), { jsonrpc: '2.0', method: 'notifications/x' }, call('seven', 'echo', { text: 'b' })], sid: true },
  { body: call(8, 'chatty', { steps: 3 }, { progressToken: 'p8' }), sid: true },
  { body: call(9, 'chatty', { steps: 2 }), sid: true },
  { body: call(10, 'echo', { text: 'ünïcødé ✓' }), sid: true },
  { body: call(11, 'nope', {}), sid: true },
  { body: call(15, 'long', { chars: 600_000, notes: 1 }), sid: true },
  { body: { jsonrpc: '2.0', id: 12, result: {} }, sid: true },
  { body: { jsonrpc: '2.0', id: 13, error: { code: -1, message: 'x' } }, sid: true },
  { body: { jsonrpc: '2.0', error: { code: -1, message: 'x', extra: 1 } }, sid: true },
  { method: 'PUT', body: {}, sid: true },
  { method: 'GET', sid: true, headers: { accept: 'application/json' } },
  { method: 'GET', headers: { accept: 'text/event-stream' } },
  { method: 'GET', sid: true, headers: { accept: 'text/event-stream', 'mcp-protocol-version': 'bad' } },
  { method: 'GET', sid: true, headers: { accept: 'text/event-stream' }, headOnly: true },
  { method: 'GET', sid: true, headers: { accept: 'text/event-stream' } },
  { method: 'DELETE', sid: 'wrong' },
  { method: 'DELETE', sid: true },
  { body: { jsonrpc: '2.0', id: 14, method: 'tools/list' }, sid: true },
  { method: 'DELETE', sid: true },
];

const STATELESS: Step[] = [
  { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
  { body: call(2, 'chatty', { steps: 2 }, { progressToken: 2 }) },
  { body: INIT },
  { body: initialized },
  { body: { jsonrpc: '2.0', id: 3, method: 'tools/list' }, headers: { 'mcp-protocol-version': 'nope' } },
  { method: 'PATCH', body: {} },
  { body: 'null' },
];

describe('NodeStreamableHttpTransport answers as the SDK transport does', () => {
  const fronts = new Map<string, Front>();
  beforeAll(async () => {
    for (const kind of ['sdk', 'ours'] as const) {
      fronts.set(`${kind}`, await startFront(kind));
      fronts.set(`${kind}-stateless`, await startFront(kind, true));
    }
  });
  afterAll(async () => {
    for (const f of fronts.values()) await f.close();
  });

  it('gives the same answer to every step of a session, refusals included', async () => {
    const sdk = await run(fronts.get('sdk')!, STATEFUL);
    const ours = await run(fronts.get('ours')!, STATEFUL);
    for (let i = 0; i < STATEFUL.length; i++) expect({ step: i, ...ours[i] }).toEqual({ step: i, ...sdk[i] });
    // The comparison is not empty: refusals, SSE answers with notifications, and the session's end all occur.
    expect(sdk.map((a) => a.status)).toEqual(expect.arrayContaining([200, 202, 400, 404, 405, 406, 409, 415]));
    const chatty = sdk[19]!.body as { data: { method?: string } }[];
    expect(chatty.map((e) => e.data.method ?? 'result')).toEqual(['notifications/progress', 'notifications/message', 'notifications/progress', 'notifications/message', 'notifications/progress', 'notifications/message', 'result']);
  });

  it('gives the same answers in stateless mode', async () => {
    const sdk = await run(fronts.get('sdk-stateless')!, STATELESS);
    const ours = await run(fronts.get('ours-stateless')!, STATELESS);
    for (let i = 0; i < STATELESS.length; i++) expect({ step: i, ...ours[i] }).toEqual({ step: i, ...sdk[i] });
  });

  it('keeps serving after a client goes away in the middle of a call', async () => {
    const front = fronts.get('ours')!;
    const [init] = await run(front, [{ body: INIT }]);
    expect(init!.status).toBe(200);
    const sid = [...front.sids].at(-1)!;
    const headers = { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': sid };
    await fetch(front.url, { method: 'POST', headers, body: JSON.stringify(initialized) });
    const ac = new AbortController();
    const gone = fetch(front.url, { method: 'POST', headers, body: JSON.stringify(call(20, 'slow', { ms: 300 })), signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await expect(gone).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 400));
    const after = await fetch(front.url, { method: 'POST', headers, body: JSON.stringify(call(21, 'echo', { text: 'still here' })) });
    expect(after.status).toBe(200);
    expect(await after.text()).toContain('still here');
  });

  it('sends the head of a call still running after a second, and its answer when it comes', async () => {
    const front = fronts.get('ours')!;
    await run(front, [{ body: INIT }]);
    const sid = [...front.sids].at(-1)!;
    const headers = { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': sid };
    await fetch(front.url, { method: 'POST', headers, body: JSON.stringify(initialized) });
    const t0 = performance.now();
    const r = await fetch(front.url, { method: 'POST', headers, body: JSON.stringify(call(40, 'slow', { ms: 4000 })) });
    const head = performance.now() - t0;
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    expect(await r.text()).toContain('late');
    expect(head).toBeLessThan(3000);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(3900);
  });

  it('answers 400 as the SDK does when handing a message over fails, and keeps serving', async () => {
    const answers: Answer[] = [];
    for (const kind of ['sdk', 'ours'] as const) {
      const http = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const t = kind === 'sdk' ? new StreamableHTTPServerTransport({}) : new NodeStreamableHttpTransport({});
          t.onmessage = () => {
            throw new Error('boom');
          };
          void t.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8')));
        });
      });
      await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
      const front: Front = { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, sids: new Set(), close: async () => {} };
      answers.push(await send(front, { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } }, undefined, []));
      answers.push(await send(front, { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } }, undefined, []));
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    }
    expect(answers[0]!.status).toBe(400);
    expect(answers.slice(2)).toEqual(answers.slice(0, 2));
  });
});

describe('NodeStreamableHttpTransport writes a long answer a slice per turn', () => {
  /** Each write and end of the responses, with the turn of the event loop it came in (a chain of setImmediate counts them). */
  const writes: { turn: number; bytes: number }[] = [];
  let turn = 0;
  let counting = true;
  const count = (): void => {
    turn++;
    if (counting) setImmediate(count);
  };
  let front: Front;
  beforeAll(async () => {
    count();
    front = await startFront('ours', false, (res) => {
      for (const name of ['write', 'end'] as const) {
        const original = res[name].bind(res) as (chunk?: unknown, ...rest: unknown[]) => ServerResponse;
        (res as unknown as Record<string, unknown>)[name] = (chunk?: unknown, ...rest: unknown[]) => {
          if (typeof chunk === 'string') writes.push({ turn, bytes: Buffer.byteLength(chunk) });
          return original(chunk, ...rest);
        };
      }
    });
  });
  afterAll(async () => {
    counting = false;
    await front.close();
  });

  async function session(): Promise<Record<string, string>> {
    await run(front, [{ body: INIT }]);
    const headers = { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': [...front.sids].at(-1)! };
    await fetch(front.url, { method: 'POST', headers, body: JSON.stringify(initialized) });
    return headers;
  }

  it('sends the same bytes over many turns, none of them the whole answer, and serves another session meanwhile', async () => {
    const headers = await session();
    const other = await session();
    writes.length = 0;
    const r = await fetch(front.url, { method: 'POST', headers, body: JSON.stringify(call(50, 'long', { chars: 3_000_000, notes: 1 })) });
    expect(r.status).toBe(200);
    // The body is not read yet: the writer waits for the client, and another session's call is answered meanwhile.
    const small = await fetch(front.url, { method: 'POST', headers: other, body: JSON.stringify(call(51, 'echo', { text: 'meanwhile' })) });
    expect(await small.text()).toContain('meanwhile');
    const events = (await r.text()).split('\n\n').filter((e) => e !== '');
    const expected = `${'ab😀"\\\n'.repeat(Math.ceil(3_000_000 / 7)).slice(0, 3_000_000 - 1)}\ud83d`;
    const data = events.map((e) => JSON.parse(/^data: (.*)$/m.exec(e)![1]!) as { params?: { data: string }; result?: { content: { text: string }[] } });
    expect(data[0]!.params!.data).toBe(`0${expected}`);
    expect(data[1]!.result!.content[0]!.text).toBe(expected);
    // The same text as one write would have sent.
    expect(events[1]).toBe(`event: message\ndata: ${JSON.stringify({ result: { content: [{ type: 'text', text: expected }] }, jsonrpc: '2.0', id: 50 })}`);
    const longWrites = writes.filter((w) => w.bytes > 1000);
    expect(Math.max(...longWrites.map((w) => w.bytes))).toBeLessThan(1_500_000);
    expect(new Set(longWrites.map((w) => w.turn)).size).toBeGreaterThan(8);
  });

  it('keeps serving after a client goes away in the middle of a long answer', async () => {
    const headers = await session();
    const ac = new AbortController();
    const r = await fetch(front.url, { method: 'POST', headers, body: JSON.stringify(call(60, 'long', { chars: 3_000_000 })), signal: ac.signal });
    expect(r.status).toBe(200);
    ac.abort();
    const after = await fetch(front.url, { method: 'POST', headers, body: JSON.stringify(call(61, 'echo', { text: 'still here' })) });
    expect(await after.text()).toContain('still here');
  });
});
