import { errorMessage } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import type { Truth } from '../../core/types.js';
import type { LlmClient } from '../../llm/client.js';
import { evaluateSemanticPredicates, expandState, type SemanticPredicatesResult } from '../../llm/evaluators/predicates.js';
import { UsageMeter } from '../../llm/usage.js';
import type { CompiledPredicate } from '../../policy/compiled.js';
import type { SemanticEvaluator } from '../tracker.js';
import { callOpts, shortUsage } from './usage.js';

/**
 * The tracker's semantic candidates (predicates without a detector) in ONE call to `tier` (light for the tracker,
 * strong for state expansion), with the session's observations and current values. A failure leaves them all
 * unknown, so each rule's `on_unknown` decides.
 */
export function semanticEvaluator(client: LlmClient, tier: 'light' | 'strong', observations: (session: string) => string[], log: Logger): SemanticEvaluator {
  return async ({ predicates, interaction, current, signal }) => {
    const meter = new UsageMeter();
    const run = tier === 'light' ? evaluateSemanticPredicates : expandState;
    let r: SemanticPredicatesResult;
    try {
      r = await run(client, { predicates: predicates.map(semanticOf), interaction, observations: observations(interaction.session), current }, callOpts(meter, signal));
    } catch (err) {
      log.warn({ tier, err: errorMessage(err), predicates: predicates.map((p) => p.name) }, 'semantic predicates left unknown: the model did not answer properly');
      return { values: new Map(), usage: shortUsage(meter.total) };
    }
    const values = new Map<string, { value: Truth; confidence: number }>();
    for (const [name, v] of Object.entries(r.values)) if (v.value !== 'unknown') values.set(name, { value: v.value, confidence: v.confidence });
    return { values, usage: shortUsage(meter.total) };
  };
}

function semanticOf(p: CompiledPredicate): { name: string; description: string; keywords?: string[] } {
  return { name: p.name, description: p.def.description, ...(p.def.keywords ? { keywords: p.def.keywords } : {}) };
}
