/**
 * The one table of readings (docs/inspection.md, "Readings"): every way a text can carry another text that the
 * guard knows how to undo, one row each (`READINGS`: a name, a cheap `mayApply` test, a `decode`). Consumers —
 * data flow, secrets, PII, injection — differ only in their limits (`ReadingLimits`: which rows, how deep, how many
 * views, how long a run), and `readingsOf` applies a consumer's rows recursively and says what it left unread
 * (nesting deeper than its depth, more views than its budget): the caller then fails closed. A new encoding is one
 * row here.
 */

import { leetPassages, replaceLeetWords } from './leet-words.js';
import { SPACED_LETTER } from './reading-literals.js';
import { sharedDecode, sharedEscapes, sharedMayApply, sharedStarts } from './reading-memo.js';
import type { EscapeStarts, ReadingStarts } from './reading-starts.js';
import { classRunsIn, hasClassRun, type RunQuery } from './runs.js';

/** The depth and view budget of `unwrapViews` (the encodings data flow and the masker read). */
const MAX_DEPTH = 3;
const MAX_VIEWS = 64;

/** Characters of base64 and base64url (1), also hex digits (2), and `=` (4). */
const RUN_CLASS = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') RUN_CLASS[c.charCodeAt(0)] = 1;
for (const c of '0123456789abcdefABCDEF') RUN_CLASS[c.charCodeAt(0)] = 3;
RUN_CLASS[61] = 4;

/**
 * The matches, as (start, end) pairs, of `/[A-Za-z0-9+/_-]{16,}={0,2}/g` (`bit` 1, `min` 16, `pad` 2) or of
 * `/[0-9a-fA-F]{24,}/g` (`bit` 2, `min` 24, `pad` 0) in `s`: each maximal run of the class long enough, with the
 * padding that follows it — the leftmost match of such a pattern is always a whole maximal run, and `=` is in
 * neither class, so the padding never holds the start of the next run. The runs are found by probes every `min`
 * characters (runs.ts `classRunsIn`): the base64 and hex rows read every window of a text, and a loop over every
 * character of each was a quarter of the injection scorer's readings of a base64 result. Exported for the test.
 */
export function encodedRuns(s: string, bit: number, min: number, pad: number): number[] {
  const out: number[] = [];
  classRunsIn(s, 0, s.length, RUN_CLASS, bit, min, out);
  if (pad > 0) {
    for (let r = 1; r < out.length; r += 2) {
      const i = out[r]!;
      let end = i;
      while (end - i < pad && end < s.length && s.charCodeAt(end) === 61) end++;
      out[r] = end;
    }
  }
  return out;
}

/**
 * Whether `s` may hold a line of 40 or more base64 characters (`=` included) ended by a line break: what joining
 * wrapped base64 needs. Without one, the join would change nothing.
 */
function mayHaveWrappedBase64(s: string): boolean {
  // From each line break (found natively) back over the 40 characters before it (before a `\r` ending the line).
  for (let j = s.indexOf('\n'); j >= 0; j = s.indexOf('\n', j + 1)) {
    const end = j > 0 && s.charCodeAt(j - 1) === 13 ? j - 1 : j;
    if (end < 40) continue;
    let i = end - 1;
    while (i >= end - 40) {
      const c = s.charCodeAt(i);
      if (c >= 128 || RUN_CLASS[c] === 0) break;
      i--;
    }
    if (i < end - 40) return true;
  }
  return false;
}

/**
 * Whether decoded bytes look like text (so random tokens do not become noise views): fewer than 5% of its code units
 * are U+FFFD or controls other than tab and line breaks. Read by char code: the string iterator (one string per code
 * point) cost ~60 ns a character, a third of the injection scorer on a base64 result. Counting code units counts what
 * the code points would: a surrogate is never U+FFFD nor a control, paired or alone.
 */
export function printable(s: string): boolean {
  if (s.length === 0) return false;
  let bad = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0xfffd || (c < 0x20 && c !== 9 && c !== 10 && c !== 13)) bad++;
  }
  return bad / s.length < 0.05;
}

/** Mostly printable ASCII: the stricter test for a short field decoded as a whole (short base64 is ambiguous). */
function texty(s: string): boolean {
  if (s.length === 0) return false;
  let ok = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 9 || c === 10 || c === 13) ok++;
  }
  return ok / s.length >= 0.85;
}

function urlDecoded(s: string): string | undefined {
  if (!/%[0-9a-fA-F]{2}|\+/.test(s)) return undefined;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    // Partly malformed escapes: decode those that are well formed.
    return s.replace(/\+/g, ' ').replace(/(?:%[0-9a-fA-F]{2})+/g, (m) => {
      try {
        return decodeURIComponent(m);
      } catch {
        return m;
      }
    });
  }
}

function base64Decoded(run: string): string | undefined {
  const b64 = run.replace(/-/g, '+').replace(/_/g, '/');
  const text = Buffer.from(b64, 'base64').toString('utf8');
  return printable(text) ? text : undefined;
}

