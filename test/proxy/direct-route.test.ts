import { rmSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { directRoute, resumeInExpress, withExpress } from '../../src/proxy/direct-route.js';
import { sendJsonRpcError } from '../../src/proxy/http-auth.js';
import { makeSandbox, server, startHttpProxy, writeConfig, type HttpProxy } from '../support/proxy-harness.js';

/**
 * `directRoute` against express's router, the computation it replaces: the same app answers every request once
 * through express (`createServer(app)`) and once through the direct route, and the two answers must be the same
 * (status, headers but the date, body). Then the proxy's own /mcp: the built `serve --http` answers `/mcp` by the
 * direct route and `/mcp?` (the same route to express) by express's router.
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: comparable(res.headers), body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function comparable(headers: IncomingHttpHeaders): Record<string, string | string[] | undefined> {
  const { date: _date, ...rest } = headers;
  return rest;
}

async function listen(s: Server): Promise<number> {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return (s.address() as AddressInfo).port;
}

async function close(s: Server): Promise<void> {
  s.closeAllConnections();
  await new Promise<void>((r) => s.close(() => r()));
}

/** What each handler does is chosen by the request's `x-case` header (`step:action`, comma-separated). */
function actionOf(req: Request, step: string): string | undefined {
  const cases = String(req.headers['x-case'] ?? '').split(',');
  return cases.find((c) => c.startsWith(`${step}:`))?.slice(step.length + 1);
}

function step(name: string): RequestHandler {
  return function handler(req: Request, res: Response, next: NextFunction) {
    res.locals.seen = `${String(res.locals.seen ?? '')}${name};`;
    switch (actionOf(req, name)) {
      case 'async':
        return void setImmediate(() => next());
      case 'refuse':
        return sendJsonRpcError(res, 401, -32001, `refused by ${name}`, { 'WWW-Authenticate': 'Bearer' });
      case 'sdk-refuse':
        // As the SDK's Host-header check refuses (express's methods on the response).
        withExpress(res);
        return void res.status(403).json({ error: `forbidden by ${name}` });
      case 'error':
        return next(Object.assign(new Error(`failed in ${name}`), { status: 413, type: 'entity.too.large' }));
      case 'throw':
        throw new Error(`thrown in ${name}`);
      case 'reject':
        return Promise.reject(new Error(`rejected in ${name}`)) as unknown as void;
      case 'reject-empty':
        return Promise.reject(undefined) as unknown as void;
      case 'route':
        return next('route');
      case 'router':
        return next('router');
      case 'falsy':
        return next(0);
      case 'pass-on':
        return next(Object.assign(new Error('passed on'), { passOn: true }));
      default:
        return next();
    }
  };
}

/** The last handler: answers with what it saw (unless told to fail or to call next). */
function last(eagerRead: boolean): RequestHandler {
  const inner = step('last');
  return async (req: Request, res: Response, next: NextFunction) => {
    const action = actionOf(req, 'last');
    if (action === 'next') return void next();
    // A thrown error or a rejection of this async handler goes to `next` as a rejected promise.
    if (action !== undefined) return void (await inner(req, res, next));
    const body = JSON.stringify({ seen: res.locals.seen, method: req.method, ...(eagerRead ? { path: req.path, query: req.query } : {}) });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  };
}

function appFor(eager: boolean): { app: express.Application; direct: ReturnType<typeof directRoute> } {
  const app = express();
  app.disable('x-powered-by');
  app.set('env', 'production');
  app.use(resumeInExpress);
  const first = step('first');
  app.use(first);
  const chain = [step('gate'), step('auth'), step('body'), last(eager)];
  app.all('/p', ...chain);
  app.get('/other', (_req, res) => void res.json({ other: true }));
  app.use((err: { status?: number; type?: string; message?: string; passOn?: boolean }, _req: Request, res: Response, next: NextFunction) => {
    if (err.passOn) return next(err);
    sendJsonRpcError(res, err.status ?? 500, -32603, `${err.type ?? 'error'}: ${err.message ?? ''}`);
  });
  return { app, direct: directRoute(app, '/p', [first, ...chain], eager) };
}

const CASES: Array<[string, string, string?]> = [
  ['POST', ''],
  ['GET', ''],
  ['DELETE', ''],
  ['HEAD', ''],
  ['OPTIONS', ''],
  ['POST', 'first:async,gate:async,auth:async,body:async'],
  ['POST', 'first:refuse'],
  ['POST', 'first:sdk-refuse'],
  ['POST', 'auth:refuse'],
  ['POST', 'gate:sdk-refuse'],
  ['POST', 'body:error'],
  ['POST', 'first:error'],
  ['POST', 'auth:async,body:error'],
  ['POST', 'gate:throw'],
  ['POST', 'last:throw'],
  ['POST', 'last:reject'],
  ['POST', 'last:reject-empty'],
  ['POST', 'last:error'],
  ['POST', 'last:next'],
  ['POST', 'first:route'],
  ['POST', 'gate:route'],
  ['POST', 'auth:router'],
  ['POST', 'first:router'],
  ['POST', 'gate:falsy'],
  ['POST', 'body:pass-on'],
  ['GET', 'body:refuse'],
];

describe('directRoute runs a route as express would', () => {
  for (const eager of [false, true]) {
    const { app, direct } = appFor(eager);
    const viaExpress = createServer(app);
    const viaDirect = createServer((req, res) => void (direct(req, res) || app(req, res)));
    let a = 0;
    let b = 0;
    beforeAll(async () => {
      a = await listen(viaExpress);
      b = await listen(viaDirect);
    });
    afterAll(async () => {
      await close(viaExpress);
      await close(viaDirect);
    });

    it(`answers every case as the router does (${eager ? 'express methods at once' : 'express methods when asked'})`, async () => {
      // Express's final handler prints an error passed on to it.
      const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
      for (const [method, cases] of CASES) {
        for (const path of ['/p', '/p?q=1', '/p/', '/other', '/nowhere']) {
          const headers = cases === '' ? {} : { 'x-case': cases };
          const body = method === 'POST' ? '{"a":1}' : undefined;
          const want = await send(a, method, path, headers, body);
          const got = await send(b, method, path, headers, body);
          expect({ method, path, cases, ...got }).toEqual({ method, path, cases, ...want });
        }
      }
      printed.mockRestore();
    });
  }

  it('takes only the exact path, and leaves a request it does not take untouched', () => {
    const { direct } = appFor(false);
    const req = { url: '/p/' } as never;
    const res = {} as never;
    expect(direct(req, res)).toBe(false);
    expect(res).toEqual({});
  });
});

describe('the proxy answers /mcp by the direct route as express answers it', () => {
  const sb = makeSandbox();
  const TOKEN = 'planner-token-0123456789abcdef';
  let proxy: HttpProxy;
  beforeAll(async () => {
    const cfg = writeConfig(sb.dir, {
      servers: { ws: server('workspace', '--root', sb.workspace) },
      agents: { planner: { token: { value: TOKEN } } },
      http: { body_limit: '1kb' },
    });
    proxy = await startHttpProxy(cfg);
  });
  afterAll(async () => {
    await proxy?.stop();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  const MCP = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
  const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  const auth = { authorization: `Bearer ${TOKEN}` };
  /** The same request to `/mcp` and `/mcp?`; session ids (new per session) are compared by their presence. */
  const both = async (method: string, headers: Record<string, string>, body?: string) => {
    const [direct, routed] = [await send(proxy.port, method, '/mcp', headers, body), await send(proxy.port, method, '/mcp?', headers, body)];
    const norm = (x: Answer) => ({ ...x, headers: { ...x.headers, 'mcp-session-id': x.headers['mcp-session-id'] === undefined ? undefined : 'set' } });
    return { direct: norm(direct), routed: norm(routed), ids: [direct.headers['mcp-session-id'], routed.headers['mcp-session-id']] as Array<string | undefined> };
  };

  it('refuses alike: no token, a wrong token, a Host it does not serve, a body too large, a body that is not JSON', async () => {
    const cases: Array<[string, Record<string, string>, string?]> = [
      ['POST', MCP, INIT],
      ['POST', { ...MCP, authorization: 'Bearer wrong-token-000000000000' }, INIT],
      ['POST', { ...MCP, ...auth, host: 'evil.example' }, INIT],
      ['POST', { ...MCP, ...auth }, JSON.stringify({ pad: 'x'.repeat(2000) })],
      ['POST', { ...MCP, ...auth }, '{"jsonrpc": '],
      ['POST', { ...MCP, ...auth }, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })],
      ['GET', { ...MCP, ...auth }],
      ['DELETE', { ...MCP, ...auth, 'mcp-session-id': 'no-such-session' }],
      ['PUT', { ...MCP, ...auth }, '{}'],
    ];
    for (const [method, headers, body] of cases) {
      const { direct, routed } = await both(method, headers, body);
      expect(direct.status).toBeGreaterThanOrEqual(400);
      expect({ method, sent: headers, ...direct }).toEqual({ method, sent: headers, ...routed });
    }
  });

  it('serves a session alike: initialize, tools/list, a call, a refusal, a second initialize, close', async () => {
    const init = await both('POST', { ...MCP, ...auth }, INIT);
    expect(init.direct).toEqual(init.routed);
    expect(init.direct.status).toBe(200);
    const [d, r] = init.ids as [string, string];
    const on = async (body: string | undefined, method = 'POST') => {
      const direct = await send(proxy.port, method, '/mcp', { ...MCP, ...auth, 'mcp-session-id': d }, body);
      const routed = await send(proxy.port, method, '/mcp?', { ...MCP, ...auth, 'mcp-session-id': r }, body);
      expect({ ...direct, headers: { ...direct.headers, 'mcp-session-id': 'id' } }).toEqual({ ...routed, headers: { ...routed.headers, 'mcp-session-id': 'id' } });
      return direct;
    };
    expect((await on(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))).status).toBe(202);
    expect((await on(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }))).body).toContain('ws__read_file');
    expect((await on(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ws__read_file', arguments: { path: 'notes.txt' } } }))).body).toContain('hello notes');
    expect((await on(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }))).body).toContain('Unknown tool');
    expect((await on(INIT)).status).toBe(400);
    expect((await on(undefined, 'DELETE')).status).toBe(200);
    expect((await on(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }))).status).toBe(404);
  });
});
