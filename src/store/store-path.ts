import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import YAML from 'yaml';
import { ConfigError } from '../core/errors.js';
import { quadguardHome } from '../core/home.js';
import { isPostgresUrl, resolveStoreValue } from './location.js';

/** A config's `store:` when it has none, relative to the config file's folder. */
export const DEFAULT_STORE_PATH = '.quadguard/state.db';

/** The config file every command picks up from the current directory when no `--config` is given. */
export const DEFAULT_CONFIG_FILE = 'quadguard.config.yaml';

export { quadguardHome } from '../core/home.js';

/** Where the state came from, for `status` and the start-up log line. */
export type StoreSource = 'flag' | 'config' | 'home';

export interface StoreLocation {
  /** Absolute path of the SQLite file. */
  path: string;
  source: StoreSource;
  /** The config file the path came from (given or found in the current directory), if any. */
  config: string | undefined;
}

/**
 * The config file a command uses: `--config FILE` if given (relative to the cwd), else `./quadguard.config.yaml`
 * when that file exists, else none.
 */
export function findConfigFile(opts: { config?: string | undefined }, cwd = process.cwd()): string | undefined {
  if (opts.config) return resolve(cwd, opts.config);
  const local = join(cwd, DEFAULT_CONFIG_FILE);
  return existsSync(local) ? local : undefined;
}

/**
 * THE rule for where state lives, used by every command (serve, wrap, audit, agents, tools, approve,
 * deny-approval, approvals, ui, replay, status):
 *
 * 1. `--store FILE` (relative to the current directory);
 * 2. else the config's `store:` (relative to the config file's folder; `.quadguard/state.db` next to the config
 *    when the key is absent), where the config is `--config FILE` or else `./quadguard.config.yaml` if present;
 * 3. else `$QUADGUARD_HOME/state.db`, `QUADGUARD_HOME` defaulting to `~/.quadguard`.
 *
 * Only the `store` key of the config is read, on purpose: `quadguard audit` and `agents release` must work on a
 * machine where the proxy's agent tokens (which full config validation insists on) are not available.
 */
export function resolveStoreLocation(opts: { store?: string | undefined; config?: string | undefined }, cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): StoreLocation {
  const config = findConfigFile(opts, cwd);
  if (opts.store) return { path: isPostgresUrl(opts.store) ? opts.store : resolve(cwd, opts.store), source: 'flag', config };
  if (config) return { path: storeFromConfigFile(config), source: 'config', config };
  return { path: join(quadguardHome(env), 'state.db'), source: 'home', config: undefined };
}

/** {@link resolveStoreLocation}'s path only. */
export function resolveStorePath(opts: { store?: string | undefined; config?: string | undefined }, cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): string {
  return resolveStoreLocation(opts, cwd, env).path;
}

/** The store a config's `store:` value names (absolute), `.quadguard/state.db` next to the config if unset. */
export function storeForConfig(store: string | undefined, configFile: string): string {
  const value = store ?? DEFAULT_STORE_PATH;
  return isAbsolute(value) ? value : resolve(dirname(configFile), value);
}

function storeFromConfigFile(file: string): string {
  let raw: unknown;
  try {
    const text = readFileSync(file, 'utf8');
    raw = file.endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
  } catch (err) {
    throw new ConfigError('config_unreadable', `cannot read the store path from ${file}: ${(err as Error).message}`, { cause: err });
  }
  const store = raw && typeof raw === 'object' ? (raw as Record<string, unknown>).store : undefined;
  if (store !== undefined && (typeof store !== 'string' || store.length === 0)) {
    throw new ConfigError('config_invalid', `${file} is invalid:\n  store: expected a file path or a postgres:// URL`, { location: { file } });
  }
  if (store === undefined) return storeForConfig(undefined, file);
  const password = (raw as Record<string, unknown>).store_password as { env: string } | undefined;
  const r = resolveStoreValue(store as string, password && typeof password.env === 'string' ? { env: password.env } : undefined, dirname(file), process.env);
  if (r.problem !== undefined) throw new ConfigError('config_invalid', `${file} is invalid:\n${r.problem}`, { location: { file } });
  return r.location;
}
