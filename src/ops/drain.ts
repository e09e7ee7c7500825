import type { RequestHandler } from 'express';
import { sendJsonRpcError } from '../proxy/http-auth.js';

/**
 * Graceful stop of the HTTP front end (docs/operations.md): once `drain()` is called every new MCP request gets 503
 * with `Retry-After` (a load balancer sends it to another replica), while the requests already in flight run to
 * their end, for at most `ms`.
 */
export interface Drain {
  /** Put first on the MCP routes: counts requests in flight, refuses new ones while draining. */
  gate: RequestHandler;
  readonly draining: boolean;
  inflight(): number;
  /** Starts refusing and resolves when nothing is in flight or `ms` passed (`true`: everything finished). */
  drain(ms: number): Promise<boolean>;
}

/** Seconds a refused client is told to wait (`Retry-After`). */
const RETRY_AFTER_S = 5;

export function createDrain(): Drain {
  let draining = false;
  let inflight = 0;
  let idle: (() => void) | undefined;
  const gate: RequestHandler = function drainGate(req, res, next) {
    if (draining) {
      res.setHeader('Connection', 'close');
      return sendJsonRpcError(res, 503, -32000, 'Service Unavailable: QuadGuard is shutting down; retry shortly (another replica may answer)', { 'Retry-After': String(RETRY_AFTER_S) });
    }
    // A GET is a long-lived event stream, not a request that finishes: it is not waited for.
    if (req.method !== 'GET') {
      inflight++;
      res.once('close', () => {
        if (--inflight === 0) idle?.();
      });
    }
    next();
  };
  return {
    gate,
    get draining() {
      return draining;
    },
    inflight: () => inflight,
    drain(ms) {
      draining = true;
      if (inflight === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        idle = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
    },
  };
}
