import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { errorMessage, QuadGuardError } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/log.js';
import type { GuardStore } from '../store/engine.js';
import { hostCheck, requireToken } from './auth.js';
import { LiveFeed, type LiveEvent } from './feed.js';
import { FAVICON_SVG, PAGE_HTML } from './page.js';
import { kindsView } from './kinds.js';
import { liveScript } from './script.js';
import { policyInfo, type PolicyInfo } from './rules.js';
import type { ServiceStatus } from './service-status.js';

const KINDS_VIEW = kindsView();

/**
 * The live view's routes, all under `/ui`:
 *
 *   GET  /ui/                         the page (no data in it; it asks for the token if the link had none)
 *   GET  /ui/live.js                  its script
 *   GET  /ui/api/snapshot             { lastId, decisions (last 300 audit rows), agents, pins (pending), approvals,
 *                                     policy (name, version, hash, rule texts), kinds (src/ui/kinds.ts), now }
 *   GET  /ui/favicon.svg              the icon
 *   GET  /ui/api/decisions?after=N    audit rows with id > N (at most `limit`, default 200)
 *   GET  /ui/api/decisions/:id        { decision (audit row), interaction (masked, capped), masked, truncated }
 *   GET  /ui/api/ops                  the service's state (store, servers, last reload, counters) when the view runs
 *                                     inside `serve --http`; 404 beside a stdio proxy (`quadguard ui`)
 *   GET  /ui/api/stream?after=N       Server-Sent Events: `decision` (audit row, SSE id = row id), `agent`,
 *                                     `approval`, `pin`; resumes from `Last-Event-ID`; `: ping` every 15 s
 *   POST /ui/api/agents/:agent/release            lift quarantine (audited)
 *   POST /ui/api/pins/:server/:tool/approve       approve a changed tool definition; body { hash } optional
 *   POST /ui/api/approvals/:id/approve | /deny    decide a held call (audited)
 *
 * Everything under /ui/api needs the token; every route passes the Host check.
 */
export interface LiveViewOptions {
  /** Either engine: with PostgreSQL the view shows every replica's decisions (one shared chain). */
  store: GuardStore;
  /** The bearer token (at least 16 characters). */
  token: string;
  /** Host names accepted besides loopback (DNS-rebinding protection). */
  allowedHosts?: readonly string[];
  /** Who acts, in the audit rows of releases and approvals (default `live view`). */
  operator?: string;
  pollMs?: number;
  logger?: Logger;
  /** Rule texts and the policy's identity, to explain decisions (default: the proxy's own rules only). */
  policy?: PolicyInfo;
  /** The service's state (`serve --http`: src/ops/service-status.ts); absent beside a stdio proxy. */
  ops?: () => Promise<ServiceStatus>;
}

/** The router plus its feed (closed with `close`). */
export interface LiveViewRouter {
  router: Router;
  feed: LiveFeed;
  close(): void;
}

/** Security headers of every live view response: no framing, no referrer (the token may be in the URL), no cache. */
function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-store');
  next();
}

function intParam(v: unknown, fallback: number): number {
  const n = typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : fallback;
}

