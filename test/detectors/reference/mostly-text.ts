/** `isMostlyText` (detectors/injection/encoded-payload.ts) as it was: the string iterator and a regex per character. */
export function isMostlyText(s: string): boolean {
  if (s.length < 12) return false;
  let printable = 0;
  let letters = 0;
  let spaces = 0;
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (c === 0xfffd) continue;
    if (c >= 32 || c === 9 || c === 10 || c === 13) printable++;
    if (/[A-Za-z]/.test(ch)) letters++;
    if (ch === ' ') spaces++;
  }
  return printable / s.length > 0.95 && letters / s.length > 0.5 && spaces >= 2;
}
