/**
 * Exact short cuts of the injection scorer: prefilters that rule out, before the full computation, what provably
 * cannot fire (a run regex anchored on its rare character, a sentence without any word a cue needs). Each gives
 * the answer of the full computation; `shortcuts.on = false` switches every one of them off, which only the
 * equivalence tests do (test/detectors/injection-shortcuts.test.ts compares both paths).
 */
export const shortcuts = { on: true };

/**
 * `text.split(/(?<=[marks])\s+(?=[next])/)` without a lookbehind tried at every position: `re` is
 * /[marks]\s+(?=[next])/g, and each of its matches splits after the mark and drops the white space. The same
 * pieces: a split of the lookbehind form starts right after a mark, takes the whole run of white space (a shorter
 * run is followed by white space, not by [next]), and the scan resumes after it, where no mark precedes.
 */
export function splitAfterMarks(text: string, re: RegExp): string[] {
  const out: string[] = [];
  let from = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    out.push(text.slice(from, m.index + 1));
    from = m.index + m[0].length;
  }
  out.push(text.slice(from));
  return out;
}

/**
 * `text.split(/\r?\n|\\n/, limit)` (or `/\r?\n/` when `escapedNewline` is false) by the plain string split when
 * the text holds no backslash-n: the pieces between line feeds, each without the one carriage return that ended
 * it before its line feed (a piece that ends the text keeps its carriage return, as with the regex).
 */
export function splitLines(text: string, escapedNewline: boolean, limit?: number): string[] {
  if (!shortcuts.on || (escapedNewline && text.includes('\\n'))) return text.split(escapedNewline ? /\r?\n|\\n/ : /\r?\n/, limit);
  const out = text.split('\n', limit);
  let end = 0;
  for (let i = 0; i < out.length; i++) {
    const piece = out[i] as string;
    end += piece.length;
    // Followed by a line feed (every piece but the text's last): the regex took the carriage return with it.
    if (text.charCodeAt(end) === 10 && piece.charCodeAt(piece.length - 1) === 13) out[i] = piece.slice(0, -1);
    end++;
  }
  return out;
}
