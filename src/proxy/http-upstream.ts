import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Application, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ConfigError } from '../core/errors.js';
import type { ProxyCore, SessionContext } from './context.js';
import { directRoute, resumeInExpress, withExpress } from './direct-route.js';
import { bearerAuth, sendJsonRpcError, type RequestIdentity } from './http-auth.js';
import { NodeStreamableHttpTransport } from './http-transport.js';
import { jsonBody } from './json-body.js';
import { isInitialize } from './jsonrpc-shape.js';
import type { UpstreamRegistry } from './sessions.js';
import { createUpstreamServer } from './upstream-server.js';

/** A running upstream HTTP listener. */
export interface HttpUpstream {
  port: number;
  host: string;
  /** Open MCP sessions (Streamable HTTP and SSE). */
  sessions(): number;
  close(): Promise<void>;
}

/** What routes that serve agents run, as /mcp does: the drain gate, authentication, and `around` (after the body). */
export interface FrontEndHooks {
  gate: RequestHandler;
  auth: RequestHandler;
  around: RequestHandler;
}

/** What the service layer (src/ops/) adds to the HTTP front end; every part optional. */
export interface HttpFrontEndOptions {
  port: number;
  host?: string | undefined;
  /**
   * Other routes on the same listener (the live view, health and metrics, the A2A proxy), behind Host-header
   * validation; `auth` is the front end's authentication, `gate` and `around` the ones /mcp runs, for routes that
   * serve agents.
   */
  extraRoutes?: (app: Application, hooks: FrontEndHooks) => void;
  /** Runs first on /mcp, /sse and /messages (drain: 503 while stopping). */
  gate?: RequestHandler;
  /** Authentication (default: `bearerAuth` of the agents' static tokens); `configured`: it can refuse anyone. */
  auth?: { handler: RequestHandler; configured: boolean };
  /** Runs around the handling of each authenticated MCP request, after its body is read (a trace span). */
  around?: RequestHandler;
}

interface LiveSession {
  transport: Transport & { close(): Promise<void> };
  server: Server;
  ctx: SessionContext;
  lastSeen: number;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Whether a bind address only accepts local connections. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || host.startsWith('127.');
}

/** Host header values one check accepted at most (a client sends one or two; a bound so that none can grow it). */
const REMEMBERED_HOSTS = 64;

/**
 * The SDK's Host-header check (DNS rebinding), run once per Host header value: its answer depends only on the value
 * and the fixed allowed list, and it parses a URL per request. A value it accepted passes at once after; any other
 * value goes through it every time, so every refusal is its own.
 */
function rememberedHosts(check: RequestHandler): RequestHandler {
  const accepted = new Set<string>();
  return function hostCheck(req, res, next) {
    const host = req.headers.host;
    if (host !== undefined && accepted.has(host)) return next();
    // The SDK's check refuses with express's `res.status().json()`.
    withExpress(res);
    return check(req, res, (err?: unknown) => {
      if (err === undefined && host !== undefined && accepted.size < REMEMBERED_HOSTS) accepted.add(host);
      next(err);
    });
  };
}

/**
 * Serves Streamable HTTP on /mcp (stateful sessions by default, or stateless) and legacy SSE on /sse + /messages,
 * behind Host-header validation, bearer auth, and a JSON body limit whose violations are JSON-RPC errors.
 */
