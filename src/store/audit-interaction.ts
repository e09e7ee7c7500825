import { canonicalJson, canonicalJsonHead, sha256Base64url } from '../core/canonical.js';
import type { Interaction } from '../core/types.js';
import { maskHeadPrefix, maskPrefix, maskSecretKeys, maskSecrets, schemaCredentialKeysOf } from './redact.js';

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

/** The key a recorded body is stored under once (`audit_body`): its SHA-256, base64url. */
export function bodyDigest(body: string): string {
  return sha256Base64url(body);
}

/** The fields of an interaction that are recorded, in this order. */
const FIELDS = ['kind', 'agent', 'session', 'server', 'tool', 'uri', 'prompt', 'logger', 'arguments', 'content', 'meta', 'sender', 'recipient'] as const;

/** What goes in the side table for one audit row. */
export interface InteractionRecord {
  /** Masked, capped JSON of the interaction; null when even cut strings did not fit. */
  body: string | null;
  masked: boolean;
  truncated: boolean;
}

/**
 * The masker of short strings that recur by nature on every row: the name fields the row has no column for
 * (prompt, sender), object keys (`path`, `type`, `text`, the field names) and the decision's rationale (the same
 * sentence on every allowed row).
 * Masking is a pure function of the string, so a remembered answer is the answer (test/store/audit-shortcuts.test.ts
 * compares every record with the memo on and off). Values of arguments and content never go through it: those do
 * not recur by nature, and remembering them would only flatter a benchmark that repeats one file. Bounded: strings
 * up to `maxLength` characters, at most `maxEntries` remembered (all forgotten when full, so distinct keys sent on
 * purpose cost what they cost without it).
 */
export class MaskMemo {
  private readonly seen = new Map<string, string>();

  constructor(
    private readonly maxEntries = 2048,
    readonly maxLength = 200,
  ) {}

  /** `maskSecrets(s)` for `s` of at most `maxLength` characters. */
  mask(s: string): string {
    let out = this.seen.get(s);
    if (out === undefined) {
      out = maskSecrets(s);
      if (this.seen.size >= this.maxEntries) this.seen.clear();
      this.seen.set(s, out);
    }
    return out;
  }

  get size(): number {
    return this.seen.size;
  }
}

/** The memo of the process's recorded interactions. */
const MEMO = new MaskMemo();

/** Longest name the audit row keeps in a column (agent, session, …); longer ones are cut there. */
export const ROW_NAME_CAP = 200;

/**
 * Top-level fields the audit row also keeps, in clear, in a column of its own (cut at `ROW_NAME_CAP`): names the
 * proxy or its config gives (the agent, the session id, the kind), never a client. Masking them here would hide
 * nothing, and it flagged whole sessions as masked for replay (a stdio session id looks random). Up to the cap they
 * are recorded as they are; a longer one is masked as any other string.
 */
const CLEAR_IN_ROW: ReadonlySet<string> = new Set(['kind', 'agent', 'session']);

/**
 * Top-level fields whose string values are names that recur on every row, masked through the memo: the ones the row
 * has no column for (prompt, sender) and the ones a client chooses (the name in a tools/call and the server prefix
 * split from it, a message's recipient), which the row masks too (`rowName`): a credential sent as a tool name is
 * a credential in the store.
 */
const NAME_FIELDS: ReadonlySet<string> = new Set(['server', 'tool', 'recipient', 'prompt', 'sender', 'logger']);

/**
 * A client-chosen name as the audit row keeps it in its column: `maskPrefix(s, ROW_NAME_CAP)` (masked, cut at the
 * cap), through the memo for the short names that recur (test/store/audit-client-names.test.ts).
 */
export function rowName(s: string, memo: MaskMemo | null = MEMO): string {
  return recurringPrefix(s, ROW_NAME_CAP, memo);
}

/**
 * `maskPrefix(s, cap)` of a text that recurs by nature on many rows (a name, the guard's rationale), through the memo
 * when `s` is short (test/store/audit-recurring.test.ts).
 */
export function recurringPrefix(s: string, cap: number, memo: MaskMemo | null = MEMO): string {
  if (memo !== null && s.length <= memo.maxLength) {
    // Masked whole and no longer than the cap, the masked text is maskPrefix's answer (it cuts nothing).
    const out = memo.mask(s);
    if (out.length <= cap) return out;
  }
  return maskPrefix(s, cap);
}

/**
 * Masks and caps an interaction for the audit side table. Cost is bounded by the cap, not the input: a string
 * longer than the per-string cap is masked only over its kept prefix (plus the masker's look-ahead).
 * `memo`: where keys and name fields are masked (`null`: each masked afresh, as the tests' reference).
 */
