/**
 * Whether a text may hold the three leet words the leet reading needs (readings.ts `unleet`: matches of its word
 * expression, three or more characters of `[A-Za-z0-9@$]` with a letter and one of `[013457@$]`, that hold a digit),
 * in one pass over char codes: the expression, tried from every position, read each word of a long text again
 * through two lookaheads, and most texts hold no such word.
 *
 * A match lies inside one run of `[A-Za-z0-9@$]`, and a run holds at most one: the greedy class ends a match at the
 * last word boundary it can reach in the run, and a later match would have to end at a later one. So a counted word
 * needs a run of three or more characters with a letter, a digit and one of `[013457@$]` of its own: false when
 * fewer than three runs are such, and then `unleet` gives nothing.
 */
export function mayHoldLeetWords(text: string): boolean {
  let runs = 0;
  let start = 0;
  let seen = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    const kind = c < 128 ? KIND[c]! : 0;
    if (kind !== 0) {
      seen |= kind;
      continue;
    }
    if (seen === ALL && i - start >= 3 && ++runs >= 3) return true;
    seen = 0;
    start = i + 1;
  }
  return false;
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
