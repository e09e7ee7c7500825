/** Characters of base64 and base64url (1), also hex digits (2), and `=` (4): readings.ts's table. */
const RUN_CLASS = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') RUN_CLASS[c.charCodeAt(0)] = 1;
for (const c of '0123456789abcdefABCDEF') RUN_CLASS[c.charCodeAt(0)] = 3;
RUN_CLASS[61] = 4;

/** `runs` (core/text/readings.ts, now `encodedRuns`) as it was: one loop over every character. */
export function encodedRuns(s: string, bit: number, min: number, pad: number): number[] {
  const out: number[] = [];
  let start = -1;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 0;
    if (c < 128 && (RUN_CLASS[c]! & bit) !== 0) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start >= min) {
      let end = i;
      while (end - i < pad && end < s.length && s.charCodeAt(end) === 61) end++;
      out.push(start, end);
      i = end - 1;
    }
    start = -1;
  }
  return out;
}
