/**
 * Where the readings of a long text can start: the cheap tests of four rows of readings.ts (plain, url, base64 and
 * hex, base32), which read a text to its end when they fail. They were four expressions and loops over the text (the
 * base64 run's twice, once for the base64 row, once for hex) per window or decoded view; asked once here (kept for
 * the turn, reading-memo.ts), each row reads its flag. Texts a scan answers for (detectors/scan.ts) and short texts
 * keep the rows' own tests: there they cost less than another pass.
 *
 * Two scans, neither reading every character in script: the escapes' characters are found by a native search for
 * one negated class, and the runs by probing every sixteenth character (a run of 16 covers one of them) and reading
 * the run around a probe that is in one. A one-pass loop over every character's class cost three to four times
 * as much on prose (about a third of the audit row's masking of a long read).
 *
 * Each flag is exactly the plain test named beside it (test/core/text/reading-starts.test.ts compares them on the
 * corpora and on generated texts, and the readings and scores with and without it).
 */

import { classRunsIn, RUN_CLASS_BITS, RUN_CLASSES } from './runs.js';

/** runs.ts's class bits of base64 (and base64url, `+` included: a base64 or hex run) and of each case of base32. */
const TOKEN = 1 << RUN_CLASSES.indexOf('base64');
const UPPER = 1 << RUN_CLASSES.indexOf('base32-upper');
const LOWER = 1 << RUN_CLASSES.indexOf('base32-lower');

/** The flags of the escapes' rows, found by native searches for their characters: asked of a text a scan answers for too. */
export interface EscapeStarts {
  /** `/[^\x00-\x7f]|&#|&(?:amp|lt|gt|quot|apos);|\\[ux]/i.test(s)`: the plain reading's escapes and look-alikes. */
  plain: boolean;
  /** `/%[0-9a-fA-F]{2}|\+/.test(s)`: URL decoding. */
  url: boolean;
}

export interface ReadingStarts extends EscapeStarts {
  /** `/[A-Za-z0-9+/_-]{16}/.test(s)`: a base64 or hex run (every hex run of 24 holds one). */
  tokenRun16: boolean;
  /** `/[A-Z2-7]{16}|[a-z2-7]{16}/.test(s)`: a base32 run of one case. */
  base32Run16: boolean;
}

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** Whether `s` holds, case-insensitively, one of the named references `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` at `i` (its `&`). */
function namedReferenceAt(s: string, i: number): boolean {
  // Lower-cased ASCII letters only (`| 32`): the names are letters, the `;` is compared as it is. Read without a
  // closure over `s`: one made per `&` cost ten times the rest of the pass on a text of many.
  const c1 = s.charCodeAt(i + 1) | 32;
  const c2 = s.charCodeAt(i + 2) | 32;
  // l: lt; g: gt;
  if (c1 === 108 || c1 === 103) return c2 === 116 && s.charCodeAt(i + 3) === 59;
  const c3 = s.charCodeAt(i + 3) | 32;
  // a: amp; apos;
  if (c1 === 97) return (c2 === 109 && c3 === 112 && s.charCodeAt(i + 4) === 59) || (c2 === 112 && c3 === 111 && (s.charCodeAt(i + 4) | 32) === 115 && s.charCodeAt(i + 5) === 59);
  // q: quot;
  if (c1 === 113) return c2 === 117 && c3 === 111 && (s.charCodeAt(i + 4) | 32) === 116 && s.charCodeAt(i + 5) === 59;
  return false;
}

/** The flags of `s` (its escapes' flags, when `escapes` does not give them already). */
export function readingStarts(s: string, escapes: EscapeStarts = escapeStarts(s)): ReadingStarts {
  const [tokenRun16, base32Run16] = runFlags(s);
  return { plain: escapes.plain, url: escapes.url, tokenRun16, base32Run16 };
}

/** The plain and url flags of `s`. */
export function escapeStarts(s: string): EscapeStarts {
  const [plain, url] = escapeFlags(s);
  return { plain, url };
}

/** Every character an escape can start from: non-ASCII, `%`, `&`, `+`, a backslash. */
const ESCAPE_STARTS = /[^\x00-\x24\x27-\x2a\x2c-\x5b\x5d-\x7f]/g;
/** Once the plain flag is set: what sets the url flag. */
const URL_STARTS = /%[0-9a-fA-F]{2}|\+/g;
/** Once the url flag is set: where the plain flag can start (non-ASCII, `&`, a backslash). */
const PLAIN_STARTS = /[^\x00-\x25\x27-\x5b\x5d-\x7f]/g;

/** The plain and url flags: each character an escape can start from, in order, until both are set. */
function escapeFlags(s: string): [plain: boolean, url: boolean] {
  let plain = false;
  let url = false;
  const n = s.length;
  for (let from = 0; !(plain && url); ) {
    if (plain) {
      URL_STARTS.lastIndex = from;
      url = URL_STARTS.test(s);
      break;
    }
    // One character matched: it is the one before `lastIndex` (no match array is made).
    const re = url ? PLAIN_STARTS : ESCAPE_STARTS;
    re.lastIndex = from;
    if (!re.test(s)) break;
    const i = re.lastIndex - 1;
    from = i + 1;
    const c = s.charCodeAt(i);
    if (c >= 128) {
      // A look-alike or invisible character for the plain reading.
      plain = true;
    } else if (c === 43) {
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
  return [plain, url];
}

/**
 * The tokenRun16 and base32Run16 flags, by probes (`classRunsIn`: a run of 16 covers one of every sixteenth
 * position). Base32 digits of either case are token characters, so a base32 run of 16 lies in a token run of 16 or
 * more: only those are probed for one.
 */
function runFlags(s: string): [tokenRun16: boolean, base32Run16: boolean] {
  const tokens: number[] = [];
  classRunsIn(s, 0, s.length, RUN_CLASS_BITS, TOKEN, 16, tokens);
  const base32: number[] = [];
  for (let r = 0; r < tokens.length && base32.length === 0; r += 2) {
    classRunsIn(s, tokens[r]!, tokens[r + 1]!, RUN_CLASS_BITS, UPPER, 16, base32);
    classRunsIn(s, tokens[r]!, tokens[r + 1]!, RUN_CLASS_BITS, LOWER, 16, base32);
  }
  return [tokens.length > 0, base32.length > 0];
}
