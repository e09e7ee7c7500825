import { LlmError } from '../../core/errors.js';
import type { Interaction, Truth } from '../../core/types.js';
import type { CallOptions, LlmClient } from '../client.js';
import type { LlmTier } from '../config.js';
import { dataMessage } from '../neutralize.js';
import { STATE_TRACKER_SYSTEM, STATE_TRACKER_TAG, StateTrackerAnswerSchema } from '../prompts/state-tracker.js';
import { interactionView } from '../prompts/view.js';
import { emptyUsage, type LlmUsage } from '../usage.js';

/** A candidate predicate as the evaluator sees it (from the signed book). */
export interface SemanticPredicate {
  name: string;
  description: string;
  keywords?: string[];
}

/** Input of one batched state-tracker evaluation. */
export interface SemanticPredicatesInput {
  /** The candidate set C_t (top-k ∪ must-check) restricted to the predicates a model should decide. */
  predicates: SemanticPredicate[];
  interaction: Interaction;
  /** Short summaries of recent interactions of the session, oldest first (untrusted; the last 10 are sent). */
  observations?: string[];
  /** Present values Γ_{t-1} of the candidates; absent names count as `unknown`. */
  current?: Record<string, Truth>;
}

/** One predicate's value after evaluation. */
export interface PredicateValue {
  value: Truth;
  /** Model confidence for a changed value; 1 for a decided value kept by the frame assumption; 0 for unknown. */
  confidence: number;
  /** True when the model reported this predicate. */
  changed: boolean;
}

export interface SemanticPredicatesResult {
  /** One entry per candidate predicate, always. */
  values: Record<string, PredicateValue>;
  /** Names the model reported that were not candidates (ignored, kept for the audit). */
  ignored: string[];
  usage: LlmUsage;
}

/** Observations sent per evaluation. */
export const MAX_OBSERVATIONS = 10;

/**
 * Decides the candidate semantic predicates in ONE light-tier call (QuadSentinel §4.1, appendix A.2 state
 * tracker). The model returns only values that change. Semantics of the result, per candidate:
 * - reported by the model: its boolean as `'true'`/`'false'` with the model's confidence;
 * - not reported and `current` is `'true'` or `'false'`: unchanged (frame assumption), confidence 1 — so the
 *   caller chooses the baseline (pass `'false'` for event predicates, the session value for sticky ones);
 * - not reported and `current` is `'unknown'` or absent: `'unknown'`, confidence 0.
 * A name reported twice with different values is a malformed answer. Rejects with `LlmError` when the model
 * is down, slow, refuses or answers nonsense: callers then treat every candidate as unknown.
 */
export function evaluateSemanticPredicates(
  client: LlmClient,
  input: SemanticPredicatesInput,
  opts: CallOptions = {},
): Promise<SemanticPredicatesResult> {
  return evaluateWithTier(client, 'light', input, opts);
}

/**
 * The paper's "state expansion" (§4.3): the same evaluation on the strong tier, for the predicates of a
 * low-confidence witness.
 */
export function expandState(client: LlmClient, input: SemanticPredicatesInput, opts: CallOptions = {}): Promise<SemanticPredicatesResult> {
  return evaluateWithTier(client, 'strong', input, opts);
}

async function evaluateWithTier(
  client: LlmClient,
  tier: LlmTier,
  input: SemanticPredicatesInput,
  opts: CallOptions,
): Promise<SemanticPredicatesResult> {
  const candidates = dedupe(input.predicates);
  const current = input.current ?? {};
  if (candidates.length === 0) return { values: {}, ignored: [], usage: emptyUsage() };
  const user = dataMessage(
    {
      predicates: candidates.map((p) => ({ name: p.name, description: p.description, keywords: p.keywords ?? [] })),
      current: Object.fromEntries(candidates.map((p) => [p.name, current[p.name] ?? 'unknown'])),
    },
    {
      observations: (input.observations ?? []).slice(-MAX_OBSERVATIONS),
      interaction: interactionView(input.interaction),
    },
  );
  const { value: answer, usage } = await client.chatJson(
    { tier, system: STATE_TRACKER_SYSTEM, user, maxTokens: 60 + 40 * candidates.length, schemaTag: STATE_TRACKER_TAG },
    StateTrackerAnswerSchema,
    opts,
  );
  const names = new Set(candidates.map((p) => p.name));
  const reported = new Map<string, { value: boolean; confidence: number }>();
  const ignored: string[] = [];
  for (const u of answer.updates) {
    if (!names.has(u.name)) {
      ignored.push(u.name);
      continue;
    }
    const prev = reported.get(u.name);
    if (prev && prev.value !== u.value) {
      throw new LlmError('llm_malformed_output', `state tracker: predicate ${u.name} reported both true and false`);
    }
    reported.set(u.name, { value: u.value, confidence: Math.min(prev?.confidence ?? 1, u.confidence) });
  }
  const values: Record<string, PredicateValue> = {};
  for (const p of candidates) {
    const r = reported.get(p.name);
    if (r) values[p.name] = { value: r.value ? 'true' : 'false', confidence: r.confidence, changed: true };
    else {
      const cur = current[p.name] ?? 'unknown';
      values[p.name] = { value: cur, confidence: cur === 'unknown' ? 0 : 1, changed: false };
    }
  }
  return { values, ignored, usage };
}

function dedupe(ps: SemanticPredicate[]): SemanticPredicate[] {
  const seen = new Set<string>();
  return ps.filter((p) => (seen.has(p.name) ? false : (seen.add(p.name), true)));
}
