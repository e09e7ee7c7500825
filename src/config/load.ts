import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import YAML from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../core/errors.js';
import { isPostgresUrl, resolveStoreValue } from '../store/location.js';
import { ConfigSchema, type Config } from './schema.js';

/** A validated config plus what loading resolved: absolute paths and agent tokens. */
export interface LoadedConfig {
  config: Config;
  /** The file it came from (undefined when built in memory, e.g. by `quadguard wrap`). */
  file: string | undefined;
  /** Bearer token → agent name, resolved from `agents.*.token`. */
  tokens: Map<string, string>;
}

/** Where a config path is in its file (1-based), when the file was YAML or JSON text. */
export type Locate = (path: readonly PropertyKey[]) => { line: number; col: number } | undefined;

/** The keys an object schema at `path` of `schema` accepts (through optional, default, record, array and union). */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  // zod 4's internal definition: every wrapper exposes what it wraps under one of these.
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
  const inner = (def.innerType ?? def.in ?? def.schema) as z.ZodType | undefined;
  if (inner && def.type !== 'object') return knownKeys(inner, path);
  if (def.type === 'union') return [...new Set((def.options as z.ZodType[]).flatMap((o) => knownKeys(o, path)))];
  if (def.type === 'object') {
    const shape = def.shape as Record<string, z.ZodType>;
    if (path.length === 0) return Object.keys(shape);
    const next = shape[String(path[0])];
    return next ? knownKeys(next, path.slice(1)) : [];
  }
  if (def.type === 'record' && path.length > 0) return knownKeys(def.valueType as z.ZodType, path.slice(1));
  if (def.type === 'array' && path.length > 0) return knownKeys(def.element as z.ZodType, path.slice(1));
  return [];
}

/** Edit distance with transpositions (`flie` → `file` is one edit), for "did you mean". */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

function unknownKey(key: string, known: string[]): string {
  const near = known.map((k) => ({ k, d: distance(key.toLowerCase(), k.toLowerCase()) })).sort((x, y) => x.d - y.d)[0];
  const guess = near && near.d <= Math.max(1, Math.floor(key.length / 3)) ? `; did you mean "${near.k}"?` : '';
  return `unknown key "${key}"${guess || (known.length > 0 ? ` (known here: ${known.join(', ')})` : '')}`;
}

/**
 * One line per mistake, each with the dotted path of the field, its line:column when known, and for a misspelt key
 * the key it was probably meant to be. A check that fails only because of a misspelt key beside it (`comand` makes
 * "give command or url" fail too) is not reported twice.
 */
export function formatIssues(error: z.ZodError, locate?: Locate): string {
  const issues = error.issues;
  const misspelt = new Set(issues.filter((i) => i.code === 'unrecognized_keys').map((i) => i.path.map(String).join('.')));
  const lines: string[] = [];
  const at = (path: readonly PropertyKey[]) => {
    const where = locate?.(path);
    return where ? ` (line ${where.line}, col ${where.col})` : '';
  };
  for (const i of issues) {
    const path = i.path.map(String).join('.') || '(root)';
    if (i.code === 'unrecognized_keys') {
      for (const key of i.keys) lines.push(`  ${[...i.path, key].map(String).join('.')}${at([...i.path, key])}: ${unknownKey(key, knownKeys(ConfigSchema, i.path))}`);
      continue;
    }
    if (i.code === 'custom' && misspelt.has(i.path.slice(0, -1).map(String).join('.'))) continue;
    if (i.code === 'invalid_union') {
      // Every alternative refused the same unknown keys: the mistake is the key, not the whole value.
      const branches = i.errors.map((b) => b.find((x) => x.code === 'unrecognized_keys' && x.path.length === 0) as { keys: string[] } | undefined);
      if (branches.length > 0 && branches.every((b) => b !== undefined)) {
        const known = [...new Set(i.errors.flatMap((b) => b.filter((x) => x.code === 'invalid_type' && x.path.length === 1).map((x) => String(x.path[0]))))];
        for (const key of branches[0]!.keys) lines.push(`  ${path}.${key}${at([...i.path, key])}: ${unknownKey(key, known)}`);
        continue;
      }
    }
    // A bad record key (server or agent name) carries the key schema's own message one level down.
    const inner = i.code === 'invalid_key' ? i.issues.map((x) => x.message).join('; ') : '';
    lines.push(`  ${path}${at(i.path)}: ${inner || i.message}`);
  }
  return lines.join('\n');
}

