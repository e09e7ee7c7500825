import { createHmac } from 'node:crypto';
import { normaliseForFingerprint } from './fingerprint.js';
import { scanSend, scanShortValues, type ShortValueSpots } from './short-value-scan.js';

/**
 * Short private values for data flow (docs/data-flow.md, "Short values"): fingerprints of 20-gram runs miss data
 * shorter than about 40 characters, so a private read also keeps keyed hashes of the few **distinctive** short
 * values it holds, matched exactly (after the same normalisation: NFKC, lower case, letters and digits only):
 *
 * - **digit-heavy** values: ≥ 8 digits, at least 60% of the value, at least 4 different digits, not a date, a time,
 *   a version or IP address, an amount with thousands separators, or a run like 12345678 (an account, a card, a
 *   customer number); groups of digits (or capitals and digits) separated by single spaces or dashes count as
 *   one value (`4929 3812 7745 0016`, `DE89 3704 0044 0532 0130 00`);
 * - **mixed** values: ≥ 8 characters with ≥ 2 letters and ≥ 2 digits that switch between letters and digits at
 *   least three times (`Tr0ub4dor3`, `a1b2c3d4`, keys, ids), which ordinary words, numbers and code identifiers
 *   (`Float32Array`, `sha256sum`) do not;
 * - **labelled** values: what follows `password`, `PIN`, `passcode`, `account number`, `IBAN`, `API key`,
 *   `token`, `secret`, `SSN`, `card number`, `security code`… when it is ≥ 6 characters and not a plain word (it has
 *   a digit, or a symbol or upper case letter inside: `password: Summer!24` yes, `password is required` no).
 *
 * An outgoing text is cut the same ways (words, their letter-and-digit runs, digit groups, a short field whole) and
 * each piece of 6–64 characters is looked up; one match is enough. Stored hashes are HMAC-SHA256 under a key
 * derived from the store's flow key, truncated to 64 bits and prefixed `t` (gram fingerprints are bare hex).
 */

/** Values longer than this are left to the gram fingerprints. */
export const MAX_VALUE = 64;
const MIN_SHAPED = 8;
const MIN_LABELLED = 6;
/** Distinctive values `distinctiveValues` returns unless told otherwise; a private read keeps `max_per_read` (read-hashes.ts). */
export const MAX_VALUES_PER_READ = 256;

/** A word's leading and trailing punctuation; a run is read from its first character only. */
export const TRIM = /^[\s"'`()[\]{}<>,;:.!?*_]+|(?<![\s"'`()[\]{}<>,;:.!?*_])[\s"'`()[\]{}<>,;:.!?*_]+$/g;
/** Groups (each with a digit) of digits or capitals and digits split by single spaces or dashes: card, account, IBAN, phone numbers. */
const GROUPS = /(?<![\p{L}\p{N}])(?=[A-Z0-9]{0,5}\d)[A-Z0-9]{2,6}(?:[ -](?=[A-Z0-9]{0,5}\d)[A-Z0-9]{1,6}){1,8}(?![\p{L}\p{N}])/gu;
/**
 * A label, then the value it names. Between them the white space goes with what it follows (`\s*(?:is\s*)?(?:=\s*)?`),
 * never in three runs side by side (`\s*(?:is)?\s*[:=]?\s*`): those split a run of white space every way before
 * failing, so `password` and 8 KB of spaces took minutes (test/core/text/short-value-label.test.ts keeps the former
 * expression and compares every match).
 */
export const LABEL =
  /\b(?:pass(?:word|wd|code|phrase)|pwd|pin(?:\s*(?:code|number))?|otp|one[- ]time (?:code|password)|secret(?:\s*key)?|api[ _-]?key|access[ _-]?(?:key|token)|auth(?:orization)?[ _-]?(?:code|token)|token|acc(?:ou)?n?t\.?(?:[ _-]?(?:number|num|no\.?|#|id))?|iban|bic|swift(?: code)?|routing(?:[ _-]?(?:number|no\.?))?|sort[ _-]?code|ssn|social security(?: number)?|(?:credit |debit )?card(?:[ _-]?(?:number|no\.?))?|cvv2?|cvc|security code|verification code|recovery code|member(?:ship)?[ _-]?(?:id|number|no\.?)|policy (?:number|no\.?)|licen[cs]e[ _-]?key|serial(?: number)?)\b\.?\s*(?:(?:is|was|:|=|#|-|→)\s*)?(?:[:=]\s*)?["'`]?([^\s"'`,;]{4,80})/giu;

function digitsOf(s: string): number {
  let d = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) d++;
  }
  return d;
}

