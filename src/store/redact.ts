/**
 * Secret masking for everything the store keeps in clear (audit previews, rationales, URIs). Audit rows are
 * read by people and exported; a credential that passed through the proxy must never be readable there. The
 * patterns are the detectors' one secrets catalogue (src/detectors/secrets/catalogue.ts).
 */
import { isCredentialField } from '../core/credential-fields.js';
import { RUN_CLASS_BITS, RUN_CLASSES } from '../core/text/runs.js';
import type { Interaction } from '../core/types.js';
import { maskSpans, type SecretSpan } from '../detectors/secrets/catalogue.js';

export type { SecretSpan };

/** Every secret found in `text` (the detectors' secrets catalogue, masking superset), sorted and merged. */
export function findSecrets(text: string): SecretSpan[] {
  return maskSpans(text);
}

/** `text` with every secret replaced by `[REDACTED:<kind>]`. */
export function maskSecrets(text: string): string {
  return maskPrefix(text, Number.POSITIVE_INFINITY);
}

/** Longest secret assumed to be recognisable only when seen whole (PEM blocks are matched up to the end anyway). */
const LOOKAHEAD = 512;

/**
 * The first `max` characters of the masked text, followed by `…` when cut. Only a window of the input is
 * scanned (so a 10 MB payload costs no more than a short one), and the window always reaches at least
 * `LOOKAHEAD` characters past the last original character shown, so a secret that starts in the preview is
 * never cut before the masker has seen it whole.
 */
export function maskPrefix(text: string, max: number): string {
  if (text.length < KEEP_SPANS_FROM) return maskWindow(text, max);
  // A long text's answer is kept for the turn: the audit row's preview and its recorded body ask for the same one.
  let kept = keptPrefixes.get(text);
  if (kept === undefined) {
    if (keptPrefixes.size === 0) setImmediate(() => keptPrefixes.clear());
    else if (keptPrefixes.size >= KEEP_TEXTS) keptPrefixes.delete(keptPrefixes.keys().next().value!);
    keptPrefixes.set(text, (kept = { answers: new Map() }));
  }
  let out = kept.answers.get(max);
  if (out === undefined) kept.answers.set(max, (out = maskWindow(text, max, kept)));
  return out;
}

/** `maskPrefix` without the memo of the turn; `kept`, the long text's memo of the turn, where a run read is kept. */
function maskWindow(text: string, max: number, kept?: KeptPrefixes): string {
  // A window never ends inside a run of token characters: a secret read whole in the text (a key id at the start of a
  // long token) must be read whole in the window too.
  const runEnd = (at: number): number => (kept === undefined ? tokenRunEnd(text, at) : keptRunEnd(text, at, kept));
  let window = runEnd(Math.min(text.length, max + LOOKAHEAD));
  for (;;) {
    const part = window === text.length ? text : text.slice(0, window);
    // The whole text's spans once a turn (a long text's memo): the preview's window and the body's may both reach its end.
    const { out, consumed } = render(part, part !== text ? findSecrets(part) : kept === undefined ? findSecrets(text) : (kept.spans ??= findSecrets(text)), max);
    const cut = consumed < text.length;
    if (!cut || consumed + LOOKAHEAD <= window || window >= text.length) return cut ? `${out}…` : out;
    // The window doubles, to the end of the token run it would cut: a 1.3 MB base64 text is read once (its first
    // window already reaches the end of its run) instead of once per doubling.
    window = runEnd(Math.min(text.length, window * 2));
  }
}

/**
 * `maskPrefix(text, max)` from `head`, the first characters of a `text` longer than it (the text itself not written
 * out: the audit row's preview of a long payload, audit-interaction.ts), or undefined when the answer depends on what
 * follows `head`: a window or a token run that reaches its end. Every step is `maskWindow`'s, on a window shorter
 * than the text (test/store/mask-head-prefix.test.ts compares the two).
 */
export function maskHeadPrefix(head: string, max: number): string | undefined {
  // Where the text's run from `at` ends, when it ends inside the head (the text goes on past the head's end).
  const runEnd = (at: number): number => {
    if (at >= head.length) return -1;
    const end = tokenRunEnd(head, at);
    return end < head.length ? end : -1;
  };
  let window = runEnd(max + LOOKAHEAD);
  while (window >= 0) {
    const part = head.slice(0, window);
    const { out, consumed } = render(part, findSecrets(part), max);
    // The window ends before the text does: the text is cut.
    if (consumed + LOOKAHEAD <= window) return `${out}…`;
    window = runEnd(window * 2);
  }
  return undefined;
}

