import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { loadConfigFile, type LoadedConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { GuardStore } from '../store/engine.js';
import type { ServiceAuth } from './auth.js';
import type { ServiceMetrics } from './metrics.js';
import type { ReloadOutcome } from './service-status.js';

/** What a reload acts on. */
export interface Reloadable {
  reload?(fresh: Config): Promise<string>;
  store?: GuardStore;
}

/**
 * SIGHUP and `quadguard reload` (docs/operations.md): re-reads the config file and its policy book (signature
 * verified as at start-up) and swaps the guard for new requests; agents' tokens, profiles and JWT settings follow.
 * A config or book that fails keeps everything as it was, and says why in the log, the metrics
 * (`quadguard_reloads_total{outcome="failed"}`) and an audit row. Servers, the store and the listener stay as they
 * started (a change there is logged: it needs a restart).
 */
export function createReload(
  loaded: LoadedConfig,
  target: Reloadable,
  pool: { recheckTools(): Promise<void> },
  logger: Logger,
  metrics: ServiceMetrics | undefined,
  loadOpts: { tokens?: boolean },
  auth: ServiceAuth | undefined,
): (() => Promise<boolean>) & { last(): ReloadOutcome | undefined } {
  const log = logger.child({ mod: 'reload' });
  let running: Promise<boolean> | undefined;
  let last: ReloadOutcome | undefined;
  const audit = (decision: 'allow' | 'deny', rationale: string) =>
    void target.store?.audit
      .append({ agent: 'quadguard', kind: 'admin', tool: 'reload', decision, rationale, source: 'reload' })
      .catch((err: unknown) => log.warn({ err: errorMessage(err) }, 'recording the reload failed'));
  const once = async (): Promise<boolean> => {
    if (!loaded.file) {
      log.warn('reload asked, but the config was not read from a file (wrap): nothing to re-read');
      return false;
    }
    try {
      const fresh = loadConfigFile(loaded.file, process.env, loadOpts);
      if (!target.reload) throw new Error('this proxy runs without a policy; restart it to add one');
      const commitAuth = auth?.prepare(fresh);
      const hash = await target.reload(fresh.config);
      commitAuth?.();
      loaded.config.agents = fresh.config.agents;
      loaded.tokens = fresh.tokens;
      if (JSON.stringify(fresh.config.servers) !== JSON.stringify(loaded.config.servers) || fresh.config.http.host !== loaded.config.http.host) {
        log.warn('the servers or the listener changed in the config: they take effect at the next restart');
      }
      metrics?.reload('ok');
      last = { at: Date.now(), ok: true, hash };
      log.info({ policy: fresh.config.policy, hash: hash.slice(0, 12) }, 'reloaded: new requests use the new policy book');
      audit('allow', `configuration and policy book reloaded (book ${hash.slice(0, 12)})`);
      void pool.recheckTools().catch(() => {});
      return true;
    } catch (err) {
      const why = errorMessage(err);
      metrics?.reload('failed');
      last = { at: Date.now(), ok: false, why: why.slice(0, 500) };
      log.error({ err: why }, 'reload failed: the running policy book is kept');
      audit('deny', `reload refused, running policy book kept: ${why.slice(0, 1500)}`);
      return false;
    }
  };
  // Two signals close together run one after the other, never interleaved.
  const run = () => (running = (running ?? Promise.resolve(true)).then(once, once));
  return Object.assign(run, { last: () => last });
}

/**
 * Writes this process's id, for `quadguard reload --pid-file`, and removes the file again when the process exits
 * (SIGTERM's drain, SIGINT, stdin closed, an error), unless another proxy has written its own id there since. A
 * process killed outright leaves it behind: `reload` then says that no such proxy runs.
 */
export function writePidFile(file: string): void {
  writeFileSync(file, `${process.pid}\n`);
  process.once('exit', () => {
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) unlinkSync(file);
    } catch {
      // Already gone
    }
  });
}

/**
 * Whether `pid` runs QuadGuard, from its command line (Linux /proc); undefined where that cannot be read. A pid file
 * left by a proxy killed outright may name a process that took the number since: it must not get the SIGHUP (its
 * default action ends a process).
 */
export function runsQuadguard(pid: number): { yes: boolean; command: string } | undefined {
  let raw: string;
  try {
    raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return undefined;
  }
  const command = raw.split('\0').filter(Boolean).join(' ');
  return { yes: /quadguard/i.test(command), command };
}
