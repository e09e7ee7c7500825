import type { Interaction, Truth } from '../core/types.js';
import type { CompiledBook, CompiledPredicate, CompiledRule } from './compiled.js';
import { checkRule, evaluatePredicate, predicateApplies, type PredicateValue, type RuleCheck } from './evaluate.js';

/**
 * Whole-book evaluation of one interaction, for `policy explain`, policy test cases and the benchmark. This is
 * NOT the guard pipeline (no top-k, no session state Γ, no referee): predicates out of scope are `false`
 * (nothing carried over), in-scope ones are evaluated by their detectors.
 */
/** One predicate's value in a `BookReport`, with its detectors' evidence when it was evaluated. */
export interface PredicateReport extends Partial<PredicateValue> {
  name: string;
  value: Truth;
  /** False when the predicate's scope does not cover this interaction (then it was not evaluated). */
  applies: boolean;
}

/** One rule's outcome in a `BookReport`. */
export interface RuleReport extends RuleCheck {
  id: string;
  rule: CompiledRule;
}

/** What `evaluateBook` found for one interaction. */
export interface BookReport {
  predicates: PredicateReport[];
  rules: RuleReport[];
  /**
   * The deterministic policy verdict before any referee: `deny` when an enforced rule is violated or an enforced
   * rule is unknown with on_unknown `deny`; `allow` otherwise. `flagged` lists monitor-mode violations and
   * unknown outcomes with on_unknown `flag`.
   */
  verdict: 'allow' | 'deny';
  denying: string[];
  flagged: string[];
}

/** Which predicates to evaluate: every predicate in scope (`all`) or only the graph's must-check set. */
export type EvaluationSet = 'all' | 'must-check';

function predicatesToEvaluate(compiled: CompiledBook, i: Interaction, set: EvaluationSet): readonly CompiledPredicate[] {
  return set === 'all' ? compiled.predicates.filter((p) => predicateApplies(p, i)) : compiled.graph.mustCheck(i);
}

/**
 * Evaluates the book on one interaction: the chosen predicates, then every rule applying to its kind (with
 * `must-check`, only the rules touching an evaluated predicate).
 */
export function evaluateBook(compiled: CompiledBook, interaction: Interaction, set: EvaluationSet = 'all'): BookReport {
  const values = new Map<string, PredicateValue>();
  for (const p of predicatesToEvaluate(compiled, interaction, set)) {
    if (!values.has(p.name)) values.set(p.name, evaluatePredicate(p, interaction));
  }
  const lookup = (n: string): Truth => values.get(n)?.value ?? 'false';
  const scoreOf = (n: string) => values.get(n)?.score;
  let rules: readonly CompiledRule[];
  if (set === 'all') rules = compiled.graph.rulesFor(interaction.kind);
  else {
    // Only the rules touching an evaluated predicate: cost follows |M_t|, not the size of the book.
    const touched = new Set<CompiledRule>();
    for (const name of values.keys()) {
      for (const r of compiled.graph.rulesUsing(name)) if (r.def.applies_to.includes(interaction.kind)) touched.add(r);
    }
    rules = [...touched].sort((a, b) => a.index - b.index);
  }
  const ruleReports: RuleReport[] = rules.map((rule) => ({ id: rule.id, rule, ...checkRule(rule, lookup, scoreOf) }));

  const denying: string[] = [];
  const flagged: string[] = [];
  for (const r of ruleReports) {
    if (r.status === 'satisfied') continue;
    const monitor = r.rule.def.mode === 'monitor';
    if (r.status === 'violated') (monitor ? flagged : denying).push(r.id);
    else if (r.rule.onUnknown === 'deny' && !monitor) denying.push(r.id);
    else if (r.rule.onUnknown !== 'allow') flagged.push(r.id);
  }
  // `all` reports every predicate (out-of-scope ones as not applying); `must-check` only the evaluated ones.
  const listed = set === 'all' ? compiled.predicates : [...values.keys()].map((n) => compiled.byName.get(n)!);
  const predicates: PredicateReport[] = listed.map((p) => {
    const v = values.get(p.name);
    return v ? { name: p.name, applies: true, ...v } : { name: p.name, value: 'false', applies: predicateApplies(p, interaction) };
  });
  return { predicates, rules: ruleReports, verdict: denying.length > 0 ? 'deny' : 'allow', denying, flagged };
}