/** A URL's decoded path, query values and fragment, when `s` is an absolute URL. */
function urlParts(s: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s.trim())) return [];
  try {
    const u = new URL(s.trim());
    const parts = [u.hostname, safeDecode(u.pathname)];
    for (const [k, v] of u.searchParams) parts.push(k, v);
    if (u.hash) parts.push(safeDecode(u.hash.slice(1)));
    // Labels of the host (data smuggled as subdomains) read as one text.
    parts.push(u.hostname.split('.').join(' '));
    return parts;
  } catch {
    return [];
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A character some reading starts from: non-ASCII, `&`, a backslash, `%`, `+` (one negated class: a fast scan). */
const ESCAPE_CHAR = /[^\x00-\x24\x27-\x2a\x2c-\x5b\x5d-\x7f]/;
const BASE64_RUN_16 = /[A-Za-z0-9/_-]{16}/;
/**
 * Whether `s` holds 16 consecutive characters of base64 (`+` included): `/[A-Za-z0-9+/_-]{16}/.test(s)`, what a base64
 * or hex row needs, in one pass (the expression, tried from every position, read each word again up to 16 times: a
 * third of the cost of reading a megabyte decoded from base64 went to it and to the base32 test below).
 */
function hasTokenRun16(s: string): boolean {
  for (let i = 0, n = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128 && (RUN_CLASS[c]! & 1) !== 0) {
      if (++n >= 16) return true;
    } else n = 0;
  }
  return false;
}

/** `/[A-Z2-7]{16}|[a-z2-7]{16}/.test(s)` in one pass: 16 base32 digits of one case. */
function hasBase32Run16(s: string): boolean {
  for (let i = 0, upper = 0, lower = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const digit = c >= 50 && c <= 55;
    upper = digit || (c >= 65 && c <= 90) ? upper + 1 : 0;
    lower = digit || (c >= 97 && c <= 122) ? lower + 1 : 0;
    if (upper >= 16 || lower >= 16) return true;
  }
  return false;
}

/**
 * Whether `s` may have a reading that is not a base64 or hex run: a plain reading, URL parts or URL decoding need
 * a non-ASCII character, `&`, a backslash, `%`, `+` or `://`.
 */
export function mayHaveEscapes(s: string): boolean {
  return ESCAPE_CHAR.test(s) || s.includes('://');
}

/**
 * Whether `s` may have a reading other than itself: an escape (`mayHaveEscapes`) or a run of 16 base64 characters
 * (every hex run of 24 holds one). False: `unwrapViews(s)` is `[s]`.
 */
export function mayHaveReadings(s: string): boolean {
  return mayHaveEscapes(s) || BASE64_RUN_16.test(s);
}

/**
 * A field decoded as a whole, repeatedly (at most 3 times): URL encoding, then base64 / base64url, then hex, while
 * the whole field is one of them and decodes to text. Used to join fields that were split and then encoded one by
 * one.
 */
export function decodeWhole(s: string): string {
  let cur = s;
  for (let n = 0; n < MAX_DEPTH; n++) {
    const t = cur.trim();
    const compact = t.replace(/\s+/g, '');
    let next: string | undefined;
    if (/%[0-9a-fA-F]{2}/.test(t)) next = urlDecoded(t);
    else if (compact.length >= 8 && /^(?:[0-9a-fA-F]{2})+$/.test(compact) && printable(Buffer.from(compact, 'hex').toString('utf8'))) {
      next = Buffer.from(compact, 'hex').toString('utf8');
    } else if (compact.length >= 8 && /^[A-Za-z0-9+/_-]+={0,2}$/.test(compact) && /[A-Z0-9+/=_-]/.test(compact) && compact.length % 4 !== 1) {
      const d = base64Decoded(compact);
      next = d !== undefined && texty(d) ? d : undefined;
    }
    if (next === undefined || next === cur) return cur;
    cur = next;
  }
  return cur;
}

/** Escapes and look-alike forms a plain reading undoes (the test is cheap; most texts skip everything). */
const PLAIN_HINT = /[^\x00-\x7f]|&#|&(?:amp|lt|gt|quot|apos);|\\[ux]/i;
const ENTITY = /&#(?:x([0-9a-f]{1,6})|(\d{1,7}));?|&(amp|lt|gt|quot|apos);/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ESCAPE = /\\u\{([0-9a-f]{1,6})\}|\\u([0-9a-f]{4})|\\x([0-9a-f]{2})/gi;
/** Invisible format characters (zero-width space and joiners, soft hyphen, bidi controls, tag characters). */
const FORMAT_CHARS = /\p{Cf}/gu;

function fromCode(hex: string | undefined, dec: string | undefined): string {
  const cp = hex !== undefined ? parseInt(hex, 16) : Number(dec);
  return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
}

/**
 * `s` as a reader sees it once escapes are undone: HTML character references (`&#103;`, `&#x67;`, `&amp;`),
 * backslash escapes (`\u0067`, `\u{67}`, `\x67`), compatibility forms folded (NFKC: full-width `ｇｈｐ＿` is `ghp_`)
 * and invisible format characters (zero-width, soft hyphen, bidi) removed. The same string when there is nothing
 * to undo.
 */
