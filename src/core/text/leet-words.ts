/**
 * The words the leet reading undoes (readings.ts `unleet`), and the passages that hold the three it needs close
 * together, found by reading only the runs where letters meet digits: the word expression, tried from every position,
 * read each word of a long text again through two lookaheads, and most texts hold no such word.
 */

/** Digits standing for letters inside words ("1gn0r3"): three or more of `[A-Za-z0-9@$]` with a letter and one of `[013457@$]`. */
const LEET_WORD = /\b(?=[A-Za-z0-9@$]*[A-Za-z])(?=[A-Za-z0-9@$]*[013457@$])[A-Za-z0-9@$]{3,}\b/g;
const FIRST_LEET_WORD = new RegExp(LEET_WORD.source);

/** A counted leet word closer than this (characters from the end of the one before) belongs to the same passage. */
export const LEET_GAP = 400;
/** A passage is read with its line around it, up to this many characters on each side (cut at white space). */
export const LEET_CONTEXT = 400;

/**
 * The passages of `text` written in leetspeak, as `[start, end)`: runs of three or more leet words that count (a
 * letter and a digit, and not a hex word of eight or more), each within `LEET_GAP` characters of the one before,
 * widened to their line (at most `LEET_CONTEXT` characters each way, cut at white space); overlapping passages are
 * joined. Found wherever they lie, so an order written in leet 20 KB into a result is read as one at its start is.
 * Words far apart (a timestamp, a size, a username in a long page) make no passage.
 *
 * A match lies inside one run of `[A-Za-z0-9@$]`, and a run holds at most one: the greedy class ends a match at the
 * last word boundary it can reach in the run, and a later match would have to end at a later one. So only runs of
 * three or more characters holding a letter, a digit and one of `[013457@$]` can hold a counted word, and each is
 * asked alone: the expression on the run with the character on each side of it (what its word boundaries read).
 * Such a run holds a letter next to one of `[0-9@$]` (where its letters meet its other characters), so only the runs
 * around those places (`LETTER_THEN_OTHER`, `OTHER_THEN_LETTER`: native searches) are read; the rest of the text is
 * not read character by character (a pass over every character cost about twice the two searches on prose).
 */
export function leetPassages(text: string): Array<[number, number]> {
  const passages: Array<[number, number]> = [];
  let first = 0;
  let lastEnd = 0;
  let words = 0;
  const close = (): void => {
    if (words < 3) return;
    const from = widen(text, first, -1);
    const to = widen(text, lastEnd, 1);
    const prev = passages[passages.length - 1];
    if (prev !== undefined && from <= prev[1]) prev[1] = to;
    else passages.push([from, to]);
  };
  const len = text.length;
  let letterFirst = meeting(LETTER_THEN_OTHER, text, 0);
  let otherFirst = meeting(OTHER_THEN_LETTER, text, 0);
  for (;;) {
    const at = letterFirst < otherFirst ? letterFirst : otherFirst;
    if (at >= len) break;
    // The run around that place, and the kinds of character it holds.
    let start = at;
    while (start > 0 && kindAt(text, start - 1) !== 0) start--;
    let seen = 0;
    let end = start;
    // Past the text's end `charCodeAt` is NaN, of no kind: the run ends there too.
    for (let kind = kindAt(text, end); kind !== 0; kind = kindAt(text, ++end)) seen |= kind;
    if (seen === ALL && end - start >= 3) {
      const from = start > 0 ? start - 1 : 0;
      const m = FIRST_LEET_WORD.exec(text.slice(from, end + 1));
      if (m !== null && counts(m[0])) {
        const wordStart = from + m.index;
        if (words > 0 && wordStart - lastEnd > LEET_GAP) {
          close();
          words = 0;
        }
        if (words === 0) first = wordStart;
        words++;
        lastEnd = wordStart + m[0].length;
      }
    }
    // The next runs: a meeting place lies inside one run, and the character at `end` is in none.
    if (letterFirst < end) letterFirst = meeting(LETTER_THEN_OTHER, text, end);
    if (otherFirst < end) otherFirst = meeting(OTHER_THEN_LETTER, text, end);
  }
  close();
  return passages;
}

