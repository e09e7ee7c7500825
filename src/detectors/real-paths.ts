import { argumentsOf, type Interaction } from '../core/types.js';

/**
 * The `realpath` answers of one interaction, shared by everything that reads its paths while it is checked: the
 * proxy resolves a call's path arguments (src/proxy/resolved-paths.ts), then the guard's `path` and `path_name`
 * detectors resolve the same paths again. Each did its own `realpath(3)`, with its `access(2)` first: three
 * resolutions of one path per call. With the answers shared, a path is resolved once per interaction, and the guard
 * checks exactly the resolution the proxy forwards.
 *
 * Answers are kept only while someone holds them open (`sharingRealPaths`): the proxy around its check of a call, the
 * tracking stage around the detectors' run. Never longer: the file system changes between calls, and an interaction
 * object checked again later (a replay, a test) is resolved afresh.
 *
 * The same map keeps, for a path that does not resolve, whether it is a symbolic link and where it points (under the
 * path behind a NUL: path.ts `linkTargetOf`), so a missing path is `lstat`ed once per interaction too.
 *
 * Keyed by the interaction's `arguments` object, which the guard's stages carry from the proxy's interaction into
 * the copies they make (`{ ...i, flow }`); an interaction without arguments (a resource read) by itself.
 */
export type RealPathAnswers = Map<string, string | null>;

const open = new WeakMap<object, RealPathAnswers>();

const keyOf = (i: Interaction): object => argumentsOf(i) ?? i;

/** The answers held open for `i`, if any. */
export function realPathAnswersOf(i: Interaction): RealPathAnswers | undefined {
  return open.get(keyOf(i));
}

/**
 * Runs `fn` with `answers` held open for `i` (its arguments object): the detectors that read `i` meanwhile share them.
 * When answers are already open for `i` (the proxy's, around the whole check), those are kept and `answers` is not
 * used. Let go once `fn` is settled, by whoever opened them.
 */
export async function sharingRealPaths<T>(i: Interaction, answers: RealPathAnswers, fn: () => T | Promise<T>): Promise<T> {
  const key = keyOf(i);
  if (open.has(key)) return fn();
  open.set(key, answers);
  try {
    return await fn();
  } finally {
    if (open.get(key) === answers) open.delete(key);
  }
}