export function plainReading(s: string): string {
  if (!PLAIN_HINT.test(s)) return s;
  let t = s.replace(ENTITY, (_m, hex: string | undefined, dec: string | undefined, named: string | undefined) => (named !== undefined ? NAMED[named.toLowerCase()]! : fromCode(hex, dec)));
  t = t.replace(ESCAPE, (_m, braced: string | undefined, four: string | undefined, two: string | undefined) => fromCode(braced ?? four ?? two, undefined));
  return t.normalize('NFKC').replace(FORMAT_CHARS, '');
}

/**
 * The rot13 of a text (ASCII letters only; every other code unit as it is). Built as code units in one pass: a
 * replace with a function per letter cost ~20× as much, and a private read's first 64 KiB are turned so on every read.
 */
export function rot13(text: string): string {
  const out = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[i] = c >= 97 && c <= 122 ? ((c - 84) % 26) + 97 : c >= 65 && c <= 90 ? ((c - 52) % 26) + 65 : c;
  }
  return unitsToString(out);
}

/**
 * `[...text].reverse().join('')`: the code points of `text` in reverse order (a surrogate pair stays a pair, a lone
 * surrogate is a code point of its own), in one pass over code units. Reading backwards pairs the same units: a low
 * surrogate belongs to the high one right before it, as a high one does to the low one right after it.
 */
export function reverseCodePoints(text: string): string {
  const out = new Uint16Array(text.length);
  let o = 0;
  for (let j = text.length - 1; j >= 0; j--) {
    const c = text.charCodeAt(j);
    if (c >= 0xdc00 && c <= 0xdfff && j > 0) {
      const h = text.charCodeAt(j - 1);
      if (h >= 0xd800 && h <= 0xdbff) {
        out[o++] = h;
        out[o++] = c;
        j--;
        continue;
      }
    }
    out[o++] = c;
  }
  return unitsToString(out);
}

/**
 * `text.split(/(\s+)/).reverse().join('')`: the runs of white space and of other characters in reverse order, each
 * as it is (the split's pieces alternate between the two kinds; its empty pieces add nothing). One pass over code
 * units: the split and join of a 64 KiB read cost a third of recording it.
 */
export function reverseWords(text: string): string {
  const out = new Uint16Array(text.length);
  let o = 0;
  for (let end = text.length; end > 0; ) {
    const space = isJsSpace(text.charCodeAt(end - 1));
    let start = end - 1;
    while (start > 0 && isJsSpace(text.charCodeAt(start - 1)) === space) start--;
    for (let i = start; i < end; i++) out[o++] = text.charCodeAt(i);
    end = start;
  }
  return unitsToString(out);
}

/** JavaScript's `\s` without the `u` flag, by code unit: white space, line terminators and the BOM. */
export function isJsSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** UTF-16 code units as a string, lone surrogates and all. */
function unitsToString(u: Uint16Array): string {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString('utf16le');
}

/** Base32 (RFC 4648) digit values by char code, either case; 255: not a digit. */
const BASE32 = new Uint8Array(128).fill(255);
for (let v = 0; v < 32; v++) {
  const c = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.charCodeAt(v);
  BASE32[c] = v;
  if (v < 26) BASE32[c + 32] = v;
}

/**
 * The matches of `/(?<![A-Za-z0-9])(?:[A-Z2-7]{16,}|[a-z2-7]{16,})={0,6}(?![A-Za-z0-9])/g` in one linear pass: whole
 * runs of letters and digits, each all upper or all lower case base32 digits, 16 or more, with their padding.
 */
