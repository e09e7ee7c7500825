import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import YAML from 'yaml';
import { ConfigError } from '../core/errors.js';
import { resolveStoreLocation } from '../config/load.js';
import { isPostgresUrl } from './location.js';

/** Where the store lives when neither `--store` nor a config's `store:` says otherwise (relative to the cwd). */
export const DEFAULT_STORE_PATH = '.quadguard/state.db';

/**
 * The store file an admin command should open: `--store FILE` if given, else the `store:` key of `--config
 * FILE` (relative to the config's folder, as the config loader resolves it), else `.quadguard/state.db`.
 *
 * Only the `store` key is read, on purpose: `quadguard audit` and `agents release` must work on a machine where
 * the proxy's agent tokens (environment variables the full config validation insists on) are not set.
 */
export function resolveStorePath(opts: { store?: string; config?: string }, cwd = process.cwd()): string {
  if (opts.store) return isPostgresUrl(opts.store) ? opts.store : resolve(cwd, opts.store);
  if (!opts.config) return resolve(cwd, DEFAULT_STORE_PATH);
  const file = resolve(cwd, opts.config);
  let raw: unknown;
  try {
    const text = readFileSync(file, 'utf8');
    raw = file.endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
  } catch (err) {
    throw new ConfigError('config_unreadable', `cannot read the store path from ${file}: ${(err as Error).message}`, { cause: err });
  }
  const store = raw && typeof raw === 'object' ? (raw as Record<string, unknown>).store : undefined;
  if (store === undefined) return resolve(dirname(file), DEFAULT_STORE_PATH);
  if (typeof store !== 'string' || store.length === 0) {
    throw new ConfigError('config_invalid', `${file} is invalid:\n  store: expected a file path or a postgres:// URL`, { location: { file } });
  }
  const password = (raw as Record<string, unknown>).store_password as { env: string } | undefined;
  const r = resolveStoreLocation(store, password && typeof password.env === 'string' ? { env: password.env } : undefined, dirname(file), process.env);
  if (r.problem !== undefined) throw new ConfigError('config_invalid', `${file} is invalid:\n${r.problem}`, { location: { file } });
  return r.location;
}
