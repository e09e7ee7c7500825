/**
 * The sentences the exfiltration request (action-command.ts `exfiltrationRequest`) reads, found only where one can
 * score. The request reads the sentences of `text.split(SENTENCE)`, each cut to `MAX_SENTENCE` characters, and scores
 * the first whose cut holds a secret's name (its SECRET expression) with a move, a target and a request marker. Every
 * SECRET match starts at a word's start with one of `SECRET_STEM`'s stems (also one the cut ends inside), and a
 * sentence starts after a break of white space, so its cut holds a SECRET match only when a STEM match starts in its
 * first MAX_SENTENCE characters. One expression finds the stems; for each, the sentence around it is found from the
 * last line feed before it (where the split's state is known, see `sentenceAround`), and the sentences are given in
 * text order, each once. test/detectors/request-cues.test.ts compares this with
 * test/detectors/reference/injection-request-cues.ts (every sentence).
 */

/** Sentences: a stop followed by space (an address's dots are not stops), or a line break. */
const SENTENCE = /(?<=[.!?])\s+|\n+/g;
export const MAX_SENTENCE = 600;

/** A prefix of every match of action-command.ts's SECRET, at a word's start (case-insensitive like it). */
const SECRET_STEM = /\b(?:credential|pass(?:word|phrase|code)|pin|api|access|auth|bearer token|secret|private|ssh|login |2fa code|one[ -]time|verification|security|recovery |seed phrase)/gi;

/** The sentences of `text.split(SENTENCE)` that hold a stem in their first MAX_SENTENCE characters, in order. */
export function* requestSentences(text: string): Generator<string> {
  SECRET_STEM.lastIndex = 0;
  for (let m = SECRET_STEM.exec(text); m !== null; m = SECRET_STEM.exec(text)) {
    const [start, end] = sentenceAround(text, m.index);
    if (m.index < start + MAX_SENTENCE) yield text.slice(start, end);
    // The stems inside this sentence belong to it.
    SECRET_STEM.lastIndex = Math.max(end, m.index + 1);
  }
}

/**
 * The sentence of `text.split(SENTENCE)` that holds position `p` (not white space), as [start, end). Every line feed
 * lies in a break. Let `n` be the last line feed before `p`: when the run of white space around it follows a stop, one
 * break takes the whole run; otherwise the breaks there are its runs of line feeds, and the last ends right after `n`.
 * Either way the split is at a fresh position where that break ends, and between it and `p` the only breaks are a
 * stop and its white space: the expression, run from there, gives the breaks around `p`.
 */
function sentenceAround(text: string, p: number): [number, number] {
  const n = text.lastIndexOf('\n', p - 1);
  let from = 0;
  if (n !== -1) {
    let ws = n;
    while (ws > 0 && isSpace(text.charCodeAt(ws - 1))) ws--;
    const afterStop = ws > 0 && isStop(text.charCodeAt(ws - 1));
    from = n + 1;
    if (afterStop) while (from < text.length && isSpace(text.charCodeAt(from))) from++;
  }
  let start = from;
  SENTENCE.lastIndex = from;
  for (let b = SENTENCE.exec(text); b !== null; b = SENTENCE.exec(text)) {
    if (b.index > p) return [start, b.index];
    start = b.index + b[0].length;
  }
  return [start, text.length];
}

const isStop = (c: number): boolean => c === 46 || c === 33 || c === 63;

/** JavaScript's \s. */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