/** Switches between letters and digits in normalised `n`. */
function switches(n: string): number {
  let k = 0;
  let prev: boolean | undefined;
  for (let i = 0; i < n.length; i++) {
    const c = n.charCodeAt(i);
    const digit = c >= 48 && c <= 57;
    if (prev !== undefined && digit !== prev) k++;
    prev = digit;
  }
  return k;
}

/** 12345678, 87654321, 13579135…: a digit string whose steps are all equal. */
function steady(n: string): boolean {
  if (!/^\d+$/.test(n)) return false;
  const step = (n.charCodeAt(1) - n.charCodeAt(0) + 10) % 10;
  for (let i = 2; i < n.length; i++) if ((n.charCodeAt(i) - n.charCodeAt(i - 1) + 10) % 10 !== step) return false;
  return true;
}

/** Raw shapes of ordinary numbers that are never distinctive: dates, times, versions and IPs, grouped amounts. */
const ORDINARY_NUMBER = [
  /^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[T_ ]?\d{1,2}(?::?\d{2}(?::?\d{2}(?:\.\d+)?)?)?)?Z?$/i,
  /^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$/,
  /\d:\d{2}/,
  /^v?\d+(?:\.\d+){2,}$/i,
  /^[$€£¥]?\d{1,3}(?:[,.' ]\d{3})+(?:[.,]\d+)?$/,
  /^\d+[.,]\d+$/,
];

/** YYYYMMDD or DDMMYYYY / MMDDYYYY with a plausible year: a date written without separators. */
function compactDate(n: string): boolean {
  if (n.length !== 8 || !/^\d+$/.test(n)) return false;
  const plausible = (y: number, m: number, d: number) => y >= 1900 && y <= 2100 && m >= 1 && m <= 12 && d >= 1 && d <= 31;
  const a = (i: number, j: number) => Number(n.slice(i, j));
  return plausible(a(0, 4), a(4, 6), a(6, 8)) || plausible(a(4, 8), a(2, 4), a(0, 2)) || plausible(a(4, 8), a(0, 2), a(2, 4));
}

/** Whether a value (raw text and its normalised form) is distinctive by shape alone. */
export function distinctiveShape(raw: string, n: string): boolean {
  if (n.length < MIN_SHAPED || n.length > MAX_VALUE) return false;
  const digits = digitsOf(n);
  const letters = n.length - digits;
  if (digits >= 8 && digits / n.length >= 0.6) {
    if (new Set(n.replace(/\D/g, '')).size < 4) return false;
    if (ORDINARY_NUMBER.some((re) => re.test(raw)) || compactDate(n) || steady(n)) return false;
    return true;
  }
  return digits >= 2 && letters >= 2 && switches(n) >= 3;
}

/** A labelled value that is not a plain word: a digit, or a symbol or upper case letter after its first character. */
function notPlainWord(raw: string): boolean {
  return /\d/.test(raw) || /[^\p{L}\p{N}]/u.test(raw) || /\p{Lu}/u.test(raw.slice(1));
}

/**
 * Pieces of a word: the whole word, then its letter-and-digit runs when it has two or more (`acct#12345678` → also
 * `12345678`): the non-empty pieces of `word.split(/[^\p{L}\p{N}]+/u)`, which are the matches of LETTER_DIGIT_RUN.
 * Found one at a time, so a megabyte-long word (a base64 result) is read only as far as its values are wanted.
 */
function* pieces(word: string): Generator<string> {
  yield word;
  let first: string | undefined;
  for (let at = 0, count = 0; ; count++) {
    // Set before each search: another word's pieces may have been read in between.
    LETTER_DIGIT_RUN.lastIndex = at;
    const m = LETTER_DIGIT_RUN.exec(word);
    if (m === null) return;
    at = LETTER_DIGIT_RUN.lastIndex;
    if (count === 0) first = m[0];
    else {
      if (count === 1) yield first!;
      yield m[0];
    }
  }
}
const LETTER_DIGIT_RUN = /[\p{L}\p{N}]+/gu;

const TWO_DIGITS = /\d\D*\d/;

/**
 * Whether `s` holds more than `max` ASCII letters and digits: then its normalised form (normaliseForFingerprint) is
 * longer than `max`, since NFKC keeps an ASCII letter or digit as one letter or digit (ASCII characters compose
 * with nothing but combining marks, which leave one letter) and lower case maps it to one. Stops at the first
 * `max + 1`, so a megabyte-long word is not read, let alone normalised, to be dropped.
 */
function moreAsciiAlnumThan(s: string, max: number): boolean {
  if (s.length <= max) return false;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) && ++n > max) return true;
  }
  return false;
}

