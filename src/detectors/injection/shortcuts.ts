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
