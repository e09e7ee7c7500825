/** Shannon entropy of a string in bits per character (0 for the empty string). */
export function shannonEntropy(s: string): number {
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
  return (s.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^A-Za-z0-9]+/g) ?? []).length / s.length;
}
