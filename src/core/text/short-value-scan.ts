import { codeUnits, isLetterOrDigit, type Codes } from './letters.js';

/**
 * One pass over a private read for `distinctiveValues` (short-values.ts): where each of its three searches can find
 * something, so that the regular expressions run only there and no string is built for the rest. Each list is a
 * necessary condition of its search, never a sufficient one — the search itself still decides:
 *
 * - `labels`: where a label can start: a word boundary (in the sense of `\b` under the `iu` flags, whose word
 *   characters are [A-Za-z0-9_], the long s `ſ` and the Kelvin sign `K`) followed by three letters that begin one
 *   of the labels (case folded: `ſ` is an s, `K` a k);
 * - `groups`: where a group of digits can start: a run of 2–6 of [A-Z0-9] with a digit, not after a letter or digit,
 *   followed by a space or a dash;
 * - `words` (start, end pairs): the words (`[^\s=:()[\]{}<>,;"'`|]+`) with two ASCII digits or more that can hold a
 *   value of 8 normalised characters: 8 ASCII letters and digits or more, or any character outside ASCII (NFKC can
 *   lengthen it).
 *
 * A private read's scan (`scanRead`) also finds the words that can be a name it holds whole (held-names.ts).
 */
export interface ShortValueSpots {
  labels: number[];
  groups: number[];
  words: number[];
}

/** The first three letters of every label of `LABEL` in short-values.ts. */
export const LABEL_PREFIXES = [
  'pas', 'pwd', 'pin', 'otp', 'one', 'sec', 'api', 'acc', 'aut', 'tok', 'iba', 'bic', 'swi', 'rou', 'sor', 'ssn', 'soc',
  'cre', 'deb', 'car', 'cvv', 'cvc', 'ver', 'rec', 'mem', 'pol', 'lic', 'ser',
] as const;

