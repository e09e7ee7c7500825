/**
 * Whether a text may hold the three leet words the leet reading needs (readings.ts `unleet`: matches of its word
 * expression with a letter and a digit), in one pass over char codes: the expression, tried from every position,
 * read each word of a long text again through two lookaheads, and most texts hold no such word.
 *
 * A match lies inside one run of `[A-Za-z0-9@$]`, and a run holds at most one: the greedy class ends a match at the
 * last word boundary it can reach in the run, and a later match would have to end at a later one. So a counted word
 * needs a run with a letter and a digit of its own: false when fewer than three runs hold both, and then `unleet`
 * gives nothing.
 */
export function mayHoldLeetWords(text: string): boolean {
  let runs = 0;
  let letter = false;
  let digit = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    const lower = c | 32;
    if (lower >= 97 && lower <= 122) letter = true;
    else if (c >= 48 && c <= 57) digit = true;
    else if (c !== 64 && c !== 36) {
      if (letter && digit && ++runs >= 3) return true;
      letter = false;
      digit = false;
    }
  }
  return false;
}