/** LABEL and GROUPS, anchored where they are tried (`lastIndex`). */
const LABEL_AT = new RegExp(LABEL.source, 'iuy');
const GROUPS_AT = new RegExp(GROUPS.source, 'uy');

/**
 * The distinctive short values of a private read, normalised, at most `max`: labelled values, then digit groups,
 * then values among the words, each search in the order of the text. One scan (`scanShortValues`) finds where each
 * search can match; the regular expressions run only there, anchored, skipping places inside the previous match as a
 * global search does, so the values and their order are those of matching over the whole text. `spots`: that scan of
 * `text`, when the caller made it already (guard/read-hashes.ts, with the fingerprints' letters).
 */
export function distinctiveValues(text: string, max = MAX_VALUES_PER_READ, spots: ShortValueSpots = scanShortValues(text)): string[] {
  const out = new Set<string>();
  const add = (n: string) => {
    if (out.size < max && n.length <= MAX_VALUE) out.add(n);
    return out.size >= max;
  };
  let from = 0;
  for (const at of spots.labels) {
    if (at < from) continue;
    LABEL_AT.lastIndex = at;
    const m = LABEL_AT.exec(text);
    if (!m) continue;
    from = LABEL_AT.lastIndex;
    const raw = (m[1] ?? '').replace(TRIM, '');
    const n = normaliseForFingerprint(raw);
    if (n.length >= MIN_LABELLED && notPlainWord(raw) && add(n)) return [...out];
  }
  from = 0;
  for (const at of spots.groups) {
    if (at < from) continue;
    GROUPS_AT.lastIndex = at;
    const m = GROUPS_AT.exec(text);
    if (!m) continue;
    from = GROUPS_AT.lastIndex;
    const n = normaliseForFingerprint(m[0]);
    if (distinctiveShape(m[0], n) && add(n)) return [...out];
  }
  for (let i = 0; i < spots.words.length; i += 2) {
    const w = text.slice(spots.words[i], spots.words[i + 1]).replace(TRIM, '');
    // Digit-heavy and mixed values both have two digits or more; most words have none.
    if (w.length === 0 || !TWO_DIGITS.test(w) || ORDINARY_NUMBER.some((re) => re.test(w))) continue; // not its parts either (3.14159265)
    for (const p of pieces(w)) {
      // Too long to be a value however it normalises: a base64 result is one megabyte-long word.
      if (moreAsciiAlnumThan(p, MAX_VALUE)) continue;
      const n = normaliseForFingerprint(p);
      if (distinctiveShape(p, n) && add(n)) return [...out];
    }
  }
  return [...out];
}

/**
 * The pieces of outgoing texts to look up, normalised, 6–64 characters: each text whole when it is short (a field
 * holding just the value, however spaced or punctuated), digit groups, and each word and its letter-and-digit runs
 * that could be a kept value (a digit in it, or a symbol or upper case letter inside: plain lower-case words never
 * are, which keeps the lookups to a few per hundred words of prose). Every piece of the text is considered: no cap
 * but the size of the text.
 */
