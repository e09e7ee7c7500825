/**
 * `longSentencePieces` (detectors/injection/sentences.ts) as it was before it skipped a token's pieces: every piece
 * cut, trimmed and tested, then the token-only ones after the first left out.
 */
export function longSentencePieces(s: string, maxLen = 500): string[] {
  const out: string[] = [];
  const half = maxLen / 2;
  const keep = (piece: string): void => {
    if (out.length === 0 || !/^[\x21-\x7e]*$/.test(piece)) out.push(piece);
  };
  for (let start = 0; ; ) {
    if (s.length - start <= maxLen) {
      keep(s.slice(start).trim());
      return out;
    }
    let end = start + maxLen;
    while (end > start + half && s.charCodeAt(end) !== 32) end--;
    if (end === start + half) end = start + maxLen;
    keep(s.slice(start, end).trim());
    let next = start + half;
    while (next < end && s.charCodeAt(next) !== 32) next++;
    start = next < end ? next + 1 : start + half;
  }
}
