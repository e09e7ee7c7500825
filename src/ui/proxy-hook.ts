import type { Application } from 'express';
import type { LoadedConfig } from '../config/load.js';
import { ConfigError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import { openStore } from '../store/db.js';
import type { GuardStore } from '../store/engine.js';
import { newToken } from './auth.js';
import type { CompiledBook } from '../policy/compiled.js';
import { policyInfo } from './rules.js';
import { mountLiveView } from './server.js';
import type { ServiceStatus } from './service-status.js';

/** The live view as `quadguard serve --http` mounts it under /ui on the proxy's own listener. */
export interface ProxyLiveView {
  token: string;
  /** Pass to `proxy.serveHttp({ extraRoutes })`. */
  extraRoutes(app: Application): void;
  /** Prints the link (with the token) once the listener's port is known. */
  announce(listener: { host: string; port: number }, out?: NodeJS.WritableStream): void;
  close(): void;
}

/**
 * Uses the guard's store when given (either engine; the view does not close it), else opens the config's SQLite
 * store (the same connection the guard uses: `openStore` shares it per file), and prepares the live view routes; `book` (the proxy's policy) gives the rule texts the page explains decisions with. The token is `QUADGUARD_UI_TOKEN` when set (at least 16 characters), else random; it is
 * printed on stderr, never logged.
 */
export function liveViewForProxy(
  loaded: LoadedConfig,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
  book?: CompiledBook,
  guardStore?: GuardStore,
  ops?: () => Promise<ServiceStatus>,
): ProxyLiveView {
  const owned = guardStore ? undefined : openStore(loaded.config.store, logger);
  const store: GuardStore = guardStore ?? owned!;
  const pollMs = pollFromEnv(env.QUADGUARD_UI_POLL_MS);
  const fromEnv = env.QUADGUARD_UI_TOKEN;
  const token = fromEnv && fromEnv.length >= 16 ? fromEnv : newToken();
  let unmount: (() => void) | undefined;
  return {
    token,
    extraRoutes(app) {
      unmount = mountLiveView(app, { store, token, allowedHosts: loaded.config.http.allowed_hosts, logger, policy: policyInfo(book), ...(pollMs ? { pollMs } : {}), ...(ops ? { ops } : {}) });
    },
    announce(l, out = process.stderr) {
      const host = l.host === '0.0.0.0' || l.host === '::' ? '127.0.0.1' : l.host.includes(':') ? `[${l.host}]` : l.host;
      out.write(`QuadGuard live view: http://${host}:${l.port}/ui/?token=${token}\n`);
      logger.child({ mod: 'ui' }).info({ path: '/ui/', port: l.port }, 'live view mounted (token printed above)');
    },
    close() {
      unmount?.();
      void owned?.close();
    },
  };
}

/**
 * `QUADGUARD_UI_POLL_MS`: how often the live view polls the store (default 250 ms; on PostgreSQL only while its
 * LISTEN connection is lost, new rows being notified otherwise).
 */
function pollFromEnv(v: string | undefined): number | undefined {
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 20 || n > 3_600_000) throw new ConfigError('config_invalid', `QUADGUARD_UI_POLL_MS=${JSON.stringify(v)}: give the live view's poll interval in milliseconds, an integer from 20 to 3600000 (default 250)`);
  return n;
}
