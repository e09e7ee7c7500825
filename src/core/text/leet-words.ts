/**
 * The words the leet reading undoes (readings.ts `unleet`), and whether a text holds the three it needs, found in one
 * pass over char codes: the word expression, tried from every position, read each word of a long text again through
 * two lookaheads, and most texts hold no such word.
 */

/** Digits standing for letters inside words ("1gn0r3"): three or more of `[A-Za-z0-9@$]` with a letter and one of `[013457@$]`. */
export const LEET_WORD = /\b(?=[A-Za-z0-9@$]*[A-Za-z])(?=[A-Za-z0-9@$]*[013457@$])[A-Za-z0-9@$]{3,}\b/g;
const FIRST_LEET_WORD = new RegExp(LEET_WORD.source);

/**
 * Whether `text` holds three leet words that count (a letter and a digit, and not a hex word of eight or more): the
 * count `unleet` makes over every match of LEET_WORD, reaching three.
 *
 * A match lies inside one run of `[A-Za-z0-9@$]`, and a run holds at most one: the greedy class ends a match at the
 * last word boundary it can reach in the run, and a later match would have to end at a later one. So only runs of
 * three or more characters holding a letter, a digit and one of `[013457@$]` can hold a counted word, and each is
 * asked alone: the expression on the run with the character on each side of it (what its word boundaries read).
 */
export function holdsThreeLeetWords(text: string): boolean {
  if (!LETTER_THEN_OTHER.test(text) && !OTHER_THEN_LETTER.test(text)) return false;
  let n = 0;
  let start = 0;
  let seen = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    const kind = c < 128 ? KIND[c]! : 0;
    if (kind !== 0) {
      seen |= kind;
      continue;
    }
    if (seen === ALL && i - start >= 3) {
      const m = FIRST_LEET_WORD.exec(text.slice(start > 0 ? start - 1 : 0, i + 1));
      if (m !== null && counts(m[0]) && ++n >= 3) return true;
    }
    seen = 0;
    start = i + 1;
  }
  return false;
}

/**
 * A letter next to one of `[0-9@$]`, each way round: a run that holds a letter and a digit has one where the two kinds
 * meet. Two native searches rule out a text of words and numbers apart (the pass below read it to its end at ~2 ns a
 * character; the two expressions at about half that, as one alternation at more).
 */
const LETTER_THEN_OTHER = /[A-Za-z][0-9@$]/;
const OTHER_THEN_LETTER = /[0-9@$][A-Za-z]/;

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
