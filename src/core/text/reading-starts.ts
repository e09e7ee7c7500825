/**
 * Where the readings of a long text can start, found in one pass over its char codes: the cheap tests of four rows
 * of readings.ts (plain, url, base64 and hex, base32), which read a text to its end when they fail. They were four
 * expressions and loops over the text (the base64 run's twice, once for the base64 row, once for hex) per window or
 * decoded view; asked once here (kept for the turn, reading-memo.ts), each row reads its flag. The pass stops once
 * every flag is set. Texts a scan answers for (detectors/scan.ts) and short texts keep the rows' own tests: there
 * they cost less than another pass.
 *
 * Each flag is exactly the plain test named beside it (test/core/text/reading-starts.test.ts compares them on the
 * corpora and on generated texts, and the readings and scores with and without the pass).
 */

/** What each ASCII character is to the flags, one bit each (see the constants). */
const KIND = new Uint8Array(128);
/** base64 and base64url (`+` included): a base64 or hex run. */
const TOKEN = 1;
/** Upper-case base32: A–Z, 2–7. */
const UPPER = 4;
/** Lower-case base32: a–z, 2–7. */
const LOWER = 8;
/** Where an escape starts: `+`, `%`, `&`, a backslash. */
const SPECIAL = 16;
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') KIND[c.charCodeAt(0)]! |= TOKEN;
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567') KIND[c.charCodeAt(0)]! |= UPPER;
for (const c of 'abcdefghijklmnopqrstuvwxyz234567') KIND[c.charCodeAt(0)]! |= LOWER;
for (const c of '+%&\\') KIND[c.charCodeAt(0)]! |= SPECIAL;

export interface ReadingStarts {
  /** `/[^\x00-\x7f]|&#|&(?:amp|lt|gt|quot|apos);|\\[ux]/i.test(s)`: the plain reading's escapes and look-alikes. */
  plain: boolean;
  /** `/%[0-9a-fA-F]{2}|\+/.test(s)`: URL decoding. */
  url: boolean;
  /** `/[A-Za-z0-9+/_-]{16}/.test(s)`: a base64 or hex run (every hex run of 24 holds one). */
  tokenRun16: boolean;
  /** `/[A-Z2-7]{16}|[a-z2-7]{16}/.test(s)`: a base32 run of one case. */
  base32Run16: boolean;
}

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** Whether `s` holds, case-insensitively, one of the named references `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` at `i` (its `&`). */
function namedReferenceAt(s: string, i: number): boolean {
  // Lower-cased ASCII letters only (`| 32`): the names are letters, the `;` is compared as it is.
  const at = (k: number): number => s.charCodeAt(i + k) | 32;
  switch (at(1)) {
    case 97: // a: amp; apos;
      return (at(2) === 109 && at(3) === 112 && s.charCodeAt(i + 4) === 59) || (at(2) === 112 && at(3) === 111 && at(4) === 115 && s.charCodeAt(i + 5) === 59);
    case 108: // l: lt;
    case 103: // g: gt;
      return at(2) === 116 && s.charCodeAt(i + 3) === 59;
    case 113: // q: quot;
      return at(2) === 117 && at(3) === 111 && at(4) === 116 && s.charCodeAt(i + 5) === 59;
    default:
      return false;
  }
}

/** The flags of `s`, in one pass (it stops once every flag is set). */
export function readingStarts(s: string): ReadingStarts {
  let plain = false;
  let url = false;
  let tokenRun16 = false;
  let base32Run16 = false;
  // Lengths of the runs ending at the current character, each kind's.
  let token = 0;
  let upper = 0;
  let lower = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    // Non-ASCII: a look-alike or invisible character for the plain reading; it ends every run.
    const k = c < 128 ? KIND[c]! : 0;
    if (c >= 128) plain = true;
    token = (k & TOKEN) !== 0 ? token + 1 : 0;
    upper = (k & UPPER) !== 0 ? upper + 1 : 0;
    lower = (k & LOWER) !== 0 ? lower + 1 : 0;
    if (token >= 16) tokenRun16 = true;
    if (upper >= 16 || lower >= 16) base32Run16 = true;
    if ((k & SPECIAL) !== 0) {
      if (c === 43) {
        url = true;
      } else if (c === 37) {
        if (i + 2 < n && isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2))) url = true;
      } else if (c === 38) {
        if (s.charCodeAt(i + 1) === 35 || namedReferenceAt(s, i)) plain = true;
      } else {
        // A backslash.
        const d = s.charCodeAt(i + 1) | 32;
        if (d === 117 || d === 120) plain = true;
      }
    }
    if (plain && url && tokenRun16 && base32Run16) break;
  }
  return { plain, url, tokenRun16, base32Run16 };
}