/** Where a word ends (`words` of `distinctiveValues`): the white space of `\s` and `=:()[]{}<>,;"'`|`. */
const WORD_SEPARATOR = /[\s=:()[\]{}<>,;"'`|]/;

/**
 * Whether code unit `c` is a `WORD_SEPARATOR`: for ASCII the expression's own answer, beyond it the white space of
 * `\s` written out (a test compares both for every code unit), so the table costs no 65,536 regex tests.
 */
export function isWordSeparator(c: number): boolean {
  if (c < 128) return WORD_SEPARATOR.test(String.fromCharCode(c));
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

const SEPARATOR = 1;
const DIGIT = 2;
const UPPER = 4;
const LOWER = 8;
/** ſ and K: letters of `/[a-z]/iu`. */
const FOLDED = 16;
const WIDE = 32;

let classes: Uint8Array | undefined;
/** The classes above of each UTF-16 code unit. */
function classTable(): Uint8Array {
  if (classes) return classes;
  const t = new Uint8Array(0x10000);
  for (let c = 0; c < 0x10000; c++) {
    let f = isWordSeparator(c) ? SEPARATOR : 0;
    if (c >= 48 && c <= 57) f |= DIGIT;
    else if (c >= 65 && c <= 90) f |= UPPER;
    else if (c >= 97 && c <= 122) f |= LOWER;
    else if (c === 0x17f || c === 0x212a) f |= FOLDED;
    if (c >= 128) f |= WIDE;
    t[c] = f;
  }
  return (classes = t);
}

/** Letter (1–26) of `c` as `/[a-z]/iu` folds it, 0 when it is none. */
function letterOf(c: number): number {
  if (c >= 97 && c <= 122) return c - 96;
  if (c >= 65 && c <= 90) return c - 64;
  if (c === 0x17f) return 19; // ſ
  if (c === 0x212a) return 11; // K
  return 0;
}

const PREFIX = new Uint8Array(27 * 27 * 27);
for (const p of LABEL_PREFIXES) PREFIX[letterOf(p.charCodeAt(0)) * 729 + letterOf(p.charCodeAt(1)) * 27 + letterOf(p.charCodeAt(2))] = 1;

/** Whether the code point ending at `i` in `t` (a code unit, or a surrogate pair ending there) is a letter or digit. */
function letterOrDigitBefore(t: string, i: number): boolean {
  if (i < 0) return false;
  const c = t.charCodeAt(i);
  if (c < 128) return (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);
  if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
    const h = t.charCodeAt(i - 1);
    if (h >= 0xd800 && h <= 0xdbff) return isLetterOrDigit(((h - 0xd800) << 10) + (c - 0xdc00) + 0x10000);
  }
  return isLetterOrDigit(c);
}

export function scanShortValues(text: string): ShortValueSpots {
  return scanCodes(codeUnits(text), text, NO_NAMES).spots;
}

/** The lengths of the names a read's scan looks for (normalised characters), and how many words it keeps at most. */
export interface NameBounds {
  min: number;
  max: number;
  limit: number;
}
const NO_NAMES: NameBounds = { min: Infinity, max: 0, limit: 0 };

/** The spots of a private read, and its letters and digits as fingerprints take them (undefined unless it is ASCII). */
export interface ReadScan {
  spots: ShortValueSpots;
  /** `normalisedCodes(text)` (letters.ts) of an ASCII text, made in the same pass; undefined for any other text. */
  letters: Codes | undefined;
  /**
   * The words (start, end pairs, at most `limit` of them) that can be a name of `min` to `max` normalised characters:
   * an ASCII word with that many letters and digits; a word with characters outside ASCII when its letters, digits
   * and other characters are `min` or more and it is at most four times `max` long (NFKC decides its length).
   */
  names: number[];
}

/**
 * `scanShortValues` and, for an ASCII text, its normalised letters and digits in the same pass over one encoding:
 * a private read's hashes (guard/read-hashes.ts) need both, and the fingerprints' own pass (`normalisedCodes`)
 * encoded the text again and read it through once more. `names`: the words that can be a name it holds whole.
 */
export function scanRead(text: string, names: NameBounds = NO_NAMES): ReadScan {
  const u = codeUnits(text);
  const scan = scanCodes(u, text, names);
  // Bytes are the UTF-8 of an all-ASCII text (codeUnits), which NFKC leaves as it is: lower case and filtering is all.
  return { spots: scan.spots, letters: u instanceof Uint16Array ? undefined : u.subarray(0, scan.letters), names: scan.names };
}

/**
 * `scanShortValues` over the code units `u` of `text`. Behind the scan, it writes over `u` the ASCII letters and
 * digits it passes, lower case, and answers how many (`letters`): `u[0, letters)` is then the text's normalised form
 * when `u` holds an ASCII text (letters.ts `normalisedCodes`). A write never reaches a code unit not yet read: it
 * goes to an index at most the current one, and the look-ahead of the label test reads beyond it.
 */
function scanCodes(u: Codes, text: string, nameBounds: NameBounds): { spots: ShortValueSpots; letters: number; names: number[] } {
  const cls = classTable();
  const labels: number[] = [];
  const groups: number[] = [];
  const words: number[] = [];
  const names: number[] = [];
  const { min: nameMin, max: nameMax } = nameBounds;
  const nameEnds = 2 * nameBounds.limit;
  const len = u.length;
  // The current word (-1: between words), its ASCII digits and letters-and-digits, and its code units outside ASCII.
  let wordStart = -1;
  let digits = 0;
  let alnum = 0;
  let wide = 0;
  // The current run of [A-Z0-9] (-1: none) and whether it has a digit.
  let runStart = -1;
  let runDigit = false;
  // Whether the previous character is a word character of `\b` (iu) and no run is open: then a lower-case ASCII
  // letter (most characters) only counts.
  let prevWord = false;
  let plain = false;
  let letters = 0;
  for (let i = 0; i < len; i++) {
    const c = u[i]!;
    const f = cls[c]!;
    if (f === LOWER && plain) {
      alnum++;
      u[letters++] = c;
      continue;
    }
    if (f & (UPPER | DIGIT)) {
      if (runStart < 0) {
        runStart = i;
        runDigit = false;
      }
    } else if (runStart >= 0) {
      const n = i - runStart;
      if (runDigit && n >= 2 && n <= 6 && (c === 32 || c === 45) && !letterOrDigitBefore(text, runStart - 1)) groups.push(runStart);
      runStart = -1;
    }
    if (f & SEPARATOR) {
      if (wordStart >= 0) {
        if (digits >= 2 && (wide > 0 || alnum >= 8)) words.push(wordStart, i);
        if (alnum + wide >= nameMin && (wide > 0 ? i - wordStart <= 4 * nameMax : alnum <= nameMax) && names.length < nameEnds) names.push(wordStart, i);
      }
      wordStart = -1;
      prevWord = false;
      plain = false;
      continue;
    }
    if (wordStart < 0) {
      wordStart = i;
      digits = 0;
      alnum = 0;
      wide = 0;
    }
    if (f & DIGIT) {
      u[letters++] = c;
      digits++;
      alnum++;
      runDigit = true;
      prevWord = true;
    } else if (f & (UPPER | LOWER | FOLDED)) {
      if (!prevWord && i + 2 < len && PREFIX[letterOf(c) * 729 + letterOf(u[i + 1]!) * 27 + letterOf(u[i + 2]!)] === 1) labels.push(i);
      prevWord = true;
      if (f & WIDE) wide++;
      else {
        alnum++;
        u[letters++] = c | 32;
      }
    } else {
      prevWord = c === 95;
      if (f & WIDE) wide++;
    }
    plain = prevWord && runStart < 0;
  }
  if (wordStart >= 0) {
    if (digits >= 2 && (wide > 0 || alnum >= 8)) words.push(wordStart, len);
    if (alnum + wide >= nameMin && (wide > 0 ? len - wordStart <= 4 * nameMax : alnum <= nameMax) && names.length < nameEnds) names.push(wordStart, len);
  }
  return { spots: { labels, groups, words }, letters, names };
}

/**
 * One pass over an outgoing text for `outgoingPieces`: where a group of digits can start (as for a read), and the
 * words (start, end pairs) that can be a kept value: all but the plain ones — ASCII letters, none in upper case after
 * the first, between the characters a word is trimmed of (`.!?*_`; the other trimmed characters end a word).
 */
export function scanSend(text: string): Omit<ShortValueSpots, 'labels'> {
  const u = codeUnits(text);
  const cls = classTable();
  const groups: number[] = [];
  const words: number[] = [];
  const len = u.length;
  let wordStart = -1;
  // Where a word is: 0 leading trimmed characters, 1 the letters, 2 trailing trimmed characters, 3 not plain; 4
  // between words.
  let shape = 4;
  let runStart = -1;
  let runDigit = false;
  for (let i = 0; i < len; i++) {
    const c = u[i]!;
    const f = cls[c]!;
    if (f === LOWER && shape === 1 && runStart < 0) continue;
    if (f & (UPPER | DIGIT)) {
      if (runStart < 0) {
        runStart = i;
        runDigit = false;
      }
      if (f & DIGIT) runDigit = true;
    } else if (runStart >= 0) {
      const n = i - runStart;
      if (runDigit && n >= 2 && n <= 6 && (c === 32 || c === 45) && !letterOrDigitBefore(text, runStart - 1)) groups.push(runStart);
      runStart = -1;
    }
    if (f & SEPARATOR) {
      if (wordStart >= 0 && shape !== 1 && shape !== 2) words.push(wordStart, i);
      wordStart = -1;
      shape = 4;
      continue;
    }
    if (wordStart < 0) {
      wordStart = i;
      shape = 0;
    }
    const trimmed = c === 46 || c === 33 || c === 63 || c === 42 || c === 95;
    if (shape === 0) shape = trimmed ? 0 : f & (UPPER | LOWER) ? 1 : 3;
    else if (shape === 1) shape = f & LOWER ? 1 : trimmed ? 2 : 3;
    else if (shape === 2) shape = trimmed ? 2 : 3;
  }
  if (wordStart >= 0 && shape !== 1 && shape !== 2) words.push(wordStart, len);
  return { groups, words };
}