/** Writes one SSE event; the JSON never contains a raw newline, so one `data:` line suffices. */
export function sseFrame(e: LiveEvent): string {
  return `event: ${e.event}\n${e.event === 'decision' ? `id: ${e.id}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`;
}

/**
 * Builds the live view router for a store.
 *
 * @example
 * const ui = createLiveViewRouter({ store, token: newToken() });
 * app.use(ui.router);   // serves /ui and /ui/api/*
 */
export function createLiveViewRouter(opts: LiveViewOptions): LiveViewRouter {
  const { store } = opts;
  const log = (opts.logger ?? silentLogger()).child({ mod: 'ui' });
  const feed = new LiveFeed(store, { ...(opts.pollMs ? { pollMs: opts.pollMs } : {}), logger: log });
  const operator = opts.operator ?? 'live view';
  const policy = opts.policy ?? policyInfo();
  const streams = new Set<Response>();
  const router = express.Router();
  const auth = requireToken(opts.token);
  const json = express.json({ limit: '16kb', type: () => true });

  router.use('/ui', hostCheck(opts.allowedHosts ?? []), securityHeaders);
  router.get(['/ui', '/ui/'], (_req, res) => {
    res.type('html').send(PAGE_HTML);
  });
  router.get('/ui/live.js', (_req, res) => {
    const script = liveScript();
    if (script.ok) res.type('text/javascript').send(script.text);
    else res.status(503).type('text/plain').send(script.error);
  });
  router.get('/ui/favicon.svg', (_req, res) => {
    res.type('image/svg+xml').send(FAVICON_SVG);
  });

  router.use('/ui/api', auth);
  router.get('/ui/api/snapshot', async (_req, res) => {
    const [decisions, agents, pins, approvals] = await Promise.all([
      store.audit.tail(300),
      store.state.listAgents(),
      store.pins.listPins('pending'),
      store.approvals.list({ limit: 200 }),
    ]);
    res.json({
      lastId: decisions[decisions.length - 1]?.id ?? 0,
      decisions,
      agents,
      pins,
      approvals,
      policy,
      kinds: KINDS_VIEW,
      now: Date.now(),
    });
  });
  // One decision with what the drawer needs: the row, and the interaction as recorded (masked, capped).
  router.get('/ui/api/decisions/:id', async (req, res) => {
    const row = await store.audit.get(String(req.params.id));
    if (!row) {
      res.status(404).json({ error: `no decision ${String(req.params.id)}` });
      return;
    }
    const rec = await store.audit.interaction(row.id);
    let interaction: unknown = null;
    if (rec?.body) {
      try {
        interaction = JSON.parse(rec.body) as unknown;
      } catch {
        interaction = null;
      }
    }
    res.json({ decision: row, interaction, masked: rec?.masked ?? false, truncated: rec?.truncated ?? false });
  });
  router.get('/ui/api/ops', async (_req, res) => {
    if (!opts.ops) return void res.status(404).json({ error: 'no service state here: this live view runs beside a stdio proxy (quadguard ui); the one of `serve --http` shows it' });
    res.json(await opts.ops());
  });
  router.get('/ui/api/decisions', async (req, res) => {
    const after = intParam(req.query.after, 0);
    const limit = Math.min(1000, Math.max(1, intParam(req.query.limit, 200)));
    const rows = [];
    for await (const r of store.audit.iterate(after + 1)) {
      rows.push(r);
      if (rows.length >= limit) break;
    }
    res.json({ decisions: rows });
  });
  router.get('/ui/api/stream', async (req, res) => {
    const last = req.headers['last-event-id'];
    const given = intParam(typeof last === 'string' ? last : undefined, intParam(req.query.after, -1));
    const after = given >= 0 ? given : await feed.lastId();
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.write('retry: 1000\n\n');
    streams.add(res);
    const unsubscribe = feed.subscribe(after, (e) => void res.write(sseFrame(e)));
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    ping.unref();
    req.on('close', () => {
      clearInterval(ping);
      unsubscribe();
      streams.delete(res);
    });
  });

  router.post('/ui/api/agents/:agent/release', async (req, res) => {
    res.json({ agent: await store.state.release(String(req.params.agent), operator, 'ui') });
  });
  router.post('/ui/api/pins/:server/:tool/approve', json, async (req, res) => {
    const hash = typeof (req.body as { hash?: unknown } | undefined)?.hash === 'string' ? (req.body as { hash: string }).hash : undefined;
    res.json({ pin: await store.pins.approvePin(String(req.params.server), String(req.params.tool), hash, operator, 'ui') });
  });
  router.post('/ui/api/approvals/:id/approve', async (req, res) => {
    res.json({ approval: await store.approvals.approve(String(req.params.id), operator, 'ui') });
  });
  router.post('/ui/api/approvals/:id/deny', async (req, res) => {
    res.json({ approval: await store.approvals.deny(String(req.params.id), operator, 'ui') });
  });

  router.use('/ui', (_req: Request, res: Response) => {
    res.status(404).json({ error: 'not found' });
  });
  // Store errors name what is wrong (unknown agent, approval no longer pending): 404/409 with that message.
  router.use('/ui', (err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) return;
    if (err instanceof QuadGuardError) {
      const status = /not_found$/.test(err.code) ? 404 : err.code === 'store_invalid_id' || err.code === 'store_invalid_input' ? 400 : 409;
      res.status(status).json({ error: err.message, code: err.code });
      return;
    }
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.parse.failed' || e.type === 'entity.too.large') {
      res.status(e.status ?? 400).json({ error: 'bad request body' });
      return;
    }
    log.error({ err: errorMessage(err) }, 'live view request failed');
    res.status(500).json({ error: 'internal error' });
  });

  return {
    router,
    feed,
    close() {
      feed.close();
      for (const r of streams) r.end();
      streams.clear();
    },
  };
}
