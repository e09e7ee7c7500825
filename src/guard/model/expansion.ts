import type { Interaction, Truth } from '../../core/types.js';
import type { CompiledBook, CompiledPredicate } from '../../policy/compiled.js';
import type { RuleOutcome } from '../referee.js';
import type { SemanticEvaluator, TrackResult } from '../tracker.js';
import { addUsage, type ModelUsage } from './usage.js';

/**
 * State expansion (QuadSentinel §4.3), run by the pipeline once per interaction after verification: the
 * semantic predicates in the witness of a violated or unknown rule that the light model decided with confidence
 * below `expandBelow` are re-decided by the strong tier (`expand`), and the track is revised with its answer.
 * Predicates the light model failed on are not expanded (the endpoint is failing: a second wait would only delay
 * the decision; they stay unknown). Returns `undefined` when nothing qualifies.
 */
export async function expandLowConfidence(
  hooks: { expand: SemanticEvaluator; options: { expand_below: number } },
  input: {
    book: CompiledBook;
    interaction: Interaction;
    track: TrackResult;
    outcomes: RuleOutcome[];
    sticky: ReadonlyMap<string, Truth>;
    signal?: AbortSignal;
  },
): Promise<{ track: TrackResult; usage: ModelUsage; predicates: string[] } | undefined> {
  const threshold = hooks.options.expand_below;
  if (threshold <= 0) return undefined;
  const weak = new Map<string, CompiledPredicate>();
  for (const o of input.outcomes) {
    for (const name of Object.keys(o.witness.predicates)) {
      const p = input.book.byName.get(name);
      const v = input.track.values.get(name);
      if (p?.semantic && v?.evidence === 'model' && (v.score ?? 0) < threshold) weak.set(name, p);
    }
  }
  if (weak.size === 0) return undefined;
  const current: Record<string, Truth> = {};
  for (const name of weak.keys()) current[name] = input.sticky.get(name) ?? 'false';
  const r = await hooks.expand({ predicates: [...weak.values()], interaction: input.interaction, current, ...(input.signal ? { signal: input.signal } : {}) });
  return { track: input.track.revise(r.values), usage: addUsage(r.usage) ?? { calls: 0, promptTokens: 0, completionTokens: 0, ms: 0 }, predicates: [...weak.keys()] };
}