/**
 * Validates an already-parsed document, resolves relative paths against `baseDir`, checks that the policy path
 * exists and reads agent tokens from the environment. Throws `ConfigError('config_invalid')` naming each field.
 */
export function validateConfig(raw: unknown, opts: { file?: string; baseDir?: string; env?: NodeJS.ProcessEnv; tokens?: boolean; locate?: Locate } = {}): LoadedConfig {
  const where = opts.file ?? 'config';
  const parsed = ConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new ConfigError('config_invalid', `${where} is invalid:\n${formatIssues(parsed.error, opts.locate)}`, opts.file ? { location: { file: opts.file } } : {});
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
  const store = resolveStoreValue(config.store, config.store_password, base, env);
  if (store.problem !== undefined) problems.push(store.problem);
  else config.store = store.location;
  if (config.audit_key && 'file' in config.audit_key) config.audit_key.file = abs(config.audit_key.file);
  if (config.audit_retention?.export_dir !== undefined) config.audit_retention.export_dir = abs(config.audit_retention.export_dir);
  if (config.http.jwt?.jwks_file !== undefined) config.http.jwt.jwks_file = abs(config.http.jwt.jwks_file);
  else if (config.audit_key && 'env' in config.audit_key) {
    const v = env[config.audit_key.env];
    if (!isPostgresUrl(config.store)) problems.push('  audit_key.env: a SQLite store keeps its audit key in a file (audit_key.file, or the default beside the store)');
    else if (v === undefined || v.length === 0) problems.push(`  audit_key.env: environment variable ${config.audit_key.env} is not set or empty`);
  }
  // A stdio server runs in the config file's folder unless it says otherwise, so relative `args` (a script, a
  // data file) mean the same thing whatever the directory `quadguard serve` is started from.
  for (const [key, s] of Object.entries(config.servers)) {
    if (s.cwd !== undefined) s.cwd = abs(s.cwd);
    else if (s.command !== undefined && opts.file !== undefined) s.cwd = base;
    // An OAuth client secret or private key is read now, so a missing one stops start-up naming the field; it is
    // kept as a value. A private key file is read whole (a PEM has many lines), a secret file's first line.
    for (const name of ['client_secret', 'private_key'] as const) {
      const secret = s.oauth?.[name];
      if (!s.oauth || !secret || 'value' in secret) continue;
      const field = `servers.${key}.oauth.${name}.${'env' in secret ? 'env' : 'file'}`;
      const read = 'env' in secret ? (env[secret.env] ? { token: env[secret.env]! } : { problem: `environment variable ${secret.env} is not set or empty` }) : readTokenFile(abs(secret.file), name === 'private_key');
      if ('problem' in read) problems.push(`  ${field}: ${read.problem}`);
      else if (read.token.length === 0) problems.push(`  ${field}: the ${name === 'private_key' ? 'key' : 'secret'} is empty`);
      else s.oauth[name] = { value: read.token };
    }
  }

  // An A2A agent's bearer token is read now, as OAuth secrets are, and kept as a value.
  for (const [name, a] of Object.entries(config.a2a.agents)) {
    const secret = a.bearer_token;
    if (!secret || 'value' in secret) continue;
    const field = `a2a.agents.${name}.bearer_token.${'env' in secret ? 'env' : 'file'}`;
    const read = 'env' in secret ? (env[secret.env] ? { token: env[secret.env]! } : { problem: `environment variable ${secret.env} is not set or empty` }) : readTokenFile(abs(secret.file));
    if ('problem' in read) problems.push(`  ${field}: ${read.problem}`);
    else if (read.token.length === 0) problems.push(`  ${field}: the token is empty`);
    else a.bearer_token = { value: read.token };
  }

  const tokens = new Map<string, string>();
  for (const [name, agent] of Object.entries(config.agents)) {
    // Tokens only matter over HTTP; `serve` on stdio passes tokens: false so an unset variable does not stop it.
    if (agent.token && 'file' in agent.token) agent.token.file = abs(agent.token.file);
    if (!agent.token || opts.tokens === false) continue;
    const field = `agents.${name}.token.${'env' in agent.token ? 'env' : 'file' in agent.token ? 'file' : 'value'}`;
    let value: string | undefined;
    if ('file' in agent.token) {
      const read = readTokenFile(agent.token.file);
      if ('problem' in read) {
        problems.push(`  ${field}: ${read.problem}`);
        continue;
      }
      value = read.token;
    } else {
      value = 'env' in agent.token ? env[agent.token.env] : agent.token.value;
    }
    if (value === undefined || value.length === 0) {
      problems.push('env' in agent.token
        ? `  ${field}: environment variable ${agent.token.env} is not set or empty (it is only needed with --http)`
        : `  ${field}: token is empty`);
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

/** A token file's first line; refused when others can read it (POSIX), as ssh does with private keys. */
function readTokenFile(file: string, whole = false): { token: string } | { problem: string } {
  let text: string;
  try {
    if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
      return { problem: `${file} is readable by other users; run: chmod 600 ${file}` };
    }
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { problem: `cannot read token file ${file}: ${(err as Error).message}` };
  }
  return { token: (whole ? text : (text.split(/\r?\n/)[0] ?? '')).trim() };
}

/**
 * Reads a YAML or JSON config file (by extension; YAML otherwise) and validates it. Relative paths in it
 * (policy, policy_public_key, store, cwd, token files, and stdio servers' working folder) are resolved against
 * the file's folder. `tokens: false` skips agent tokens (stdio serving does not use them); `servers` replaces the
 * file's servers (`wrap --config`).
 */
export function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env, opts: { tokens?: boolean; servers?: Record<string, unknown> } = {}): LoadedConfig {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError('config_unreadable', `cannot read config file ${path}: ${(err as Error).message}`, { cause: err });
  }
  let raw: unknown;
  let locate: Locate | undefined;
  try {
    if (path.endsWith('.json')) raw = JSON.parse(text);
    else {
      // JSON is YAML too, but only YAML files are read this way: positions for the errors below.
      const lineCounter = new YAML.LineCounter();
      const doc = YAML.parseDocument(text, { prettyErrors: true, lineCounter });
      if (doc.errors.length > 0) throw doc.errors[0]!;
      raw = doc.toJS();
      locate = (p) => {
        const node = doc.getIn(p as unknown[], true) as { range?: [number, number, number] } | undefined;
        // A key that is there: its own position (the pair's key node), else the value's.
        const parent = p.length > 0 ? (doc.getIn(p.slice(0, -1) as unknown[], true) as { items?: Array<{ key?: { value?: unknown; range?: [number, number, number] } }> } | undefined) : undefined;
        const keyNode = parent?.items?.find((it) => it.key?.value === p[p.length - 1])?.key;
        const offset = keyNode?.range?.[0] ?? node?.range?.[0];
        return offset === undefined ? undefined : lineCounter.linePos(offset);
      };
    }
  } catch (err) {
    throw new ConfigError('config_parse_error', `${path} does not parse: ${(err as Error).message}`, { location: { file: path } });
  }
  // `wrap --config`: the file's policy, store, agents and guard settings around the one server wrap was given.
  if (opts.servers !== undefined && raw !== null && typeof raw === 'object' && !Array.isArray(raw)) raw = { ...raw, servers: opts.servers };
  return validateConfig(raw, { file: path, baseDir: dirname(path), env, ...(opts.tokens === false ? { tokens: false } : {}), ...(locate ? { locate } : {}) });
}