function base32Runs(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; ) {
    if (!isAlnum(s.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i;
    let upper = true;
    let lower = true;
    for (; j < s.length && isAlnum(s.charCodeAt(j)); j++) {
      const c = s.charCodeAt(j);
      const digit = c >= 50 && c <= 55;
      if (!digit && !(c >= 65 && c <= 90)) upper = false;
      if (!digit && !(c >= 97 && c <= 122)) lower = false;
    }
    let end = j;
    while (end < s.length && end - j < 6 && s.charCodeAt(end) === 61) end++;
    if ((upper || lower) && j - i >= 16 && !(end < s.length && isAlnum(s.charCodeAt(end)))) out.push(s.slice(i, end));
    i = Math.max(end, i + 1);
  }
  return out;
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** Base32 (RFC 4648) of one run, or undefined when it is not text. */
function base32Decoded(run: string): string | undefined {
  let end = run.length;
  while (end > 0 && run.charCodeAt(end - 1) === 61) end--;
  const bytes = Buffer.allocUnsafe(Math.floor((end * 5) / 8));
  let n = 0;
  let bits = 0;
  let value = 0;
  for (let i = 0; i < end; i++) {
    const c = run.charCodeAt(i);
    const v = c < 128 ? BASE32[c]! : 255;
    if (v === 255) return undefined;
    value = ((value << 5) | v) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bytes[n++] = (value >>> (bits - 8)) & 0xff;
      bits -= 8;
    }
  }
  const text = bytes.toString('utf8', 0, n);
  return texty(text) ? text : undefined;
}

/**
 * A run of eight or more numbers (1–7 digits) separated by commas, semicolons or white space: char codes. The gap is
 * white space, then at most one `,`/`;` with white space after it: written `[ \t\r\n]*[,;]?[ \t\r\n]*`, a gap of
 * white space alone could be split between the two runs in as many ways as it is long, and a text of a few numbers
 * before a long run of spaces took 1.6 s for 16 KB (the same matches, test/core/text/number-run.test.ts).
 */
// eslint-disable-next-line regexp/no-super-linear-move -- a start is tried at a digit only, and a run that fails holds at most seven digits (eight numbers match), so each run is read from at most seven starts (test/core/text/number-run.test.ts)
export const NUMBER_RUN = /(?:\d{1,7}[ \t\r\n]*(?:[,;][ \t\r\n]*)?){7,}\d{1,7}/g;
const NUMBER_HINT = /\d[\s,;]+\d{1,7}[\s,;]+\d{1,7}[\s,;]+\d/;

/** Numbers read as character codes (`80, 114, 111` or `[80,114,111]`), when every one is a character. */
function charCodesDecoded(run: string): string | undefined {
  const codes = run.split(/[\s,;]+/).filter((n) => n.length > 0).map(Number);
  if (codes.some((c) => c > 0x10ffff || (c < 32 && c !== 9 && c !== 10 && c !== 13))) return undefined;
  const text = String.fromCodePoint(...codes);
  return texty(text) ? text : undefined;
}

/** Bytes written as hex pairs with `\x` / `0x` prefixes or separators between them (`\x41\x42`, `0x41, 0x42`, `41 42`). */
const HEX_BYTES = /(?:\\x|0x)[0-9a-fA-F]{2}(?:[\s,;]*(?:\\x|0x)[0-9a-fA-F]{2}){11,}|(?<![0-9a-fA-F])[0-9a-fA-F]{2}(?:[ \t:,;-]+[0-9a-fA-F]{2}){11,}(?![0-9a-fA-F])/g;

/** The characters of HEX_BYTES's second form (hex digits and `[ \t:,;-]`: 12 pairs and 11 gaps, 35 or more), by char code. */
const HEX_PAIR_CHARS = new Uint8Array(128);
for (const c of '0123456789abcdefABCDEF \t:,;-') HEX_PAIR_CHARS[c.charCodeAt(0)] = 1;

const HEX_BYTES_HINT = /[0-9a-fA-F]{2}[\s,;:-]+(?:\\x|0x)?[0-9a-fA-F]{2}[\s,;:-]|\\x[0-9a-fA-F]{2}|0x[0-9a-fA-F]{2}/;

/**
 * The hex-bytes row's test: its expression (HEX_BYTES_HINT), asked only of a text HEX_BYTES can match, one with `\x`
 * or `0x` (its first form) or with 35 characters of its second form in a row (found by probes, `hasClassRun`). The
 * expression, tried from every position of the text, read words of hex letters and numbers through for nothing:
 * where HEX_BYTES cannot match the row decodes nothing, so ruling that out first changes no reading.
 */
function mayHoldHexBytes(t: string): boolean {
  return (holdsHexPrefix(t) || hasClassRun(t, HEX_PAIR_CHARS, 1, 35)) && HEX_BYTES_HINT.test(t);
}

/** Whether `t` holds `\x` or `0x`, from each `x` (a native search): one for "0x" stopped at every zero of a text of numbers. */
function holdsHexPrefix(t: string): boolean {
  for (let i = t.indexOf('x', 1); i !== -1; i = t.indexOf('x', i + 1)) {
    const c = t.charCodeAt(i - 1);
    if (c === 48 || c === 92) return true;
  }
  return false;
}

/** Letters and digits of ASCII (1), by char code: with every non-ASCII code unit, what `mayBeDoubled` counts. */
const ALNUM = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789') ALNUM[c.charCodeAt(0)] = 1;

/**
 * Whether at least 80% of the letters and digits of `s` (ASCII ones, and every non-ASCII code unit) come in doubled
 * pairs (`PPrroojjeecctt`), counting pairs from the left, at least 16 of them in all, and fewer than half of the pairs
 * repeat the pair before (`AAAA`, `4444` are a run, not doubled letters). The share is `2p / (2p + q)` for `p` pairs
 * and `q` single characters: at least 80% when `p ≥ 2q`. The pairs still to come are at most half the code units
 * left, so once `4q > 2p + left` the answer is no: prose stops long before its end.
 */
function mayBeDoubled(s: string): boolean {
  const n = s.length;
  let pairs = 0;
  let singles = 0;
  let prev = -1;
  let repeats = 0;
  for (let i = 0; i < n; ) {
    const c = s.charCodeAt(i);
    if (c < 128 && ALNUM[c] === 0) {
      i++;
      continue;
    }
    if (i + 1 < n && s.charCodeAt(i + 1) === c) {
      pairs++;
      if (c === prev) repeats++;
      prev = c;
      i += 2;
    } else {
      if (4 * ++singles > 2 * pairs + (n - i)) return false;
      prev = -1;
      i++;
    }
  }
  const total = 2 * pairs + singles;
  return total >= 16 && repeats < pairs / 2 && (2 * pairs) / total >= 0.8;
}

/**
 * The offset (0 or 1) of a separator that every other character of `s` is (`P-r-o-j-e-c-t`, `PxRxOxJ`): at least 90%
 * of the characters at that parity are one and the same, and it is not the majority at the other parity; −1 if none.
 */
function interleaveOffset(s: string): number {
  if (s.length < 16) return -1;
  // Both parities' first three characters differ among themselves (most text): neither is a separator.
  if ((s[1] !== s[3] || s[3] !== s[5]) && (s[0] !== s[2] || s[2] !== s[4]) && (s[7] !== s[9] || s[9] !== s[11]) && (s[6] !== s[8] || s[8] !== s[10])) return -1;
  for (const off of [1, 0]) {
    const counts = new Map<number, number>();
    let n = 0;
    for (let i = off; i < s.length; i += 2, n++) counts.set(s.charCodeAt(i), (counts.get(s.charCodeAt(i)) ?? 0) + 1);
    let top = -1;
    let topCount = 0;
    for (const [c, k] of counts) if (k > topCount) [top, topCount] = [c, k];
    if (topCount < 0.9 * n) continue;
    let other = 0;
    let m = 0;
    for (let i = 1 - off; i < s.length; i += 2, m++) if (s.charCodeAt(i) === top) other++;
    if (other < 0.5 * m) return off;
  }
  return -1;
}

/**
 * Three letters spaced out: what the spaced row needs. Its middle letter has a spacer on each side (SPACED_LETTER,
 * reading-literals.ts), and each spacing is one to three characters, so a match holds such a place `i` (the spacer
 * before the middle letter) and lies inside `[i − 3, i + 6)`: a scanned text is asked only there.
 */
const SPACED_HINT = /[A-Za-z](?: {1,3}|[-.*_] ?)[A-Za-z](?: {1,3}|[-.*_] ?)[A-Za-z]/;
/** Letters separated by single spaces, words by two or more ("I g n o r e  a l l"): at least 8 letters. */
const SPACED_RUN = /(?:\b[A-Za-z](?: {1,3}|[-.*_] ?)){7,}[A-Za-z]\b/g;
/** Digits standing for letters inside words ("1gn0r3"). */
const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's' };

