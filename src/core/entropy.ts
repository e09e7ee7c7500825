/** Counts per UTF-16 code unit, reused (cleared after each use) by `shannonEntropy` of a long string. */
const UNIT_COUNTS = new Int32Array(65536);
/** Strings shorter than this are counted in a Map: clearing the order list costs more than it saves. */
const TABLE_MIN = 256;

/**
 * Shannon entropy of a string in bits per character (0 for the empty string), over its code points. A long string
 * without surrogates (every code point one unit) is counted in a table instead of a Map, and its terms summed in
 * the same order (first appearance), so the result is the same number.
 */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  if (s.length >= TABLE_MIN) {
    const order: number[] = [];
    let surrogate = false;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdfff) {
        surrogate = true;
        break;
      }
      if (UNIT_COUNTS[c]!++ === 0) order.push(c);
    }
    if (!surrogate) {
      let h = 0;
      for (const c of order) {
        const p = UNIT_COUNTS[c]! / s.length;
        h -= p * Math.log2(p);
        UNIT_COUNTS[c] = 0;
      }
      return h;
    }
    for (const c of order) UNIT_COUNTS[c] = 0;
  }
  return entropyByMap(s);
}

/** The plain count: code points in a Map (exported for the test that compares both). */
export function entropyByMap(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) {
    const p = c / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * Segments per character: the token is cut into words (`Get`, `user`, `ID`, `42`, `_`) and the count divided by
 * its length. Identifiers and prose-like names (`getUserAccountById2`, `MAX_RETRY_COUNT`) stay below 0.4; random
 * base62/base64 tokens sit around 0.55 (5th percentile 0.40 at 20 characters).
 */
export function segmentDensity(s: string): number {
  if (s.length === 0) return 0;
  // eslint-disable-next-line regexp/no-super-linear-move -- every character starts a match (the four alternatives cover them all) and [A-Z]+ gives back at most one capital to its lookahead: 16 / 64 KB of capitals then a lowercase letter 0.10 / 0.05 ms
  return (s.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^A-Za-z0-9]+/g) ?? []).length / s.length;
}
