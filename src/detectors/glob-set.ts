import picomatch from 'picomatch';

/**
 * A list of picomatch globs asked as one test. `picomatch(globs, options)` tries each glob's matcher in turn, and
 * each builds two objects per input before its expression runs: over the two dozen credential-file globs of the
 * default book and every form of every path of a call, that was most of `path_name`'s own time. Here the globs'
 * expressions are joined into one, anchored at the start (each is anchored at both ends already, so the join matches
 * exactly where one of them does), and an input equal to a glob is a match, as picomatch's matcher has it (`a[b`
 * names itself whatever its expression). Expressions that would not join as they stand (flags not all alike, a
 * back-reference, whose group number the join would shift) are asked through picomatch itself. `test/detectors/glob-set.test.ts` compares the answers with picomatch's on every shipped book's
 * globs and generated ones.
 *
 * @example globSet(['**\/.env', '/etc/shadow'], { dot: true })('/srv/app/.env') // true
 */
export function globSet(globs: readonly string[], options: { dot: boolean }): (input: string) => boolean {
  if (globs.length === 0) return () => false;
  const expressions = globs.map((g) => picomatch.makeRe(g, options));
  const flags = expressions[0]!.flags;
  const one = expressions.some((re) => re.flags !== flags || re.global || re.sticky || /\\(?:[1-9]|k<)/.test(re.source)) ? undefined : joined(expressions, flags);
  if (one === undefined) {
    const each = picomatch([...globs], options);
    return (input) => each(input);
  }
  const literal = new Set(globs);
  return (input) => input !== '' && (literal.has(input) || one.test(input));
}

function joined(expressions: readonly RegExp[], flags: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${expressions.map((re) => `(?:${re.source})`).join('|')})`, flags);
  } catch {
    return undefined; // e.g. a group name used twice
  }
}
