import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import YAML from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { isPostgresUrl } from '../store/location.js';
import { ConfigSchema, type Config } from './schema.js';

/** A validated config plus what loading resolved: absolute paths and agent tokens. */
export interface LoadedConfig {
  config: Config;
  /** The file it came from (undefined when built in memory, e.g. by `quadguard wrap`). */
  file: string | undefined;
  /** Bearer token → agent name, resolved from `agents.*.token`. */
  tokens: Map<string, string>;
}

/** Prefixes each zod issue with the dotted path of the field it is about, one issue per line. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const path = i.path.map(String).join('.') || '(root)';
      // A bad record key (server or agent name) carries the key schema's own message one level down.
      const inner = i.code === 'invalid_key' ? i.issues.map((x) => x.message).join('; ') : '';
      return `  ${path}: ${inner || i.message}`;
    })
    .join('\n');
}

/**
 * Validates an already-parsed document, resolves relative paths against `baseDir`, checks that the policy path
 * exists and reads agent tokens from the environment. Throws `ConfigError('config_invalid')` naming each field.
 */
export function validateConfig(raw: unknown, opts: { file?: string; baseDir?: string; env?: NodeJS.ProcessEnv } = {}): LoadedConfig {
  const where = opts.file ?? 'config';
  const parsed = ConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new ConfigError('config_invalid', `${where} is invalid:\n${formatIssues(parsed.error)}`, opts.file ? { location: { file: opts.file } } : {});
  }
  const config = parsed.data;
  const base = opts.baseDir ?? process.cwd();
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
  const problems: string[] = [];
  if (config.policy !== undefined) {
    config.policy = abs(config.policy);
    if (!existsSync(config.policy)) problems.push(`  policy: path ${config.policy} does not exist`);
  }
  if (config.policy_public_key !== undefined) {
    config.policy_public_key = abs(config.policy_public_key);
    if (!existsSync(config.policy_public_key)) problems.push(`  policy_public_key: file ${config.policy_public_key} does not exist`);
  }
  const env = opts.env ?? process.env;
  const store = resolveStoreLocation(config.store, config.store_password, base, env);
  if (store.problem !== undefined) problems.push(store.problem);
  else config.store = store.location;
  for (const s of Object.values(config.servers)) if (s.cwd !== undefined) s.cwd = abs(s.cwd);

  const tokens = new Map<string, string>();
  for (const [name, agent] of Object.entries(config.agents)) {
    if (!agent.token) continue;
    const value = 'env' in agent.token ? env[agent.token.env] : agent.token.value;
    const field = `agents.${name}.token${'env' in agent.token ? '.env' : '.value'}`;
    if (value === undefined || value.length === 0) {
      problems.push(`  ${field}: environment variable ${'env' in agent.token ? agent.token.env : ''} is not set or empty`);
    } else if (value.length < 16) {
      problems.push(`  ${field}: token must be at least 16 characters`);
    } else if (tokens.has(value)) {
      problems.push(`  ${field}: same token as agent ${tokens.get(value)}; each agent needs its own token`);
    } else {
      tokens.set(value, name);
    }
  }
  if (problems.length > 0) {
    throw new ConfigError('config_invalid', `${where} is invalid:\n${problems.join('\n')}`, opts.file ? { location: { file: opts.file } } : {});
  }
  return { config, file: opts.file, tokens };
}

/** Reads a YAML or JSON config file (by extension; YAML otherwise) and validates it. */
export function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError('config_unreadable', `cannot read config file ${path}: ${(err as Error).message}`, { cause: err });
  }
  let raw: unknown;
  try {
    raw = path.endsWith('.json') ? JSON.parse(text) : YAML.parse(text, { prettyErrors: true });
  } catch (err) {
    throw new ConfigError('config_parse_error', `${path} does not parse: ${(err as Error).message}`, { location: { file: path } });
  }
  return validateConfig(raw, { file: path, baseDir: dirname(path), env });
}

/**
 * The store a config names: a SQLite path made absolute against `base`, or a `postgres://` URL with the password
 * of `store_password.env` put in (the URL is never logged with it: see redactUrl).
 */
export function resolveStoreLocation(
  store: string,
  password: { env: string } | undefined,
  base: string,
  env: NodeJS.ProcessEnv,
): { location: string; problem?: undefined } | { location?: undefined; problem: string } {
  if (!isPostgresUrl(store)) {
    if (password) return { problem: '  store_password: only a postgres:// store takes a password' };
    return { location: isAbsolute(store) ? store : resolve(base, store) };
  }
  let url: URL;
  try {
    url = new URL(store);
  } catch {
    return { problem: '  store: not a valid postgres:// URL (expected postgres://user@host:port/database)' };
  }
  if (url.pathname.length <= 1) return { problem: '  store: the postgres:// URL names no database (expected postgres://user@host:port/database)' };
  if (password) {
    const value = env[password.env];
    if (value === undefined || value.length === 0) return { problem: `  store_password.env: environment variable ${password.env} is not set or empty` };
    if (url.password) return { problem: '  store_password: the store URL already carries a password; give it in one place' };
    url.password = encodeURIComponent(value);
  }
  return { location: url.toString() };
}
