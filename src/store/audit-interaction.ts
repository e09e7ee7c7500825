import type { Interaction } from '../core/types.js';
import { maskPrefix, maskSecretKeys, maskSecrets } from './redact.js';

/**
 * The recorded copy of an interaction (table `audit_interaction`, one row per guard decision), kept so that
 * `quadguard replay` can re-decide real traffic under another policy. It is what the guard saw, minus:
 *   - the profile (it comes from the config, bound to the agent; replay takes it from a config again);
 *   - secrets: every string (keys too) goes through the store's `maskSecrets`, so a key that passed the proxy is
 *     not readable in the file — and a replay cannot re-detect it (`masked` says so);
 *   - size: the JSON is capped at `INTERACTION_CAP` bytes by cutting long strings (`truncated` says so).
 */

/** Largest stored interaction JSON, in UTF-16 code units of the text (about bytes for ASCII). */
export const INTERACTION_CAP = 64 * 1024;

/** Shortest per-string cap tried before giving up on a body (too many small strings to fit). */
const MIN_STRING_CAP = 64;

/** The fields of an interaction that are recorded, in this order. */
const FIELDS = ['kind', 'agent', 'session', 'server', 'tool', 'uri', 'prompt', 'arguments', 'content', 'sender', 'recipient'] as const;

/** What goes in the side table for one audit row. */
export interface InteractionRecord {
  /** Masked, capped JSON of the interaction; null when even cut strings did not fit. */
  body: string | null;
  masked: boolean;
  truncated: boolean;
}

/**
 * Masks and caps an interaction for the audit side table. Cost is bounded by the cap, not the input: a string
 * longer than the per-string cap is masked only over its kept prefix (plus the masker's look-ahead).
 */
export function recordInteraction(i: Interaction): InteractionRecord {
  const picked: Record<string, unknown> = {};
  const fields = i as Partial<Record<(typeof FIELDS)[number], unknown>>;
  for (const k of FIELDS) if (fields[k] !== undefined) picked[k] = fields[k];
  const flags = { masked: false, truncated: false };
  // Mask once (each string cut at the cap); later passes only cut the already-masked strings shorter.
  const keyed = maskSecretKeys(picked);
  if (keyed !== picked) flags.masked = true;
  const masked = mapStrings(keyed, (s) => maskString(s, INTERACTION_CAP, flags), flags, 0);
  let body = JSON.stringify(masked);
  for (let cap = INTERACTION_CAP / 4; body.length > INTERACTION_CAP; cap = Math.floor(cap / 4)) {
    if (cap < MIN_STRING_CAP) return { body: null, masked: flags.masked, truncated: true };
    flags.truncated = true;
    body = JSON.stringify(mapStrings(masked, (s) => (s.length > cap ? `${s.slice(0, cap)}…` : s), flags, 0));
  }
  return { body, ...flags };
}

/** Deeper nesting than this is dropped (the proxy's own argument-depth limit is lower). */
const MAX_DEPTH = 64;

/** A copy of `v` with `f` applied to every string, object keys included. */
function mapStrings(v: unknown, f: (s: string) => string, flags: { truncated: boolean }, depth: number): unknown {
  if (typeof v === 'string') return f(v);
  if (v === null || typeof v !== 'object') return typeof v === 'bigint' ? String(v) : v;
  if (depth >= MAX_DEPTH) {
    flags.truncated = true;
    return null;
  }
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f, flags, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[f(k)] = mapStrings(x, f, flags, depth + 1);
  return out;
}

function maskString(s: string, cap: number, flags: { masked: boolean; truncated: boolean }): string {
  if (s.length <= cap) {
    const out = maskSecrets(s);
    if (out !== s) flags.masked = true;
    return out;
  }
  flags.truncated = true;
  const out = maskPrefix(s, cap);
  // `out` is the masked prefix plus '…': any difference from the original prefix is a masked secret.
  const kept = out.slice(0, -1);
  if (kept !== s.slice(0, kept.length)) flags.masked = true;
  return out;
}
