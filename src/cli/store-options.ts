import type { Command } from 'commander';
import type { GuardStore } from '../store/engine.js';
import { openGuardStore } from '../store/open.js';
import { resolveStorePath } from '../store/store-path.js';

/** Options every store command takes. */
export interface StoreCliOptions {
  store?: string;
  config?: string;
}

/** Adds `--store FILE` and `--config FILE` to a command. */
export function storeOptions(cmd: Command): Command {
  return cmd
    .option('--store <file|url>', 'state store, a SQLite file or postgres://user@host:port/db (default: the config\'s store:, else $QUADGUARD_HOME/state.db, i.e. ~/.quadguard/state.db; see `quadguard status`)')
    .option('--config <file>', 'read the store path from this QuadGuard config (default: ./quadguard.config.yaml if present)');
}

/**
 * Opens the existing store the options name, runs `fn`, and closes it whatever happens. Admin commands never
 * create a store: a mistyped path is `store_not_found`, not an empty audit log.
 */
export async function withStore<T>(opts: StoreCliOptions, fn: (store: GuardStore) => T | Promise<T>): Promise<T> {
  const store = await openGuardStore(resolveStorePath(opts), undefined, { mustExist: true });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Milliseconds since the epoch as `2026-11-21T19:30:50.123Z`. */
export function isoTime(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString();
}
