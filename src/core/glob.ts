import { PolicyError } from './errors.js';

/**
 * A tiny glob compiler for qualified tool names `<server>__<tool>` (no dependency; detectors may reuse it).
 *
 * - `*`  any run of characters inside one name segment, `_` and single `-`/`.` included, but never the `__`
 *        that separates server from tool: `fs__*` matches `fs__read_file`, `*` alone matches no qualified name
 *        but does match an un-namespaced one.
 * - `**` any run of characters, `__` included: `**` matches everything, `**delete*` any tool containing `delete`.
 * - `?`  exactly one character.
 * - `{a,b}` one of the comma-separated alternatives (literals and wildcards, no nesting).
 * - everything else is literal and case-sensitive. Allowed literal characters: letters, digits, `_ - . / :`.
 *
 * Invalid patterns (empty, `***`, unbalanced or nested braces, other characters) throw `PolicyError`
 * `policy_glob_error` at compile time.
 */
export type GlobMatcher = (name: string) => boolean;

const LITERAL = /[A-Za-z0-9_\-./:]/;

function fail(pattern: string, why: string): never {
  throw new PolicyError('policy_glob_error', `invalid tool glob "${pattern}": ${why}`);
}

/** Translates a glob to a regular-expression source (anchoring added by `compileGlob`). */
export function globToRegexSource(pattern: string): string {
  if (pattern.length === 0) fail(pattern, 'empty pattern');
  let out = '';
  let inBraces = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') {
      let n = 1;
      while (pattern[i + n] === '*') n++;
      if (n > 2) fail(pattern, `"${'*'.repeat(n)}" at ${i + 1}: use * (within a segment) or ** (across segments)`);
      // `*`: no position inside the match may start a `__` separator.
      out += n === 2 ? '[\\s\\S]*' : '(?:(?!__)[\\s\\S])*';
      i += n - 1;
    } else if (ch === '?') out += '[\\s\\S]';
    else if (ch === '{') {
      if (inBraces) fail(pattern, `nested "{" at ${i + 1}`);
      inBraces = true;
      out += '(?:';
    } else if (ch === '}') {
      if (!inBraces) fail(pattern, `"}" at ${i + 1} without "{"`);
      inBraces = false;
      out += ')';
    } else if (ch === ',') {
      if (!inBraces) fail(pattern, `"," at ${i + 1} outside braces`);
      out += '|';
    } else if (LITERAL.test(ch)) out += ch.replace(/[.\-/]/g, (c) => `\\${c}`);
    else fail(pattern, `character "${ch}" at ${i + 1} is not allowed`);
  }
  if (inBraces) fail(pattern, 'unclosed "{"');
  return out;
}

/**
 * Compiles one glob, or several (matching any of them).
 *
 * @example compileGlob('fs__*')('fs__read_file') // true; compileGlob('*')('fs__read_file') // false: * does not cross __
 */
export function compileGlob(patterns: string | readonly string[]): GlobMatcher {
  const list = typeof patterns === 'string' ? [patterns] : patterns;
  if (list.length === 0) return () => false;
  const re = new RegExp(`^(?:${list.map(globToRegexSource).join('|')})$`);
  // The answer for each name is kept: a matcher is asked about the same few tool names on every call (the
  // predicates' scopes, the tool detector, the capability labels), and its expression (a dozen `*__…*` globs)
  // costs ~0.4 µs a test, the lookup ~0.01. The expression has no flags (no `lastIndex`): a name's answer never
  // changes. Bounded: emptied when full.
  const answers = new Map<string, boolean>();
  return function globMatch(name: string) {
    let answer = answers.get(name);
    if (answer === undefined) {
      answer = re.test(name);
      if (answers.size >= GLOB_ANSWERS_MAX) answers.clear();
      answers.set(name, answer);
    }
    return answer;
  };
}

/** Names whose answers one matcher keeps (tool names: a proxy serves a bounded set of them). */
export const GLOB_ANSWERS_MAX = 256;