/**
 * `tokenRunEnd(text, at)`, from the run `kept` holds when `at` lies in it: every character from its start to its end
 * is a token character, so from any place in it the run ends there. The preview's window and the body's both end at
 * the end of a base64 result's one run, which was read to its end twice.
 */
function keptRunEnd(text: string, at: number, kept: KeptPrefixes): number {
  const run = kept.run;
  if (run !== undefined && at >= run.from && at <= run.end) return run.end;
  const end = tokenRunEnd(text, at);
  if (end > at) kept.run = { from: at, end };
  return end;
}

/** Where the run of token characters (base64, hex, key characters) that goes on at `at` ends; `at` when none does. */
function tokenRunEnd(text: string, at: number): number {
  let i = at;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 128 || (RUN_CLASS_BITS[c]! & TOKEN_BIT) === 0) break;
    i++;
  }
  return i;
}

/** The secret-token class's bit in `RUN_CLASS_BITS` (A–Z a–z 0–9 + / _ - =: a credential's characters, padding too). */
const TOKEN_BIT = 1 << RUN_CLASSES.indexOf('secret-token');

/** Texts at least this long keep their spans for the rest of the event loop's turn. */
const KEEP_SPANS_FROM = 64 * 1024;
/**
 * What the turn keeps of a long text: `maskPrefix`'s answers by `max`, its spans when masked whole (an audit row masks a
 * result's preview and its recorded body from one text), and the last token run read in it to its end (`keptRunEnd`).
 */
interface KeptPrefixes {
  answers: Map<number, string>;
  spans?: SecretSpan[];
  run?: { from: number; end: number };
}
/**
 * `maskPrefix`'s answers for the long texts of the turn (a pure function of the text and `max`), the oldest let go past
 * KEEP_TEXTS. More than one: a result's preview masks its long string's recorded prefix, then the shortened payload's
 * JSON (itself long), and the recorded body asks for the string's prefix again after both.
 */
const keptPrefixes = new Map<string, KeptPrefixes>();
const KEEP_TEXTS = 4;

/** Builds the masked text up to `max` characters; `consumed` is how much of the original it covered. */
function render(text: string, spans: SecretSpan[], max: number): { out: string; consumed: number } {
  let out = '';
  let pos = 0;
  for (const s of spans) {
    if (out.length + (s.start - pos) >= max) break;
    out += `${text.slice(pos, s.start)}[REDACTED:${s.kind}]`;
    pos = s.end;
  }
  if (out.length < max) {
    const take = Math.min(text.length - pos, max - out.length);
    out += text.slice(pos, pos + take);
    pos += take;
  }
  return { out, consumed: pos };
}

/** What stands for a value kept under a secret-sounding key. */
const KEYED_SECRET = '[REDACTED:password_assignment]';

/**
 * `v` with every value in a credential field (`{password: "hunter22"}`, `{api_key: ["…"]}`, and the paths in
 * `schemaKeys`: fields a tool's schema marks as credentials, core/credential-fields.ts) replaced by a marker: each
 * string alone looks harmless, so the text masker cannot see it. Elements of an array under such a key are values of
 * that key too (the secrets detector reads them so). Returns `v` itself when nothing was replaced.
 */
export function maskSecretKeys(v: unknown, schemaKeys: readonly string[] = [], depth = 0, at = ''): unknown {
  if (v === null || typeof v !== 'object' || depth > 64) return v;
  if (Array.isArray(v)) {
    const out = v.map((x) => maskSecretKeys(x, schemaKeys, depth + 1, at));
    return out.some((x, i) => x !== v[i]) ? out : v;
  }
  let out: Record<string, unknown> | undefined;
  for (const [k, x] of Object.entries(v)) {
    const path = at === '' ? k : `${at}.${k}`;
    const y = isCredentialField(path, schemaKeys) ? maskValue(x) : maskSecretKeys(x, schemaKeys, depth + 1, path);
    if (y !== x) (out ??= { ...(v as Record<string, unknown>) })[k] = y;
  }
  return out ?? v;
}

/** The fields a tool call's schema marks as credentials (set by the proxy), for `maskSecretKeys`. */
export function schemaCredentialKeysOf(i: Interaction | undefined): readonly string[] {
  return i?.kind === 'tool_call' ? (i.credentialKeys ?? []) : [];
}

/** A value under a secret-sounding key: strings and numbers replaced, arrays element by element, objects by key. */
function maskValue(x: unknown): unknown {
  if ((typeof x === 'string' || typeof x === 'number') && String(x).length > 0) return KEYED_SECRET;
  if (Array.isArray(x)) {
    const out = x.map(maskValue);
    return out.some((y, i) => y !== x[i]) ? out : x;
  }
  return maskSecretKeys(x, [], 1);
}
