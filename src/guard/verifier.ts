import { baselineValue } from '../policy/analysis.js';
import type { CompiledBook, CompiledRule } from '../policy/compiled.js';
import { checkRule } from '../policy/evaluate.js';
import type { RuleOutcome } from './referee.js';
import type { TrackResult } from './tracker.js';
import type { InteractionKind } from '../core/types.js';

/**
 * The policy verifier (QuadSentinel §4.3): the rules that apply to the interaction's kind, checked under Γ_t,
 * with a minimal witness and a confidence for each rule not shown satisfied.
 *
 * Only rules over a touched predicate (one not false in Γ_t) can differ from their value in the all-false
 * baseline, so those are checked, plus the few rules that are violated at baseline (the linter warns about them).
 * The cost follows what the interaction touched, not the size of the book.
 */
export function createVerifier(book: CompiledBook) {
  const violatedAtBaseline = new Map<InteractionKind, CompiledRule[]>();
  for (const r of book.rules) {
    if (baselineValue(r.ast)) continue;
    for (const k of r.def.applies_to) violatedAtBaseline.set(k, [...(violatedAtBaseline.get(k) ?? []), r]);
  }

  return function verifier(kind: InteractionKind, track: TrackResult): RuleOutcome[] {
    const rules = new Set<CompiledRule>(violatedAtBaseline.get(kind) ?? []);
    for (const name of track.touched) {
      for (const r of book.graph.rulesUsing(name)) if (r.def.applies_to.includes(kind)) rules.add(r);
    }
    const outcomes: RuleOutcome[] = [];
    for (const r of [...rules].sort((a, b) => a.index - b.index)) {
      const check = checkRule(r, track.lookup, track.scoreOf);
      if (check.status === 'satisfied') continue;
      outcomes.push({
        id: r.id,
        def: r.def,
        onUnknown: r.onUnknown,
        status: check.status,
        witness: check.witness ?? { rule: r.id, predicates: {}, confidence: 1 },
      });
    }
    return outcomes;
  };
}
export type Verifier = ReturnType<typeof createVerifier>;
