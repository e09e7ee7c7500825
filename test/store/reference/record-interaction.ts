import type { Interaction } from '../../../src/core/types.js';
import { INTERACTION_CAP, ROW_NAME_CAP, type InteractionRecord } from '../../../src/store/audit-interaction.js';
import { maskPrefix, maskSecretKeys, maskSecrets, schemaCredentialKeysOf } from '../../../src/store/redact.js';

/**
 * `recordInteraction` as it was before a body with a string past the cap skipped writing its whole JSON
 * (src/store/audit-interaction.ts at 08eae03, without the memo of names: every string masked afresh; with its
 * `mapStrings`, `formerMapStrings` below).
 */
export function formerRecordInteraction(i: Interaction): InteractionRecord {
  const picked: Record<string, unknown> = {};
  const fields = i as Partial<Record<(typeof FIELDS)[number], unknown>>;
  for (const k of FIELDS) if (fields[k] !== undefined) picked[k] = fields[k];
  const flags = { masked: false, truncated: false };
  const keyed = maskSecretKeys(picked, schemaCredentialKeysOf(i)) as Record<string, unknown>;
  if (keyed !== picked) flags.masked = true;
  const value = (s: string): string => maskString(s, INTERACTION_CAP, flags);
  const masked: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(keyed)) {
    if (typeof x === 'string' && CLEAR_IN_ROW.has(k) && x.length <= ROW_NAME_CAP) masked[value(k)] = x;
    else masked[value(k)] = typeof x === 'string' && NAME_FIELDS.has(k) ? value(x) : formerMapStrings(x, value, flags, 1, value);
  }
  let body = JSON.stringify(masked);
  for (let cap = INTERACTION_CAP / 4; body.length > INTERACTION_CAP; cap = Math.floor(cap / 4)) {
    if (cap < MIN_STRING_CAP) return { body: null, masked: flags.masked, truncated: true };
    flags.truncated = true;
    const cut = (s: string): string => (s.length > cap ? `${s.slice(0, cap)}…` : s);
    body = JSON.stringify(formerMapStrings(masked, cut, flags, 0, cut));
  }
  return { body, ...flags };
}

const MIN_STRING_CAP = 64;
const FIELDS = ['kind', 'agent', 'session', 'server', 'tool', 'uri', 'prompt', 'logger', 'arguments', 'content', 'meta', 'sender', 'recipient'] as const;
const CLEAR_IN_ROW: ReadonlySet<string> = new Set(['kind', 'agent', 'session']);
const NAME_FIELDS: ReadonlySet<string> = new Set(['server', 'tool', 'recipient', 'prompt', 'sender', 'logger']);

function maskString(s: string, cap: number, flags: { masked: boolean; truncated: boolean }): string {
  if (s.length <= cap) {
    const out = maskSecrets(s);
    if (out !== s) flags.masked = true;
    return out;
  }
  flags.truncated = true;
  const out = maskPrefix(s, cap);
  const kept = out.slice(0, -1);
  if (kept !== s.slice(0, kept.length)) flags.masked = true;
  return out;
}

/** `mapStrings` as it was at 54834e0: every key of a copied object defined with `Object.defineProperty`. */
export function formerMapStrings(v: unknown, f: (s: string) => string, flags: { truncated: boolean }, depth: number, key: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (v === null || typeof v !== 'object') return typeof v === 'bigint' ? String(v) : v;
  if (depth >= 64) {
    flags.truncated = true;
    return null;
  }
  if (Array.isArray(v)) return v.map((x) => formerMapStrings(x, f, flags, depth + 1, key));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) Object.defineProperty(out, key(k), { value: formerMapStrings(x, f, flags, depth + 1, key), enumerable: true, writable: true, configurable: true });
  return out;
}
