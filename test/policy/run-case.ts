import { AnyInteractionSchema } from '../../src/core/types.js';
import { explainInteraction, type Explanation } from '../../src/guard/explain.js';
import type { CompiledBook } from '../../src/policy/compiled.js';
import type { Truth } from '../../src/core/types.js';

/** What a YAML policy case (test/cases/*.yaml) is checked against. */
export interface CaseOutcome {
  decision: 'allow' | 'deny';
  /** Rules the verifier found violated, in book order. */
  violated: string[];
  /** The decision's denying and flagged rules. */
  rules: string[];
  flagged: string[];
  /** Witness predicates of each rule not satisfied. */
  witness: Record<string, Record<string, Truth>>;
  explanation: Explanation;
}

/**
 * Runs one case interaction the way `policy explain` does: the guard's own pipeline on a fresh state
 * (src/guard/explain.ts), so a case decides as the proxy would. Case files may use the pre-union kinds.
 */
export async function decideCase(book: CompiledBook, interaction: unknown): Promise<CaseOutcome> {
  const explanation = await explainInteraction(book, AnyInteractionSchema.parse(interaction));
  const d = explanation.decision;
  const witness: CaseOutcome['witness'] = {};
  for (const r of explanation.rules) if (r.witness) witness[r.id] = r.witness.predicates;
  return {
    decision: d.decision,
    violated: explanation.rules.filter((r) => r.status === 'violated').map((r) => r.id),
    rules: d.rules,
    flagged: d.flagged,
    witness,
    explanation,
  };
}