/**
 * Leetspeak undone where it is written: each passage of three or more words that mix letters with digit stand-ins
 * close together (leet-words.ts `leetPassages`; versions, ids and hashes seldom do that three times in a row in
 * prose), read with its line and given its letters back, at most `maxRun` characters a passage, the passages joined
 * by line breaks. A long text's leet passages are read wherever they lie, and the rest of it is not read again.
 */
function unleet(text: string, maxRun: number): string | undefined {
  const passages = leetPassages(text);
  if (passages.length === 0) return undefined;
  return passages.map(([from, to]) => replaceLeetWords(text.slice(from, Math.min(to, from + maxRun)), undoLeet)).join('\n');
}

const undoLeet = (w: string): string => (/^[0-9a-f]{8,}$/i.test(w) ? w : w.replace(/[013457@$]/g, (c) => LEET[c] ?? c));

export const READING_NAMES = [
  'plain',
  'url-parts',
  'url',
  'base64',
  'hex',
  'hex-bytes',
  'base32',
  'char-codes',
  'doubled',
  'interleaved',
  'spaced',
  'leet',
  'rot13',
  'reversed',
  'reversed-words',
] as const;
export type ReadingName = (typeof READING_NAMES)[number];

/** How far one consumer reads (each consumer's constant below). */
export interface ReadingLimits {
  /** The rows it applies, in this order. */
  rows: readonly ReadingName[];
  /** Readings of readings, at most this deep; one more level that still decodes is left unread. */
  depth: number;
  /** Views (the text itself included) at most; one more is left unread. */
  maxViews: number;
  /** Characters of all decoded views together at most, plus four times the text's length; a view beyond is left unread. */
  maxChars: number;
  /** Shortest base64 run decoded. */
  minBase64: number;
  /** Alignments of a base64 run tried (a run may start mid-word, glued to the field before it). */
  alignments: number;
  /** Characters of one run decoded at most (the rest of a longer run is not decoded). */
  maxRun: number;
  /** A consumer's own extra condition on a row, on the text the row would read (`runs`: as for `mayApply`). */
  gate?: Partial<Record<ReadingName, (text: string, runs?: RunQuery) => boolean>>;
}

/** One reading: a name, a cheap test (false: `decode` gives nothing), the decoding (new texts, possibly none). */
export interface Reading {
  name: ReadingName;
  /** Whether what it decodes may itself be encoded (read again, to the consumer's depth). */
  nests: boolean;
  /** `runs`, when given, answers for `text` the run questions a plain expression would (a scan made once). */
  mayApply: (text: string, runs?: RunQuery) => boolean;
  decode: (text: string, limits: ReadingLimits) => string[];
}

/**
 * What the base64 and hex rows need: a run of 16 characters of base64 (`+` included), or wrapped base64. A long
 * text answers from the one pass over it that finds where every reading can start (reading-starts.ts).
 */
