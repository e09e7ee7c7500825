import type { FormulaAst } from './ast.js';
import { evalFormula } from './kleene.js';

/**
 * Static analysis of a rule formula over two-valued assignments of its predicates, for lints:
 * - `tautology`: true under every assignment, so the rule can never be violated;
 * - `unsatisfiable`: false under every assignment, so every interaction violates it;
 * - `contingent`: anything else; `too_large`: more than `TRUTH_TABLE_BOUND` predicates, not analysed.
 */
export type FormulaClass = 'tautology' | 'unsatisfiable' | 'contingent' | 'too_large';

/** Truth tables are enumerated up to this many referenced predicates (2^16 evaluations per rule at load). */
export const TRUTH_TABLE_BOUND = 16;

/** Classifies a formula by enumerating its truth table (see `FormulaClass`). */
export function classifyFormula(ast: FormulaAst, vars: readonly string[]): FormulaClass {
  if (vars.length > TRUTH_TABLE_BOUND) return 'too_large';
  let sawTrue = false;
  let sawFalse = false;
  const values = new Map<string, 'true' | 'false'>();
  for (let mask = 0; mask < 1 << vars.length; mask++) {
    vars.forEach((v, bit) => values.set(v, mask & (1 << bit) ? 'true' : 'false'));
    if (evalFormula(ast, (n) => values.get(n) ?? 'false') === 'true') sawTrue = true;
    else sawFalse = true;
    if (sawTrue && sawFalse) return 'contingent';
  }
  return sawTrue ? 'tautology' : 'unsatisfiable';
}

/** The formula's value when every predicate is false (the state before anything was detected). */
export function baselineValue(ast: FormulaAst): boolean {
  return evalFormula(ast, () => 'false') === 'true';
}