/**
 * From `at`, the passage's edge going `way` (−1: back, +1: on): the line's start or end when it lies within
 * `LEET_CONTEXT` characters, else the white space nearest that distance on the near side (the text's edge when none).
 */
function widen(text: string, at: number, way: -1 | 1): number {
  if (way < 0) {
    const line = text.lastIndexOf('\n', at - 1) + 1;
    if (at - line <= LEET_CONTEXT) return line;
    const cut = text.slice(at - LEET_CONTEXT, at).search(/\s/);
    return cut < 0 ? at : at - LEET_CONTEXT + cut + 1;
  }
  const nl = text.indexOf('\n', at);
  const line = nl < 0 ? text.length : nl;
  if (line - at <= LEET_CONTEXT) return line;
  const slice = text.slice(at, at + LEET_CONTEXT);
  const cut = Math.max(slice.lastIndexOf(' '), slice.lastIndexOf('\t'));
  return cut < 0 ? at : at + cut;
}

/**
 * `text` with `f` applied to each match of LEET_WORD, as `text.replace(LEET_WORD, f)`, found run by run. The expression
 * on the whole text is tried at every word boundary, and inside a run of `[A-Za-z0-9@$]` with no letter (`$1$1…`:
 * a boundary at each `$`) each try reads the run to its end before it fails: a 32 KB run cost 140 ms. A run without a
 * letter or without one of `[013457@$]` holds no match (the two lookaheads read only the run); any other run holds
 * at most one (see `leetPassages`), found by the expression on the run with the character on each side.
 */
export function replaceLeetWords(text: string, f: (word: string) => string): string {
  return text.replace(LEET_RUN, (run: string, at: number) => {
    if (!HAS_LETTER.test(run) || !HAS_STAND_IN.test(run)) return run;
    const from = at > 0 ? at - 1 : 0;
    const m = FIRST_LEET_WORD.exec(text.slice(from, at + run.length + 1));
    if (m === null) return run;
    const start = m.index + from - at;
    return run.slice(0, start) + f(m[0]) + run.slice(start + m[0].length);
  });
}

const LEET_RUN = /[A-Za-z0-9@$]{3,}/g;
const HAS_LETTER = /[A-Za-z]/;
const HAS_STAND_IN = /[013457@$]/;

/** Where the first match of `re` (two characters, global) at or after `from` starts; the text's length when none. */
function meeting(re: RegExp, text: string, from: number): number {
  re.lastIndex = from;
  // Two characters matched: they are the two before `lastIndex` (no match array is made).
  return re.test(text) ? re.lastIndex - 2 : text.length;
}

/** A letter next to one of `[0-9@$]`, each way round: a run that holds a letter and a digit has one where the two kinds meet. */
const LETTER_THEN_OTHER = /[A-Za-z][0-9@$]/g;
const OTHER_THEN_LETTER = /[0-9@$][A-Za-z]/g;

/** What the character at `i` of `text` is of `[A-Za-z0-9@$]` (0: not in the class, it ends a run). */
function kindAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? KIND[c]! : 0;
}

/** A leet word that counts: with a letter and a digit, and not a hex word of eight or more (a version, an id, a hash). */
function counts(word: string): boolean {
  if (/^[0-9a-f]+$/i.test(word) && word.length >= 8) return false;
  return /[A-Za-z]/.test(word) && /\d/.test(word);
}

const LETTER = 1;
const DIGIT = 2;
const LEET = 4;
/** Every kind a counted word holds. */
const ALL = LETTER | DIGIT | LEET;
/** What each ASCII character of `[A-Za-z0-9@$]` is (0: not in the class, it ends a run). */
const KIND = new Uint8Array(128);
for (let c = 65; c <= 90; c++) KIND[c] = KIND[c + 32] = LETTER;
for (const d of '0123456789') KIND[d.charCodeAt(0)] = '013457'.includes(d) ? DIGIT | LEET : DIGIT;
KIND[64] = LEET;
KIND[36] = LEET;