function mayHaveTokenRun(t: string, runs?: RunQuery): boolean {
  const starts = startsOf(t, runs);
  if (starts !== undefined) return starts.tokenRun16 || mayHaveWrappedBase64(t);
  // RUN_CLASS (base64 characters and `=`) is runs.ts's secret-token class: a scan's runs of it answer for the wrapping.
  return (runs ? runs.hasRun('base64', 16) : hasTokenRun16(t)) || (runs?.runEndsLine?.('secret-token', 40) ?? mayHaveWrappedBase64(t));
}

/**
 * Where a long text's readings can start (reading-starts.ts: one pass, kept for the turn), unless a scan of the text
 * answers its run questions already (`runs`: then the run rows ask the scan, which costs less than another pass,
 * and the escapes' rows the native searches for their characters, `escapesOf`), or the text is short (each row's
 * plain test answers sooner).
 */
function startsOf(t: string, runs: RunQuery | undefined): ReadingStarts | undefined {
  return runs === undefined ? sharedStarts(t) : undefined;
}

/**
 * The plain and url rows' flags of a long text, scanned or not: the native searches for the escapes' characters
 * cost a fraction of the rows' two expressions (the plain one case-folded), which a long window read through when
 * it holds none.
 */
function escapesOf(t: string, runs: RunQuery | undefined): EscapeStarts | undefined {
  return startsOf(t, runs) ?? sharedEscapes(t);
}

const URL_HINT = /%[0-9a-fA-F]{2}|\+/;

/**
 * Line-wrapped base64 (lines of 40 or more base64 characters) joined; other white space is kept. A match starts only
 * where a run starts (the lookbehind): tried from every place inside a long run that no line break follows, the
 * run was read to its end from each, so a 80 KB run took 15 s. Every match the former expression found starts
 * where a run starts, so the answer is the same (test/core/text/unwrap-base64-lines.test.ts).
 */
export function unwrapBase64Lines(text: string): string {
  return mayHaveWrappedBase64(text) ? text.replace(/(?<![A-Za-z0-9+/_=-])([A-Za-z0-9+/_=-]{40,})\r?\n[ \t]*(?=[A-Za-z0-9+/_-])/g, '$1') : text;
}

const one = (s: string | undefined, text: string): string[] => (s !== undefined && s !== text ? [s] : []);

