import { silentLogger, type Logger } from '../../core/log.js';
import type { Decision, Interaction } from '../../core/types.js';
import type { LlmClient } from '../../llm/client.js';
import { ModelOptionsSchema, type ModelOptions, type OptionsInput } from '../options.js';
import type { SoftDenialReviewer } from '../referee.js';
import type { SemanticEvaluator } from '../tracker.js';
import { createObservations } from './observations.js';
import { modelReviewer } from './review.js';
import { semanticEvaluator } from './semantic.js';
import { modelThreatAdvisor, type ThreatAdvisor } from './threat.js';

/**
 * The model layer wired into the guard (DESIGN §3, QuadSentinel §4.1–4.4): hooks the pipeline calls when an
 * `llm:` section is configured, all built from one `LlmClient`. One file per job:
 *
 * - `semantic.ts`: the tracker's semantic predicates (light tier) and state expansion's re-decision (strong tier);
 * - `expansion.ts`: which low-confidence predicates state expansion re-decides (§4.3);
 * - `review.ts`: the hierarchical review of soft denials;
 * - `threat.ts`: the threat watcher's ±1 complement (only with `guard.model.watcher: complement`);
 * - `observations.ts`: the bounded per-session history of decided interactions (memory only);
 * - `usage.ts`: the accounting summed into `Decision.detail.llm`, and the per-interaction time budget;
 * - `embedder.ts`: the dense embedder for top-k, and an index that survives a failing endpoint.
 *
 * No hook throws: each returns the usage of its calls (failed ones included).
 */

/** Everything the pipeline needs from the model layer; passed to `buildGuard` as `model`. */
export interface GuardModelHooks {
  semantic: SemanticEvaluator;
  expand: SemanticEvaluator;
  reviewer: SoftDenialReviewer;
  threat?: ThreatAdvisor;
  observe(i: Interaction, d: Decision): void;
  options: ModelOptions;
}

/** The hooks for `client` with `options` (the `guard.model` settings). */
export function createGuardModel(client: LlmClient, options: OptionsInput<ModelOptions> = {}, logger: Logger = silentLogger()): GuardModelHooks {
  const o = ModelOptionsSchema.parse(options);
  const log = logger.child({ mod: 'guard-model' });
  const history = createObservations(o.observations);
  return {
    semantic: semanticEvaluator(client, 'light', history.of, log),
    expand: semanticEvaluator(client, 'strong', history.of, log),
    reviewer: modelReviewer(client, log),
    ...(o.watcher === 'complement' ? { threat: modelThreatAdvisor(client, history.of, log) } : {}),
    observe: history.record,
    options: o,
  };
}

export { createModelEmbedder, resilientIndex } from './embedder.js';
export { expandLowConfidence } from './expansion.js';
export { HISTORY_SESSIONS, summarize } from './observations.js';
export { tauForLevel, type ThreatAdvisor } from './threat.js';
export { addUsage, budgetSignal, type ModelUsage } from './usage.js';
