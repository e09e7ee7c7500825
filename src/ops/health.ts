import type { Application, NextFunction, Request, Response } from 'express';
import type { GuardStore } from '../store/engine.js';
import { onStoreFault } from '../store/faults.js';
import type { ServiceMetrics } from './metrics.js';

/** How long `/readyz` waits for the store to answer, ms. */
const PROBE_MS = 1000;
/** A write fault this recent, with no successful append since, makes the proxy not ready. */
const WRITE_FAULT_WINDOW_MS = 30_000;

/**
 * Watches the store's health from both sides: the faults it reports (store/faults.ts) and the appends that
 * succeed, and counts both in the metrics. `audit.append` is wrapped in place (every caller, the pipeline's
 * included, holds this same store object).
 */
export function watchStore(store: GuardStore, metrics: ServiceMetrics | undefined, now = Date.now) {
  let lastFault: { at: number; op: string; reason: string; message: string } | undefined;
  let lastAppendOk = 0;
  const stop = onStoreFault((f) => {
    metrics?.storeFault(f.engine, f.op, f.reason);
    lastFault = { at: now(), op: f.op, reason: f.reason, message: ((f.err as Error)?.message ?? String(f.err)).slice(0, 300) };
  });
  const audit = store.audit as { append: GuardStore['audit']['append'] };
  const append = audit.append.bind(store.audit);
  audit.append = async (entry) => {
    const started = performance.now();
    try {
      const r = await append(entry);
      lastAppendOk = now();
      metrics?.auditAppend(true, (performance.now() - started) / 1000);
      return r;
    } catch (err) {
      metrics?.auditAppend(false, (performance.now() - started) / 1000);
      throw err;
    }
  };
  return {
    /** Whether the store answers a read now, and no write failed lately without one succeeding since. */
    async check(): Promise<{ ok: boolean; reason?: string }> {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([store.audit.tail(1), new Promise((_, rej) => (timer = setTimeout(() => rej(new Error(`no answer within ${PROBE_MS} ms`)), PROBE_MS)))]);
      } catch (err) {
        return { ok: false, reason: `the ${store.engine} store ${store.location} does not answer: ${(err as Error).message.slice(0, 300)}` };
      } finally {
        clearTimeout(timer);
      }
      const f = lastFault;
      // The read answered, but a write may still fail (a full disk, a lock held by another process).
      if (f && f.at > lastAppendOk && now() - f.at < WRITE_FAULT_WINDOW_MS) {
        return { ok: false, reason: `the ${store.engine} store ${store.location} failed (${f.op}, ${f.reason}): ${f.message}` };
      }
      return { ok: true };
    },
    stop,
  };
}

export interface HealthSources {
  /** Store check; absent without a policy (nothing is stored). */
  store?: () => Promise<{ ok: boolean; reason?: string }>;
  /** Each configured server, its state and whether the config marks it required. */
  servers: () => Array<{ server: string; state: string; required: boolean }>;
  draining: () => boolean;
  metrics?: ServiceMetrics;
  /** Whether a request may read these routes (loopback peer, or a valid token). */
  allowed: (req: Request, res: Response, next: NextFunction) => void;
}

/**
 * `GET /healthz` (200 while the process serves), `GET /readyz` (200 when the store answers and every required
 * server is connected, else 503 with the reasons as JSON) and `GET /metrics` (Prometheus text).
 */
export function healthRoutes(src: HealthSources): (app: Application) => void {
  return (app) => {
    app.get('/healthz', src.allowed, (_req, res) => {
      res.status(200).json({ status: src.draining() ? 'draining' : 'ok' });
    });
    app.get('/readyz', src.allowed, async (_req, res) => {
      const reasons: string[] = [];
      if (src.draining()) reasons.push('shutting down');
      const store = src.store ? await src.store() : { ok: true };
      if (!store.ok) reasons.push(store.reason ?? 'the store does not answer');
      const servers = src.servers();
      for (const s of servers) if (s.required && s.state !== 'ready') reasons.push(`required server "${s.server}" is ${s.state}`);
      res.status(reasons.length === 0 ? 200 : 503).json({
        ready: reasons.length === 0,
        ...(reasons.length > 0 ? { reasons } : {}),
        store: store.ok ? 'ok' : 'failing',
        servers: Object.fromEntries(servers.map((s) => [s.server, s.state])),
      });
    });
    if (src.metrics) {
      const m = src.metrics;
      app.get('/metrics', src.allowed, async (_req, res) => {
        res.setHeader('Content-Type', m.registry.contentType);
        res.send(await m.text());
      });
    }
  };
}