/** The table. Order matters only for the order of the views. */
export const READINGS: readonly Reading[] = [
  // HTML references, backslash escapes, full-width forms, zero-width characters undone.
  { name: 'plain', nests: true, mayApply: (t, runs) => escapesOf(t, runs)?.plain ?? PLAIN_HINT.test(t), decode: (t) => one(plainReading(t), t) },
  // A URL read as its host, decoded path, query names and values, fragment, and host labels as words.
  { name: 'url-parts', nests: true, mayApply: (t) => t.includes('://'), decode: (t) => urlParts(t) },
  { name: 'url', nests: true, mayApply: (t, runs) => escapesOf(t, runs)?.url ?? URL_HINT.test(t), decode: (t) => one(urlDecoded(t), t) },
  {
    name: 'base64',
    nests: true,
    mayApply: mayHaveTokenRun,
    decode(t, limits) {
      const out: string[] = [];
      const compact = unwrapBase64Lines(t);
      const b64 = encodedRuns(compact, 1, limits.minBase64, 2);
      for (let r = 0; r < b64.length; r += 2) {
        const m = compact.slice(b64[r], Math.min(b64[r + 1]!, b64[r]! + limits.maxRun));
        // A run may start mid-word (a field joined to the one before it): try the alignments of the encoding.
        for (let off = 0; off < limits.alignments && m.length - off >= limits.minBase64; off++) {
          const d = base64Decoded(m.slice(off));
          if (d !== undefined) out.push(d);
        }
      }
      return out;
    },
  },
  {
    name: 'hex',
    nests: true,
    mayApply: mayHaveTokenRun,
    decode(t, limits) {
      const out: string[] = [];
      const compact = unwrapBase64Lines(t);
      const hex = encodedRuns(compact, 2, 24, 0);
      for (let r = 0; r < hex.length; r += 2) {
        const m = compact.slice(hex[r], Math.min(hex[r + 1]!, hex[r]! + limits.maxRun));
        for (let off = 0; off < 2; off++) {
          const run = m.slice(off, off + Math.floor((m.length - off) / 2) * 2);
          const d = Buffer.from(run, 'hex').toString('utf8');
          if (printable(d)) out.push(d);
        }
      }
      return out;
    },
  },
  {
    name: 'hex-bytes',
    nests: true,
    mayApply: mayHoldHexBytes,
    decode(t, limits) {
      const out: string[] = [];
      for (const m of t.matchAll(HEX_BYTES)) {
        const d = Buffer.from(m[0].slice(0, limits.maxRun).replace(/\\x|0x|[\s,;:-]/g, ''), 'hex').toString('utf8');
        if (texty(d)) out.push(d);
      }
      return out;
    },
  },
  {
    name: 'base32',
    nests: true,
    mayApply: (t, runs) => startsOf(t, runs)?.base32Run16 ?? (runs ? runs.hasRun('base32-upper', 16) || runs.hasRun('base32-lower', 16) : hasBase32Run16(t)),
    decode(t, limits) {
      const out: string[] = [];
      for (const run of base32Runs(t)) {
        const d = base32Decoded(run.slice(0, limits.maxRun));
        if (d !== undefined) out.push(d);
      }
      return out;
    },
  },
  {
    name: 'char-codes',
    nests: true,
    mayApply: (t) => NUMBER_HINT.test(t),
    decode(t, limits) {
      const out: string[] = [];
      for (const m of t.matchAll(NUMBER_RUN)) {
        const d = charCodesDecoded(m[0].slice(0, limits.maxRun));
        if (d !== undefined) out.push(d);
      }
      return out;
    },
  },
  { name: 'doubled', nests: true, mayApply: mayBeDoubled, decode: (t) => one(t.replace(/([\p{L}\p{N}])\1/gu, '$1'), t) },
  {
    name: 'interleaved',
    nests: true,
    mayApply: (t) => interleaveOffset(t) >= 0,
    decode(t) {
      const off = interleaveOffset(t);
      let s = '';
      for (let i = 1 - off; i < t.length; i += 2) s += t[i];
      return one(s, t);
    },
  },
  {
    // Letters joined by a separator ("I-g-n-o-r-e a-l-l"): a space ends a word; letters joined by spaces: two do.
    name: 'spaced',
    nests: false,
    mayApply: (t, runs) => {
      if (runs?.someLiteral === undefined) return SPACED_HINT.test(t);
      return runs.someLiteral(SPACED_LETTER, (i) => SPACED_HINT.test(t.slice(Math.max(0, i - 3), i + 6)));
    },
    decode(t, limits) {
      const out: string[] = [];
      for (const m of t.matchAll(SPACED_RUN)) {
        const run = m[0].slice(0, limits.maxRun);
        const gap = /[A-Za-z][-.*_][A-Za-z]/.test(run) ? / +/g : / {2,}/g;
        out.push(run.replace(gap, '\u0000').replace(/[ .*_-]/g, '').replace(/\u0000/g, ' '));
      }
      return out;
    },
  },
  { name: 'leet', nests: false, mayApply: (t) => /\d/.test(t), decode: (t, limits) => one(unleet(t, limits.maxRun), t) },
  // The whole text: its consumer's gate reads it only when it names rot13, and what it encodes may lie anywhere after
  // (or before) that name; the readings' character budget bounds it.
  { name: 'rot13', nests: false, mayApply: (t) => /[A-Za-z]{3}/.test(t), decode: (t) => one(rot13(t), t) },
  { name: 'reversed', nests: false, mayApply: (t) => t.length >= 8, decode: (t, limits) => one(reverseCodePoints(t.slice(0, limits.maxRun)), t) },
  { name: 'reversed-words', nests: false, mayApply: (t) => /\S\s+\S/.test(t), decode: (t, limits) => one(reverseWords(t.slice(0, limits.maxRun)), t) },
];

const ROWS = new Map(READINGS.map((r) => [r.name, r]));

/** The views of a text under one consumer's limits, and what was left unread (the caller fails closed on it). */
export interface Readings {
  /** The text itself first, then its readings, depth first. */
  views: string[];
  /** The row each view came from (`undefined` for the text itself). */
  names: Array<ReadingName | undefined>;
  /** Why some reading was not made: nesting deeper than the depth, or over the view or character budget. */
  unread?: string;
}

/**
 * Every reading of `s` under `limits`: itself first, then, depth first, what each row decodes (rows that nest are
 * read again to `limits.depth`; the others are applied to every view, once). A reading that would still decode at
 * the depth limit, or one over the view or character budget, is not made and is named in `unread`.
 */
export function readingsOf(s: string, limits: ReadingLimits, runs?: RunQuery): Readings {
  const known = made.get(limits)?.get(s);
  if (known !== undefined) return known;
  const r = readAll(s, limits, runs);
  remember(s, limits, r);
  return r;
}

/**
 * Readings made in the current turn of the event loop, by consumer limits and text: the detectors of one check
 * (secrets and PII read the same outgoing field under SECRET_READINGS; the masker reads it again) decode a text
 * once. Let go when the turn is over, and bounded within it. A result is frozen: callers share it.
 */
const made = new Map<ReadingLimits, Map<string, Readings>>();
const MADE_MAX = 256;
let madeCount = 0;

function remember(s: string, limits: ReadingLimits, r: Readings): void {
  if (madeCount >= MADE_MAX) return;
  if (madeCount === 0) {
    setImmediate(() => {
      made.clear();
      madeCount = 0;
    });
  }
  let byText = made.get(limits);
  if (byText === undefined) made.set(limits, (byText = new Map()));
  Object.freeze(r.views);
  Object.freeze(r.names);
  byText.set(s, Object.freeze(r));
  madeCount++;
}

