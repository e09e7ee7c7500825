import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Application } from 'express';
import { ConfigError } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/log.js';
import type { GuardStore } from '../store/engine.js';
import { createLiveViewRouter, type LiveViewOptions } from './api.js';
import type { PolicyInfo } from './rules.js';
import { newToken } from './auth.js';

/** A running standalone live view. */
export interface LiveViewServer {
  /** `http://host:port/ui/` (without the token). */
  url: string;
  port: number;
  host: string;
  token: string;
  close(): Promise<void>;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/**
 * Mounts the live view on an express app (the proxy's HTTP server uses this through its `extraRoutes` hook).
 * Returns the close function of its feed and streams.
 */
export function mountLiveView(app: Application, opts: LiveViewOptions): () => void {
  const ui = createLiveViewRouter(opts);
  app.use(ui.router);
  return () => ui.close();
}

/**
 * `quadguard ui`: serves the live view of a store on its own port, beside a proxy in another process (stdio
 * proxies have no HTTP server). Binds to 127.0.0.1 by default; another address needs `allowNonLoopback`
 * (the token still protects it, but the page and stream then cross a network).
 *
 * @example
 * const ui = await startLiveView({ store: openStore('.quadguard/state.db'), port: 0 });
 * console.error(`${ui.url}?token=${ui.token}`);
 */
export async function startLiveView(opts: {
  store: GuardStore;
  port?: number;
  host?: string;
  token?: string;
  allowedHosts?: string[];
  allowNonLoopback?: boolean;
  pollMs?: number;
  logger?: Logger;
  /** Rule texts and policy identity (see rules.ts). */
  policy?: PolicyInfo;
}): Promise<LiveViewServer> {
  const host = opts.host ?? '127.0.0.1';
  if (!LOOPBACK.test(host) && !opts.allowNonLoopback) {
    throw new ConfigError('config_insecure', `refusing to serve the live view on ${host}: it binds to loopback unless --allow-remote is given`);
  }
  const token = opts.token ?? newToken();
  const allowed = [...(opts.allowedHosts ?? [])];
  if (!LOOPBACK.test(host) && host !== '0.0.0.0' && host !== '::') allowed.push(host);
  const app = express();
  app.disable('x-powered-by');
  const close = mountLiveView(app, { store: opts.store, token, allowedHosts: allowed, ...(opts.pollMs ? { pollMs: opts.pollMs } : {}), ...(opts.logger ? { logger: opts.logger } : {}), ...(opts.policy ? { policy: opts.policy } : {}) });
  app.get('/', (_req, res) => void res.redirect('/ui/'));
  const http: HttpServer = await new Promise((resolve, reject) => {
    const s = app.listen(opts.port ?? 0, host, () => resolve(s));
    s.once('error', reject);
  });
  const port = (http.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  (opts.logger ?? silentLogger()).child({ mod: 'ui' }).info({ host, port }, 'live view listening');
  return {
    url: `http://${shown}:${port}/ui/`,
    port,
    host,
    token,
    async close() {
      close();
      http.closeAllConnections?.();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
