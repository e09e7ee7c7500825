/** `printable` (core/text/readings.ts) as it was: the string iterator, one string per code point. */
export function printable(s: string): boolean {
  if (s.length === 0) return false;
  let bad = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c === 0xfffd || (c < 0x20 && c !== 9 && c !== 10 && c !== 13)) bad++;
  }
  return bad / s.length < 0.05;
}
