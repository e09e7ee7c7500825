import { InvalidArgumentError, type Command } from 'commander';
import { createRootLogger } from '../core/log.js';
import { openGuardStore } from '../store/open.js';
import { resolveStorePath } from '../store/store-path.js';
import { loadConfigFile } from '../config/load.js';
import type { Logger } from '../core/log.js';
import { loadBook } from '../policy/load.js';
import { policyInfo, type PolicyInfo } from '../ui/rules.js';
import { startLiveView } from '../ui/server.js';
import { storeOptions, type StoreCliOptions } from './store-options.js';

function port(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535) throw new InvalidArgumentError(`--port expects a port number 0–65535, got ${v}`);
  return n;
}

function token(v: string): string {
  if (v.length < 16) throw new InvalidArgumentError('--token must be at least 16 characters');
  return v;
}

/**
 * `quadguard ui`: the live view of a store on its own port, for proxies that serve stdio (an HTTP proxy serves
 * it itself under /ui), and for a PostgreSQL store shared by replicas (it shows every replica's decisions). It reads
 * the same SQLite file as the proxy (WAL allows that across processes) or the same database, so it
 * shows decisions the moment the proxy commits them, and its buttons write to the same store.
 */
export function registerUiCommand(program: Command): void {
  storeOptions(program.command('ui').description('serve the live view (decisions, threat levels, quarantine, approvals) of a store on 127.0.0.1'))
    .option('--port <port>', 'port (0 picks a free one)', port, 8790)
    .option('--host <host>', 'bind address', '127.0.0.1')
    .option('--token <token>', 'access token (default: $QUADGUARD_UI_TOKEN, else a random one printed at start)', token)
    .option('--allowed-host <name...>', 'Host header names to accept besides localhost (when reached through a name)')
    .option('--allow-remote', 'allow binding to a non-loopback address')
    .option('--policy <path>', 'policy book whose rule texts explain decisions (default: the --config policy)')
    .action(async (o: StoreCliOptions & { port: number; host: string; token?: string; allowedHost?: string[]; allowRemote?: boolean; policy?: string }) => {
      const logger = createRootLogger();
      const policy = await policyForUi(o, logger);
      const store = await openGuardStore(resolveStorePath(o), logger, { mustExist: true });
      const envToken = process.env.QUADGUARD_UI_TOKEN;
      let ui;
      try {
        ui = await startLiveView({
          store,
          port: o.port,
          host: o.host,
          ...((o.token ?? (envToken && envToken.length >= 16 ? envToken : undefined)) ? { token: o.token ?? envToken! } : {}),
          allowedHosts: o.allowedHost ?? [],
          allowNonLoopback: o.allowRemote === true,
          logger,
          policy,
        });
      } catch (err) {
        await store.close();
        throw err;
      }
      process.stdout.write(`QuadGuard live view of ${store.location}\n  ${ui.url}?token=${ui.token}\n  stream: curl -N -H 'Authorization: Bearer ${ui.token}' ${ui.url}api/stream\n`);
      const stop = () => void ui.close().finally(() => void store.close().finally(() => process.exit(0)));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}

/**
 * The rule texts the page explains decisions with: the book of `--policy`, else of the `--config` policy. A book
 * that cannot be loaded is not fatal here (the view still works, with the rationale only): a warning says why.
 */
async function policyForUi(o: { policy?: string; config?: string }, logger: Logger): Promise<PolicyInfo> {
  try {
    const path = o.policy ?? (o.config ? loadConfigFile(o.config).config.policy : undefined);
    if (path === undefined) return policyInfo();
    return policyInfo((await loadBook(path)).compiled);
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'live view: cannot load the policy book; rule texts will not be shown');
    return policyInfo();
  }
}
