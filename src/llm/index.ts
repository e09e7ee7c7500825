/**
 * The model layer: an OpenAI-compatible client with tiers, retries, a concurrency limit, a cache and usage
 * accounting; data-only prompts with neutralised untrusted text; structured outputs; and the guard's evaluators
 * (state tracker, threat watcher, referee review) and the offline policy compiler. Every evaluator is a pure
 * function of an `LlmClient` and its input, and rejects with `LlmError` when the model cannot answer properly.
 */
export { LlmConfigSchema, LlmModelsSchema, type LlmConfig, type LlmConfigInput, type LlmModels, type LlmTier } from './config.js';
export {
  LlmClient,
  LOCAL_DUMMY_API_KEY,
  isLoopbackUrl,
  resolveApiKey,
  type CallOptions,
  type ChatRequest,
  type JsonResult,
  type LlmClientOptions,
} from './client.js';
export { emptyUsage, sumUsage, UsageMeter, type LlmUsage } from './usage.js';
export { parseStructured } from './structured.js';
export { neutralizeText, neutralizeValue, dataMessage, DEFAULT_LIMITS, type NeutralizeLimits } from './neutralize.js';
export {
  evaluateSemanticPredicates,
  expandState,
  MAX_OBSERVATIONS,
  type PredicateValue as LlmPredicateValue,
  type SemanticPredicate,
  type SemanticPredicatesInput,
  type SemanticPredicatesResult,
} from './evaluators/predicates.js';
export { threatLevelUpdate, type ThreatUpdateInput, type ThreatUpdateResult, type ViolationSummary } from './evaluators/threat.js';
export {
  reviewDenial,
  hierarchicalReview,
  citeWitness,
  CLEAR_ALLOW_CONFIDENCE,
  type ReviewInput,
  type ReviewResult,
  type HierarchicalReviewResult,
  type ReviewedRule,
  type Ruling,
} from './evaluators/review.js';
export { compilePolicy, type CompilePolicyOptions, type CompilePolicyResult } from './compile.js';
export { renderReviewSheet } from './review-sheet.js';