export function outgoingPieces(texts: readonly string[]): string[] {
  const out = new Set<string>();
  const add = (n: string) => {
    if (n.length >= MIN_LABELLED && n.length <= MAX_VALUE) out.add(n);
  };
  for (const t of texts) {
    if (t.length <= 4 * MAX_VALUE) add(normaliseForFingerprint(t));
    // One scan finds where a digit group can start and which words are not plain; the rest is as over every word.
    const spots = scanSend(t);
    let from = 0;
    for (const at of spots.groups) {
      if (at < from) continue;
      GROUPS_AT.lastIndex = at;
      const m = GROUPS_AT.exec(t);
      if (!m) continue;
      from = GROUPS_AT.lastIndex;
      add(normaliseForFingerprint(m[0]));
    }
    for (let i = 0; i < spots.words.length; i += 2) {
      const w = t.slice(spots.words[i], spots.words[i + 1]).replace(TRIM, '');
      if (w.length === 0 || !notPlainWord(w)) continue;
      for (const p of pieces(w)) add(normaliseForFingerprint(p));
    }
  }
  return [...out];
}

/** Keyed hashes of normalised values (`t` + 16 hex), under a key derived from the store's flow key. */
export function createValueHasher(flowKey: Buffer): (normalised: string) => string {
  const key = createHmac('sha256', flowKey).update('quadguard/flow/short-values/v1').digest();
  return (n) => `t${createHmac('sha256', key).update(n).digest('hex').slice(0, 16)}`;
}

/** Whether a stored fingerprint is a short-value hash (one match of those is enough). */
export function isValueHash(h: string): boolean {
  return h.charCodeAt(0) === 116; // 't'
}

/** Normalised lengths of a short line kept: below, common phrases; above, the gram fingerprints match it often enough. */
const MIN_LINE = 20;
const MAX_LINE = 96;
/** Lines kept per read. */
export const MAX_LINES_PER_READ = 256;
/** Where a text is cut into lines and sentences. */
const LINE_BREAK = /\r?\n|(?<=[.!?;])\s+/g;

/**
 * The short distinctive lines of a text, normalised: each line and sentence (and, for a `Label: value` line, its
 * value) of 20–96 letters and digits with three words or more and something particular in it — a digit, or a
 * capitalised word after the first (a name, a project, a place). A private line this short yields fewer gram
 * fingerprints than `min_matches`, so a read keeps it whole, and a send is cut the same way and looked up exactly:
 * a ~35-character private line sent unchanged (as a line, a sentence, a field or a URL parameter) is found.
 * Boilerplate ("Please let me know if you have any questions.") has neither and is not kept.
 */
export function shortLines(text: string, max = MAX_LINES_PER_READ): string[] {
  const out = new Set<string>();
  // The pieces of `text.split(LINE_BREAK)`, taken one at a time (each separator match is not empty, so the leftmost
  // match from where the last one ended is where split cuts next): a long text stops being cut once `max` lines are
  // kept, and a piece too short to hold a line is never copied.
  LINE_BREAK.lastIndex = 0;
  for (let from = 0; from <= text.length && out.size < max; ) {
    const m = LINE_BREAK.exec(text);
    const end = m ? m.index : text.length;
    const at = from;
    from = m ? m.index + m[0].length : text.length + 1;
    if (end - at < MIN_LINE) continue;
    const line = text.slice(at, end).trim();
    if (line.length < MIN_LINE || line.length > 4 * MAX_LINE) continue;
    // eslint-disable-next-line regexp/no-super-linear-backtracking -- anchored (one start) and the line is at most 4 × MAX_LINE = 384 characters (checked just above)
    const value = /^[\w -]{1,30}:\s+(.+)$/.exec(line)?.[1];
    for (const l of value !== undefined ? [line, value] : [line]) {
      const n = normaliseForFingerprint(l);
      if (n.length < MIN_LINE || n.length > MAX_LINE) continue;
      const words = l.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
      if (words.length < 3 || !(/\d/.test(l) || words.slice(1).some((w) => /^\p{Lu}/u.test(w)))) continue;
      out.add(n);
    }
  }
  return [...out];
}
