/**
 * Character classes whose runs start an encoded reading or a credential (a base64 or hex run, a base32 run, a token
 * of a key), and the question every prefilter of them asks: does a text hold `min` consecutive characters of the
 * class? `RunQuery` is that question answered for one text (or a slice of it) by a scan made once
 * (detectors/scan.ts); `holdsRun` answers it by a plain expression, the reference the scan is tested against.
 */

import type { ScanLiterals } from './reading-literals.js';

export const RUN_CLASSES = ['base64', 'secret-token', 'base32-upper', 'base32-lower'] as const;
export type RunClass = (typeof RUN_CLASSES)[number];

/** The characters of each class (a regex character class body). */
export const RUN_CLASS_CHARS: Record<RunClass, string> = {
  // base64, base64url, hex: what the base64 and hex readings start from.
  base64: 'A-Za-z0-9+/_-',
  // A credential's token characters (base64 padding included): the secrets prefilter.
  'secret-token': 'A-Za-z0-9+/_=-',
  'base32-upper': 'A-Z2-7',
  'base32-lower': 'a-z2-7',
};

/** One bit per class, by char code (ASCII only: every class is ASCII). */
export const RUN_CLASS_BITS = new Uint8Array(128);
for (const [bit, cls] of RUN_CLASSES.entries()) {
  const re = new RegExp(`[${RUN_CLASS_CHARS[cls]}]`);
  for (let c = 0; c < 128; c++) if (re.test(String.fromCharCode(c))) RUN_CLASS_BITS[c]! |= 1 << bit;
}

/**
 * Whether a text (one, or a slice of one already scanned) holds `min` consecutive characters of `cls`; and, when a
 * scan answers for the slice (detectors/scan.ts), where the literals of a group occur in it and whether a run ends a
 * line: the readings then ask those instead of reading the slice again.
 */
export interface RunQuery {
  hasRun(cls: RunClass, min: number): boolean;
  /**
   * Whether `test` holds at the start (relative to the slice) of some occurrence of `group`'s literals lying inside
   * it, a word-start literal's word start checked there; asked of each in order of their ends until it does.
   */
  someLiteral?(group: ScanLiterals, test: (start: number) => boolean): boolean;
  /** Whether `min` or more characters of `cls` run up to a line break (`\n`, or `\r\n`) in the slice. */
  runEndsLine?(cls: RunClass, min: number): boolean;
}

const PLAIN = new Map<string, RegExp>();

/** The plain answer: `/[class]{min}/.test(text)`. */
export function holdsRun(text: string, cls: RunClass, min: number): boolean {
  const key = `${cls}:${min}`;
  let re = PLAIN.get(key);
  if (re === undefined) PLAIN.set(key, (re = new RegExp(`[${RUN_CLASS_CHARS[cls]}]{${min}}`)));
  return re.test(text);
}

/**
 * `holdsRun(text, cls, min)` without reading every character: a run of `min` covers one position ≡ min − 1 (mod
 * min), so only those are probed, and the run around a probe in the class is measured (prose is read only around
 * the probes). For a text no scan answers for, where the expression tried the run from every position. The same
 * probes as `classRunsIn` below, which lists every run; this stops at the first `min` characters of one.
 */
export function hasRunProbed(text: string, cls: RunClass, min: number): boolean {
  return hasClassRun(text, RUN_CLASS_BITS, 1 << RUN_CLASSES.indexOf(cls), min);
}

/**
 * `hasRunProbed` for any class of ASCII characters (`(table[c] & bit) !== 0`): whether `text` holds `min` consecutive
 * characters of it, read around every `min`-th character.
 */
export function hasClassRun(text: string, table: Uint8Array, bit: number, min: number): boolean {
  if (min < 1) return true;
  const n = text.length;
  for (let p = min - 1; p < n; p += min) {
    let c = text.charCodeAt(p);
    if (c >= 128 || (table[c]! & bit) === 0) continue;
    let a = p;
    while (a > 0 && (c = text.charCodeAt(a - 1)) < 128 && (table[c]! & bit) !== 0) a--;
    let b = p + 1;
    while (b < n && b - a < min && (c = text.charCodeAt(b)) < 128 && (table[c]! & bit) !== 0) b++;
    if (b - a >= min) return true;
    // `b` ends the run: the next probe is past it.
    while (p + min < b) p += min;
  }
  return false;
}

/**
 * The maximal runs of `min` or more characters of a class (`(table[c] & bit) !== 0`, ASCII only) inside
 * `text[start, end)`, pushed on `out` as (start, end) pairs in text order. A run that long holds one of the probes
 * `p`, `p + min`, … where `p` is `min − 1` past the first place a run can start (`start`, or past the end of the last
 * run read): a probe outside the class is passed over, and from one inside it the run is read back and forth to its
 * ends. Text where the class is rare or short-lived is read at a fraction of its characters; a long run once.
 */
export function classRunsIn(text: string, start: number, end: number, table: Uint8Array, bit: number, min: number, out: number[]): void {
  let from = start;
  for (let probe = start + min - 1; probe < end; ) {
    let c = text.charCodeAt(probe);
    if (c >= 128 || (table[c]! & bit) === 0) {
      probe += min;
      continue;
    }
    let s = probe;
    for (; s > from; s--) {
      c = text.charCodeAt(s - 1);
      if (c >= 128 || (table[c]! & bit) === 0) break;
    }
    let e = probe + 1;
    for (; e < end; e++) {
      c = text.charCodeAt(e);
      if (c >= 128 || (table[c]! & bit) === 0) break;
    }
    if (e - s >= min) out.push(s, e);
    // `text[e]` is outside the class (or the region ends): the next run starts after it.
    from = e + 1;
    probe = e + min;
  }
}