export function recordInteraction(i: Interaction, memo: MaskMemo | null = MEMO): InteractionRecord {
  const picked: Record<string, unknown> = {};
  const fields = i as Partial<Record<(typeof FIELDS)[number], unknown>>;
  for (const k of FIELDS) if (fields[k] !== undefined) picked[k] = fields[k];
  const flags = { masked: false, truncated: false };
  // Mask once (each string cut at the cap); later passes only cut the already-masked strings shorter.
  const keyed = maskSecretKeys(picked, schemaCredentialKeysOf(i)) as Record<string, unknown>;
  if (keyed !== picked) flags.masked = true;
  const value = (s: string): string => maskString(s, INTERACTION_CAP, flags);
  const name = memo === null ? value : (s: string): string => {
    if (s.length > memo.maxLength) return value(s);
    const out = memo.mask(s);
    if (out !== s) flags.masked = true;
    return out;
  };
  // The top level is the object `picked` (depth 0), its members at depth 1, as `mapStrings` would walk it.
  const masked: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(keyed)) {
    if (typeof x === 'string' && CLEAR_IN_ROW.has(k) && x.length <= ROW_NAME_CAP) masked[name(k)] = x;
    else masked[name(k)] = typeof x === 'string' && NAME_FIELDS.has(k) ? name(x) : mapStrings(x, value, flags, 1, name);
  }
  // A long string's masked prefix (past the cap by its `…`) makes the JSON longer than the cap: not written whole.
  let body = flags.truncated && writesStringOver(masked, INTERACTION_CAP - 2) ? null : JSON.stringify(masked);
  for (let cap = INTERACTION_CAP / 4; body === null || body.length > INTERACTION_CAP; cap = Math.floor(cap / 4)) {
    if (cap < MIN_STRING_CAP) return { body: null, masked: flags.masked, truncated: true };
    flags.truncated = true;
    const cut = (s: string): string => (s.length > cap ? `${s.slice(0, cap)}…` : s);
    body = JSON.stringify(mapStrings(masked, cut, flags, 0, cut));
  }
  return { body, ...flags };
}

/**
 * The audit row's preview: the first `max` characters of the payload's text `text` masked (`maskPrefix`), where
 * `value` is what `text` is of (the payload itself when a string, else what `text` is the canonical JSON of).
 *
 * A payload with a string longer than `INTERACTION_CAP` is masked from that string's recorded form — its masked
 * prefix, which the recorded body holds (`recordInteraction`) and `maskPrefix` keeps for the turn — instead of
 * reading it again inside the payload's JSON: a 1.3 MB base64 result is one token run, read to its end by every
 * window that reaches it, so it was read twice (the preview's JSON and the body's string). The payload's text is
 * still masked as one text (what its strings masked one by one would not hide), over that shorter form; a preview
 * never shows what the whole payload's mask hides (test/store/audit-preview.test.ts). A payload without long strings
 * gives exactly `maskPrefix(text, max)`.
 */
export function payloadPreview(text: string, value: unknown, max: number): string {
  if (text.length <= INTERACTION_CAP) return maskPrefix(text, max);
  if (typeof value === 'string') return maskPrefix(value.length > INTERACTION_CAP ? maskPrefix(value, INTERACTION_CAP) : value, max);
  let shortened = false;
  const recorded = (s: string): string => {
    if (s.length <= INTERACTION_CAP) return s;
    shortened = true;
    return maskPrefix(s, INTERACTION_CAP);
  };
  const short = mapStrings(value, recorded, { truncated: false }, 0, (k) => k);
  if (!shortened) return maskPrefix(text, max);
  // The shortened payload's JSON is over 64 KiB: its preview is read from its head when that decides it.
  const { head, whole } = canonicalJsonHead(short, PREVIEW_HEAD);
  return (whole ? maskPrefix(head, max) : maskHeadPrefix(head, max)) ?? maskPrefix(canonicalJson(short), max);
}

/**
 * How much of a shortened payload's JSON is written for its preview: the preview's window (240 characters and the
 * masker's 512 of look-ahead) doubled three times, unless a token run takes it further.
 */
const PREVIEW_HEAD = 8 * 1024;

/** Deeper nesting than this is dropped (the proxy's own argument-depth limit is lower). */
const MAX_DEPTH = 64;

/** A copy of `v` with `f` applied to every string value and `key` to every object key. */
export function mapStrings(v: unknown, f: (s: string) => string, flags: { truncated: boolean }, depth: number, key: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (v === null || typeof v !== 'object') return typeof v === 'bigint' ? String(v) : v;
  if (depth >= MAX_DEPTH) {
    flags.truncated = true;
    return null;
  }
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f, flags, depth + 1, key));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const name = key(k);
    const mapped = mapStrings(x, f, flags, depth + 1, key);
    // Assigned (a `defineProperty` per key goes through V8's runtime: twice the cost of the whole copy of a small
    // argument object), except `__proto__`, the one accessor on Object.prototype: assigned, an argument of that name
    // would set the copy's prototype and vanish, so it is defined. Any other key lands as an own, enumerable,
    // writable, configurable property in the same place (test/store/map-strings.test.ts).
    if (name === '__proto__') Object.defineProperty(out, name, { value: mapped, enumerable: true, writable: true, configurable: true });
    else out[name] = mapped;
  }
  return out;
}

/**
 * Whether `JSON.stringify(v)` writes a string longer than `n` characters (its JSON then longer than `n + 2`), for `v`
 * built by `mapStrings` (plain objects and arrays); an object with a `toJSON` is not looked into.
 */
function writesStringOver(v: unknown, n: number): boolean {
  if (typeof v === 'string') return v.length > n;
  if (v === null || typeof v !== 'object' || typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  return (Array.isArray(v) ? v : Object.values(v)).some((x) => writesStringOver(x, n));
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
