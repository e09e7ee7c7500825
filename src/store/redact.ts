/**
 * Secret masking for everything the store keeps in clear (audit previews, rationales, URIs). Audit rows are
 * read by people and exported; a credential that passed through the proxy must never be readable there.
 *
 * Matching is conservative: over-masking a preview costs nothing, a leaked key costs a rotation.
 */
import { shannonEntropy } from '../core/entropy.js';

/** A secret found in a text: `[start, end)` offsets and what it looked like. */
export interface SecretSpan {
  start: number;
  end: number;
  kind: string;
}

interface SecretPattern {
  kind: string;
  re: RegExp;
  /** Capture group holding the secret itself (default: the whole match). */
  group?: number;
  /** Extra check on the matched text (e.g. entropy). */
  accept?: (text: string) => boolean;
}

/** Compiled once. All global, with indices (`d`) so a group's offsets are known. */
const PATTERNS: SecretPattern[] = [
  // PEM private keys; a block cut before its END line (a capped text) is masked to the end.
  { kind: 'pem', re: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)/dg },
  { kind: 'aws-key-id', re: /(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])/dg },
  { kind: 'api-key', re: /\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{16,}/dg },
  { kind: 'stripe-key', re: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/dg },
  { kind: 'github-token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/dg },
  { kind: 'slack-token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/dg },
  { kind: 'google-key', re: /\bAIza[0-9A-Za-z_-]{30,}/dg },
  // JWTs, also cut ones (header.payload without a signature).
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?/dg },
  { kind: 'bearer', re: /\bBearer\s+([A-Za-z0-9._~+/=-]{8,})/dg, group: 1 },
  // URL credentials: scheme://user:password@host
  { kind: 'url-password', re: /(?<=:\/\/)[^\s/:@"']+:([^\s@"'/]+)@/dg, group: 1 },
  // key = value / "key": "value" with a secret-sounding key.
  {
    kind: 'secret-value',
    re: /(?:passw(?:or)?d|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|authorization|cookie|session[_-]?id)[A-Za-z0-9_-]*["']?\s*[:=]\s*["']?([^"'\s,;&}\]]{4,})/dgi,
    group: 1,
  },
  // Long high-entropy tokens (AWS secret keys, generic API keys, base64 blobs).
];

/** Shortest run of token characters considered by the high-entropy check. */
const MIN_TOKEN = 24;

/** Token characters: A–Z a–z 0–9 + / _ - (base64, base64url, hex). */
function isTokenChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 95 || c === 45;
}

/**
 * Long high-entropy tokens (AWS secret keys, generic API keys, base64 blobs): one linear scan for runs of token
 * characters (a regex would retry at every character of every word).
 */
function highEntropySpans(text: string, out: SecretSpan[]): void {
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const tok = i < text.length && isTokenChar(text.charCodeAt(i));
    if (tok) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start >= MIN_TOKEN) {
      let end = i;
      while (end < text.length && end - i < 2 && text.charCodeAt(end) === 61) end++; // base64 '=' padding
      if (looksRandom(text.slice(start, i))) out.push({ start, end, kind: 'high-entropy' });
    }
    start = -1;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A token that is probably a key rather than a word or a path: mixed character classes and high entropy. */
function looksRandom(token: string): boolean {
  if (UUID.test(token)) return false;
  const digit = /[0-9]/.test(token);
  const lower = /[a-z]/.test(token);
  const upper = /[A-Z]/.test(token);
  const classes = Number(digit) + Number(lower) + Number(upper);
  if (classes < 2) return false;
  return shannonEntropy(token) >= (classes === 3 ? 3.6 : 3.9);
}

/**
 * Literal every pattern above needs (case-insensitive, a superset): text without any of them skips the pattern
 * pass, which keeps the common case (ordinary arguments) at one scan. Keep in step with PATTERNS.
 */
const PREFILTER =
  /BEGIN|AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA|sk-|[rs]k_|gh[pousr]_|github_pat_|xox|AIza|eyJ|Bearer|:\/\/|passw|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|authorization|cookie|session[_-]?id/i;

/** Every secret found in `text`, sorted and merged where they overlap. */
export function findSecrets(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  const candidates = PREFILTER.test(text) ? PATTERNS : [];
  for (const p of candidates) {
    p.re.lastIndex = 0;
    for (const m of text.matchAll(p.re)) {
      const idx = m.indices?.[p.group ?? 0];
      if (!idx) continue;
      const secret = text.slice(idx[0], idx[1]);
      if (p.accept && !p.accept(secret)) continue;
      spans.push({ start: idx[0], end: idx[1], kind: p.kind });
    }
  }
  highEntropySpans(text, spans);
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretSpan[] = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  return merged;
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
  let window = Math.min(text.length, max + LOOKAHEAD);
  for (;;) {
    const part = text.slice(0, window);
    const { out, consumed } = render(part, findSecrets(part), max);
    const cut = consumed < text.length;
    if (!cut || consumed + LOOKAHEAD <= window || window >= text.length) return cut ? `${out}…` : out;
    window = Math.min(text.length, window * 2);
  }
}

/** Builds the masked text up to `max` characters; `consumed` is how much of the original it covered. */
function render(text: string, spans: SecretSpan[], max: number): { out: string; consumed: number } {
  let out = '';
  let pos = 0;
  for (const s of spans) {
    if (out.length + (s.start - pos) >= max) break;
    out += text.slice(pos, s.start) + `[REDACTED:${s.kind}]`;
    pos = s.end;
  }
  if (out.length < max) {
    const take = Math.min(text.length - pos, max - out.length);
    out += text.slice(pos, pos + take);
    pos += take;
  }
  return { out, consumed: pos };
}
