import type { Logger } from '../core/log.js';
import type { Interaction } from '../core/types.js';
import { rateCounts } from '../detectors/rate.js';
import type { CompiledBook, CompiledPredicate } from '../policy/compiled.js';
import type { PredicateValue } from '../policy/evaluate.js';
import { BOOK_UNAVAILABLE, type BookPayload } from './pool-worker.js';
import type { ReadHashOptions } from './read-hashes.js';
import { PoolWorkerError, type TextPool } from './text-pool.js';
import { evaluateHere, type EvaluatePredicates } from './tracker.js';

/**
 * Long text work goes to the pool (text-pool.ts): the one place that decides what is long and sends it there, for
 * the two readings that cost in proportion to a text's length — the detector pass of the tracker over an
 * interaction, and the hashes a private read leaves (data flow). Short work stays on the loop: the round trip to a
 * worker (cloning the interaction) would cost more than it frees.
 */

/** Warned at most this often (ms) that long texts are read on the event loop. */
const IN_PLACE_WARN_MS = 60_000;

/** Whether the string values of `value` (every field, at any depth) hold at least `min` characters in all. */
export function hasLongText(value: unknown, min: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      total += v.length;
      if (total >= min) return true;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      for (const x of Object.values(v)) stack.push(x);
    }
  }
  return false;
}

export interface LongTextReader {
  /** The tracker's detector pass: in the pool when the interaction's texts are long (throws `PoolBusyError` when full). */
  evaluate: EvaluatePredicates;
  /** A long private read's hashes from the pool, or undefined to compute them on the loop. */
  readHashesOf(text: string, key: Buffer, options: ReadHashOptions): Promise<string[] | undefined>;
}

/**
 * The reader of long texts for one book. Without a pool (`guard.pool.workers: 0`), or while none of its workers can
 * start, everything is read on the loop, with a warning at most once a minute.
 */
export function longTextReader(book: CompiledBook, pool: TextPool | undefined, minChars: number, log: Logger): LongTextReader {
  const payload: BookPayload = { id: `${book.hash}:${book.dir ?? ''}`, book: book.book, hash: book.hash, ...(book.dir !== undefined ? { dir: book.dir } : {}) };
  /** Why the pool's workers cannot evaluate this book (it compiled here, not there), once found. */
  let bookUnavailable: string | undefined;
  let lastWarn = -Infinity;
  const warnInPlace = (what: string, why: unknown) => {
    const now = Date.now();
    if (now - lastWarn < IN_PLACE_WARN_MS) return;
    lastWarn = now;
    log.warn({ err: why }, `long texts are read on the event loop (${what}): the decision is the same, other sessions wait meanwhile`);
  };

  return {
    async evaluate(predicates: readonly CompiledPredicate[], i: Interaction) {
      if (!pool || !hasLongText(i, minChars) || !predicates.some((p) => p.detectors.length > 0)) return evaluateHere(predicates, i);
      if (bookUnavailable !== undefined) {
        warnInPlace('the worker pool cannot evaluate this book', bookUnavailable);
        return evaluateHere(predicates, i);
      }
      const names = predicates.filter((p) => p.detectors.length > 0).map((p) => p.name);
      const rates = rateCounts.get(i);
      let answer;
      try {
        answer = (await pool.run({ kind: 'evaluate', book: payload.id, names, interaction: i, ...(rates ? { rates } : {}) }, payload)) as Array<[string, PredicateValue]> | undefined;
      } catch (err) {
        if (!(err instanceof PoolWorkerError && err.code === BOOK_UNAVAILABLE)) throw err;
        bookUnavailable = err.message;
      }
      if (!answer) {
        warnInPlace(bookUnavailable !== undefined ? 'the worker pool cannot evaluate this book' : 'the worker pool is not available', bookUnavailable ?? 'no worker could start');
        return evaluateHere(predicates, i);
      }
      const got = new Map(answer);
      const values = new Map<string, PredicateValue>();
      // Semantic predicates (no detectors) were not sent: their value is the same constant here.
      for (const p of predicates) values.set(p.name, got.get(p.name) ?? evaluateHere([p], i).get(p.name)!);
      return values;
    },
    async readHashesOf(text, key, options) {
      if (!pool || text.length < minChars) return undefined;
      // A read whose check was let into the pool is not refused half way: its hashes are not held to the queue's bound.
      const answer = await pool.run({ kind: 'read_hashes', text, key: new Uint8Array(key), options: { k: options.k, window: options.window, max_per_read: options.max_per_read } }, undefined, true);
      if (!answer) warnInPlace('the worker pool is not available', 'no worker could start');
      return (answer as string[] | undefined) ?? undefined;
    },
  };
}
