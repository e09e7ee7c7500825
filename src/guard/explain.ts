import type { Decision, Interaction, Witness } from '../core/types.js';
import type { CompiledBook, CompiledRule } from '../policy/compiled.js';
import { evaluateBook, type PredicateReport } from '../policy/explain.js';
import type { PredicateIndex } from '../retrieval/predicate-index.js';
import { indexBook } from './book.js';
import { buildGuard, type BuildGuardOptions } from './build.js';
import type { RuleOutcome } from './referee.js';
import { GUARD_STAGES, type Stage } from './stages/index.js';

/**
 * `policy explain` and the policy cases: what the guard decides on one interaction, and why. The decision is the
 * real pipeline's (`buildGuard`, every stage of GUARD_STAGES), on a fresh state: a new in-memory
 * store, so Γ is empty, the agent's threat level starts at 0 and nothing is quarantined — the proxy's decision
 * on the first interaction of a session. Nothing here re-implements rule selection or the referee.
 */

/** One rule of the interaction's kind, as the guard's verifier saw it. */
export interface RuleExplanation {
  id: string;
  rule: CompiledRule;
  /** `satisfied` when the verifier did not report it (its predicates were not touched, or it held). */
  status: 'satisfied' | 'violated' | 'unknown';
  witness?: Witness;
}

/** A predicate of the book on this interaction. */
export interface PredicateExplanation extends PredicateReport {
  /** Whether the guard evaluated it (it was in the tracker's candidate set C); if not, the guard took it as false. */
  candidate: boolean;
}

export interface Explanation {
  /** Every predicate of the book, evaluated by its detectors where its scope covers the interaction. */
  predicates: PredicateExplanation[];
  /** Every rule checked on this kind, in book order, with the verifier's outcome. */
  rules: RuleExplanation[];
  /** The guard's decision (with rules, flagged, witnesses, rationale and the threat level after it). */
  decision: Decision;
}

export interface ExplainOptions {
  /** The `guard:` settings (deny thresholds, tracker budget); defaults as in the proxy. Audit is always off. */
  settings?: BuildGuardOptions['settings'];
  /** The book's predicate index, when the caller has one (default: the local index, built here). */
  index?: PredicateIndex;
}

/** Runs the guard on one interaction with a fresh state and reports the predicates, the rules and the decision. */
export async function explainInteraction(book: CompiledBook, interaction: Interaction, opts: ExplainOptions = {}): Promise<Explanation> {
  const index = opts.index ?? (await indexBook(book));
  let seen: { candidates: readonly string[]; outcomes: readonly RuleOutcome[] } | undefined;
  // After the last stage: the tracker's candidates and the verifier's outcomes (revised by any model expansion).
  const report: Stage = {
    name: 'explain',
    always: true,
    tolerant: true,
    run(ctx) {
      seen = { candidates: ctx.track?.candidates ?? [], outcomes: ctx.outcomes ?? [] };
    },
  };
  const guard = await buildGuard({
    policy: { book, index, warnings: [] },
    store: ':memory:',
    settings: { ...(opts.settings ?? {}), audit: false },
    stages: [...GUARD_STAGES, report],
  });
  try {
    const decision = await guard.pipeline.check(interaction);
    const outcomes = new Map((seen?.outcomes ?? []).map((o) => [o.id, o] as const));
    const candidates = new Set(seen?.candidates ?? []);
    const rules = book.graph.rulesFor(interaction.kind).map((rule): RuleExplanation => {
      const o = outcomes.get(rule.id);
      return o ? { id: rule.id, rule, status: o.status, witness: o.witness } : { id: rule.id, rule, status: 'satisfied' };
    });
    const predicates = evaluateBook(book, interaction, 'all').predicates.map((p) => ({ ...p, candidate: candidates.has(p.name) }));
    return { predicates, rules, decision };
  } finally {
    await guard.close();
  }
}