function readAll(s: string, limits: ReadingLimits, runs?: RunQuery): Readings {
  const views: string[] = [];
  const names: Array<ReadingName | undefined> = [];
  const seen = new Set<string>();
  let chars = 0;
  // Decodings are no longer than what they decode: the budget grows with the text, so a long text is read as a short one is.
  const maxChars = limits.maxChars + 4 * s.length;
  let unread: string | undefined;
  const rows = limits.rows.map((n) => ROWS.get(n)!);
  const nesting = rows.filter((r) => r.nests);
  const last = rows.filter((r) => !r.nests);
  // A row's decode reads these limits and no others: with the row's name, the key of what it decoded (reading-memo.ts).
  const decodeKey = `|${limits.minBase64}|${limits.alignments}|${limits.maxRun}`;
  // `runs` answers for `s` itself only (the views decoded from it are new texts).
  const runsOf = (text: string): RunQuery | undefined => (text === s ? runs : undefined);
  const applies = (r: Reading, text: string) => sharedMayApply(text, r.name, () => r.mayApply(text, runsOf(text))) && (limits.gate?.[r.name]?.(text, runsOf(text)) ?? true);
  const take = (text: string, name: ReadingName | undefined): boolean => {
    if (seen.has(text)) return false;
    // The text itself is always taken: the budget is for what the readings add.
    if (name !== undefined && (views.length >= limits.maxViews || chars + text.length > maxChars)) {
      unread ??= `${name ?? 'a'} reading over the budget (${limits.maxViews} readings, ${maxChars} characters)`;
      return false;
    }
    seen.add(text);
    views.push(text);
    names.push(name);
    if (name !== undefined) chars += text.length;
    return true;
  };
  const visit = (text: string, depth: number, name: ReadingName | undefined) => {
    if (!take(text, name)) return;
    for (const r of nesting) {
      if (!applies(r, text)) continue;
      for (const d of sharedDecode(text, r.name + decodeKey, () => r.decode(text, limits))) {
        if (depth >= limits.depth) {
          if (!seen.has(d)) unread ??= `${r.name} reading nested deeper than ${limits.depth}`;
          continue;
        }
        visit(d, depth + 1, r.name);
      }
    }
  };
  visit(s, 0, undefined);
  if (last.length > 0) {
    const decoded = views.length;
    for (let v = 0; v < decoded; v++) {
      for (const r of last) if (applies(r, views[v]!)) for (const d of sharedDecode(views[v]!, r.name + decodeKey, () => r.decode(views[v]!, limits))) take(d, r.name);
    }
  }
  return unread === undefined ? { views, names } : { views, names, unread };
}

/**
 * Whether any row of `limits` applies to `s` (false: `readingsOf(s, limits).views` is `[s]`). Each row's test is asked
 * through the memo of the turn, as `readingsOf` asks it: the masker asks this and then reads the same text.
 */
export function mayHaveReadingsUnder(s: string, limits: ReadingLimits): boolean {
  return limits.rows.some((n) => {
    const r = ROWS.get(n)!;
    return sharedMayApply(s, n, () => r.mayApply(s)) && (limits.gate?.[n]?.(s) ?? true);
  });
}

/** The encodings data flow and the masker read (the reference in test/dataflow/reference/unwrap.ts). */
export const UNWRAP_READINGS: ReadingLimits = { rows: ['plain', 'url-parts', 'url', 'base64', 'hex'], depth: MAX_DEPTH, maxViews: MAX_VIEWS, maxChars: Infinity, minBase64: 16, alignments: 4, maxRun: Infinity };

/** What leaves (arguments, messages): every encoding, nested deep, for data flow. */
export const OUTGOING_READINGS: ReadingLimits = {
  rows: ['plain', 'url-parts', 'url', 'base64', 'hex', 'hex-bytes', 'base32', 'char-codes', 'doubled', 'interleaved'],
  depth: 8,
  maxViews: 4096,
  maxChars: 16 * 1024 * 1024,
  minBase64: 16,
  alignments: 4,
  maxRun: Infinity,
};

/** Credentials and personal data in what leaves: the same encodings (a credential is read at any depth up to 8). */
export const SECRET_READINGS: ReadingLimits = { ...OUTGOING_READINGS, maxViews: 1024, maxChars: 4 * 1024 * 1024 };

/**
 * Forms of a private text kept beside it (data flow records their fingerprints too): readings that are their own
 * inverse or whose inverse is their sibling, so matching the outgoing text as it is finds private data sent rot13'd,
 * reversed or with its words in reverse order — no extra reading of every outgoing text.
 */
export const PRIVATE_FORMS: readonly ReadingName[] = ['rot13', 'reversed', 'reversed-words'];

/** The forms of `text` (its first `maxChars` characters) named in PRIVATE_FORMS. */
export function privateForms(text: string, maxChars: number): string[] {
  const t = text.slice(0, maxChars);
  const limits = { ...UNWRAP_READINGS, maxRun: maxChars };
  return PRIVATE_FORMS.flatMap((n) => ROWS.get(n)!.decode(t, limits));
}

/**
 * Every reading of `s` under UNWRAP_READINGS: itself first, then decodings (plain reading, URL parts, URL-decoded
 * text, base64 and hex runs), recursively to depth 3 and at most 64 views.
 */
export function unwrapViews(s: string): string[] {
  return readingsOf(s, UNWRAP_READINGS).views;
}
