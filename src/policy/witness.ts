import type { Truth, Witness } from '../core/types.js';
import type { FormulaAst } from './ast.js';
import { evalFormula } from './kleene.js';

/**
 * Minimal witnesses (QuadSentinel §4.3): the smallest set of a rule's predicates whose current values alone
 * force the violation, whatever the other predicates are.
 *
 * - Violated rule (formula false): a smallest set W of *decided* predicates such that every two-valued
 *   completion of the remaining predicates keeps the formula false.
 * - Unknown outcome: a smallest set W (unknown predicates allowed) such that every completion keeps the formula
 *   not-true, i.e. the rule cannot be shown satisfied without deciding something in W.
 *
 * Exact (subsets by increasing size, every completion checked) up to `EXACT_WITNESS_BOUND` referenced
 * predicates; beyond that a greedy shrink (drop a predicate while the rest still provably forces the outcome:
 * exactly while at most `EXACT_WITNESS_BOUND` predicates are free, else only when Kleene evaluation with the free
 * ones unknown already decides it) gives a forcing, not necessarily smallest, witness.
 */
export const EXACT_WITNESS_BOUND = 12;

/** Confidence a witness predicate contributes when its value is unknown. */
export const UNKNOWN_CONFIDENCE = 0.5;

type Target = 'false' | 'not_true';

function hits(v: Truth, target: Target): boolean {
  return target === 'false' ? v === 'false' : v !== 'true';
}

/** Does fixing `fixed` to their values force `target` for every two-valued completion of `free`? */
function forcedExact(ast: FormulaAst, fixed: Map<string, Truth>, free: string[], target: Target): boolean {
  const partial = evalFormula(ast, (n) => fixed.get(n) ?? 'unknown');
  // By monotonicity of Kleene logic, a decided result with every free predicate unknown holds for all
  // completions. (An `unknown` result proves nothing: some completion may still make the formula true.)
  if (partial !== 'unknown') return hits(partial, target);
  if (free.length > EXACT_WITNESS_BOUND) return false; // too many completions: do not claim forcing
  const total = 1 << free.length;
  const completion = new Map<string, Truth>();
  for (let mask = 0; mask < total; mask++) {
    free.forEach((name, bit) => completion.set(name, mask & (1 << bit) ? 'true' : 'false'));
    const v = evalFormula(ast, (n) => fixed.get(n) ?? completion.get(n) ?? 'unknown');
    if (!hits(v, target)) return false;
  }
  return true;
}

function* combinations<T>(items: T[], k: number, start = 0, acc: T[] = []): Generator<T[]> {
  if (acc.length === k) {
    yield acc;
    return;
  }
  for (let i = start; i <= items.length - (k - acc.length); i++) {
    yield* combinations(items, k, i + 1, [...acc, items[i]!]);
  }
}

/**
 * The names of a minimal witness for the current outcome, or undefined when the formula is not violated /
 * undecided under `values` (nothing to witness).
 */
export function minimalWitness(ast: FormulaAst, vars: string[], values: (name: string) => Truth): string[] | undefined {
  const outcome = evalFormula(ast, values);
  if (outcome === 'true') return undefined;
  const target: Target = outcome === 'false' ? 'false' : 'not_true';
  const candidates = target === 'false' ? vars.filter((v) => values(v) !== 'unknown') : [...vars];
  const pick = (names: string[]) => new Map(names.map((n) => [n, values(n)] as const));

  if (candidates.length <= EXACT_WITNESS_BOUND) {
    for (let k = 0; k <= candidates.length; k++) {
      for (const subset of combinations(candidates, k)) {
        const free = vars.filter((v) => !subset.includes(v));
        // Free unknown-valued predicates are completed over {true,false} too: they are "anything".
        if (forcedExact(ast, pick(subset), free, target)) return subset;
      }
    }
    return candidates; // unreachable: the full candidate set forces the outcome by construction
  }
  const kept = [...candidates];
  for (const name of candidates) {
    const without = kept.filter((n) => n !== name);
    const free = vars.filter((v) => !without.includes(v));
    if (forcedExact(ast, pick(without), free, target)) kept.splice(kept.indexOf(name), 1);
  }
  return kept;
}

/**
 * Builds the `Witness` of a rule: minimal predicate set with its values and a confidence = min over the witness
 * predicates of their detector score (1 when decided exactly, `UNKNOWN_CONFIDENCE` when unknown).
 */
export function buildWitness(
  ruleId: string,
  ast: FormulaAst,
  vars: string[],
  values: (name: string) => Truth,
  scoreOf: (name: string) => number | undefined = () => undefined,
): Witness | undefined {
  const names = minimalWitness(ast, vars, values);
  if (!names) return undefined;
  const predicates: Record<string, Truth> = {};
  let confidence = 1;
  for (const n of names) {
    const v = values(n);
    predicates[n] = v;
    const c = v === 'unknown' ? UNKNOWN_CONFIDENCE : (scoreOf(n) ?? 1);
    confidence = Math.min(confidence, Math.max(0, Math.min(1, c)));
  }
  return { rule: ruleId, predicates, confidence };
}