export async function startHttpUpstream(
  core: ProxyCore,
  registry: UpstreamRegistry,
  tokens: Map<string, string>,
  opts: HttpFrontEndOptions,
): Promise<HttpUpstream> {
  const cfg = core.config.http;
  const host = opts.host ?? cfg.host;
  const log = core.logger.child({ mod: 'http' });
  const authConfigured = opts.auth?.configured ?? tokens.size > 0;
  if (!authConfigured) {
    if (!isLoopback(host)) {
      throw new ConfigError('config_insecure', `refusing to serve HTTP on ${host} without authentication: configure agents.<name>.token, or bind to 127.0.0.1`);
    }
    log.warn('no agent tokens configured: HTTP runs unauthenticated (loopback only)');
  }
  const sessions = new Map<string, LiveSession>();
  const profileOf = (agent: string) => core.config.agents[agent]?.profile ?? {};
  const identity = (res: Response) => res.locals.identity as RequestIdentity;
  const newSession = (res: Response, id: string): SessionContext => {
    const who = identity(res);
    return { id, agent: who.agent, profile: profileOf(who.agent), authenticated: who.authenticated };
  };
  const track = (id: string, s: LiveSession) => {
    sessions.set(id, s);
    registry.add(s.server, s.ctx);
  };
  const drop = (id: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    void s.server.close().catch(() => {});
  };
  /** A known session used with another agent's token is refused; unknown ids get 404 so clients re-initialise. */
  const lookup = (id: string, res: Response): LiveSession | undefined => {
    const s = sessions.get(id);
    if (!s) return void sendJsonRpcError(res, 404, -32001, 'Session not found: re-initialize');
    if (s.ctx.agent !== identity(res).agent) return void sendJsonRpcError(res, 403, -32001, 'Forbidden: this session belongs to another agent');
    s.lastSeen = Date.now();
    return s;
  };

  const app = express();
  app.disable('x-powered-by');
  const allowed = ['localhost', '127.0.0.1', '[::1]', ...cfg.allowed_hosts];
  if (!isLoopback(host) && host !== '0.0.0.0' && host !== '::') allowed.push(host);
  app.use(resumeInExpress);
  const hostCheck = rememberedHosts(hostHeaderValidation(allowed));
  app.use(hostCheck);
  // The ordinary body is read by jsonBody; a compressed one, one with a charset or chunked, by body-parser.
  const json = jsonBody(cfg.body_limit, express.json({ limit: cfg.body_limit, type: () => true }));
  const auth = opts.auth?.handler ?? bearerAuth(tokens);
  const pass: RequestHandler = (_req, _res, next) => next();
  const gate = opts.gate ?? pass;
  const around = opts.around ?? pass;

  const mcp = async (req: Request, res: Response) => {
    const sid = req.headers['mcp-session-id'];
    if (cfg.stateless) {
      if (req.method !== 'POST') return sendJsonRpcError(res, 405, -32000, 'Method not allowed: this proxy runs stateless (POST only)');
      const ctx = newSession(res, `stateless-${randomUUID()}`);
      const server = createUpstreamServer(core, ctx, { tasks: false });
      const transport = new NodeStreamableHttpTransport({}); // no sessionIdGenerator: stateless mode
      res.on('close', () => void transport.close().then(() => server.close()).catch(() => {}));
      await server.connect(transport);
      return transport.handleRequest(req, res, req.body);
    }
    if (typeof sid === 'string') {
      const s = lookup(sid, res);
      if (!s) return undefined;
      // A legacy SSE session's id sent here (or the reverse, below) is a client error, not the proxy's.
      if (!(s.transport instanceof NodeStreamableHttpTransport)) return sendJsonRpcError(res, 400, -32600, 'Bad Request: this Mcp-Session-Id names a legacy SSE session; post its messages to /messages?sessionId=…, or initialize a Streamable HTTP session on /mcp');
      return s.transport.handleRequest(req, res, req.body);
    }
    if (req.method !== 'POST' || !isInitialize(req.body)) {
      return sendJsonRpcError(res, 400, -32600, 'Bad Request: no Mcp-Session-Id header; send an initialize request first');
    }
    const ctx = newSession(res, 'pending');
    const server = createUpstreamServer(core, ctx);
    const transport: NodeStreamableHttpTransport = new NodeStreamableHttpTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        ctx.id = id;
        track(id, { transport, server, ctx, lastSeen: Date.now() });
        log.info({ session: id, agent: ctx.agent }, 'http session opened');
      },
      onsessionclosed: (id) => drop(id),
    });
    transport.onclose = () => ctx.id !== 'pending' && drop(ctx.id);
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };
  app.all('/mcp', gate, auth, json, around, mcp);
  // The same handlers for the URL every MCP client posts to, without express's router (direct-route.ts). A tracing
  // span (`around`) reads the request's path through express.
  const mcpDirect = directRoute(app, '/mcp', [hostCheck, gate, auth, json, around, mcp], opts.around !== undefined);

  app.get('/sse', gate, auth, async (_req: Request, res: Response) => {
    const transport = new SSEServerTransport('/messages', res);
    const ctx = newSession(res, transport.sessionId);
    const server = createUpstreamServer(core, ctx);
    track(transport.sessionId, { transport, server, ctx, lastSeen: Date.now() });
    res.on('close', () => drop(transport.sessionId));
    await server.connect(transport);
  });
  app.post('/messages', gate, auth, json, around, async (req: Request, res: Response) => {
    const sid = typeof req.query.sessionId === 'string' ? req.query.sessionId : '';
    const s = lookup(sid, res);
    if (!s) return;
    if (!(s.transport instanceof SSEServerTransport)) return sendJsonRpcError(res, 400, -32600, 'Bad Request: this sessionId names a Streamable HTTP session; send its requests to /mcp with the Mcp-Session-Id header');
    await s.transport.handlePostMessage(req, res, req.body);
  });

  // Other routes on the same listener (the live view under /ui, the A2A proxy under /a2a), behind the same Host-header
  // validation; the hooks are /mcp's, for routes that serve agents.
  opts.extraRoutes?.(app, { gate, auth, around });

  // Body-parser failures become JSON-RPC errors, never Express's HTML pages.
  app.use((err: { type?: string; status?: number; message?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (err.type === 'entity.too.large') return sendJsonRpcError(res, 413, -32600, `Request body too large (limit ${String(cfg.body_limit)})`);
    if (err.type === 'entity.parse.failed') return sendJsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
    log.error({ err: err.message }, 'http handler failed');
    sendJsonRpcError(res, err.status ?? 500, -32603, 'Internal error');
  });

  const sweep = setInterval(() => {
    const cutoff = Date.now() - cfg.session_idle_ms;
    for (const [id, s] of sessions) {
      if (s.lastSeen < cutoff) {
        log.info({ session: id }, 'closing idle session');
        drop(id);
      }
    }
  }, Math.min(60_000, Math.max(1000, cfg.session_idle_ms / 2)));
  sweep.unref();

  const http: HttpServer = createServer((req, res) => void (mcpDirect(req, res) || app(req, res)));
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, host, () => resolve());
  });
  // An idle keep-alive connection is closed keep_alive_ms (+1 s) after the server wrote its last response, however
  // late the client reads that response. With Node's 5 s, a client too busy to read for 6 s (96 sessions opened at
  // once on a loaded machine) sent its next request on a connection already closed: "other side closed", no
  // answer (docs/proxying.md, "HTTP front end: connections"). Idle connections are not subject to headersTimeout.
  http.keepAliveTimeout = cfg.keep_alive_ms;
  const port = (http.address() as AddressInfo).port;
  log.info({ host, port, stateless: cfg.stateless, auth: authConfigured, keepAliveMs: cfg.keep_alive_ms }, 'http listening');
  return {
    port,
    host,
    sessions: () => sessions.size,
    async close() {
      clearInterval(sweep);
      for (const id of [...sessions.keys()]) drop(id);
      http.closeAllConnections?.();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
