import { errorMessage, LlmError } from '../../core/errors.js';
import type { Interaction, Witness } from '../../core/types.js';
import type { Severity } from '../../policy/schema.js';
import type { CallOptions, LlmClient } from '../client.js';
import type { LlmTier } from '../config.js';
import { dataMessage } from '../neutralize.js';
import { REFEREE_SYSTEM, REFEREE_TAG, RefereeAnswerSchema } from '../prompts/referee.js';
import { interactionView } from '../prompts/view.js';
import { emptyUsage, sumUsage, type LlmUsage } from '../usage.js';

/** A violated SOFT rule submitted for review. */
export interface ReviewedRule {
  id: string;
  text: string;
  severity: Severity;
  /** Must be false or absent: hard rules are never reviewed. */
  hard?: boolean;
}

export interface ReviewInput {
  interaction: Interaction;
  violatedRules: ReviewedRule[];
  /** The verifier's machine-checked witnesses of those violations. */
  witness: Witness[];
  threatLevel: number;
}

export type Ruling = 'deny' | 'allow' | 'ambiguous';

export interface ReviewResult {
  ruling: Ruling;
  /** The model's reason, followed by the machine-checked witness when the reason does not name it. */
  rationale: string;
  confidence: number;
  usage: LlmUsage;
}

export interface HierarchicalReviewResult extends ReviewResult {
  /** The tier whose verdict stands. */
  decidedBy: LlmTier;
  escalated: boolean;
  /** The light tier's ruling, or its error when it failed (then the strong tier decided). */
  light: { ruling: Ruling; confidence: number; rationale: string } | { error: string };
}

/** A light-tier `allow` stands only at or above this confidence; below, it counts as ambiguous and escalates. */
export const CLEAR_ALLOW_CONFIDENCE = 0.7;

/**
 * One review of a soft-rule denial by one tier (appendix A.2 "REFEREE"). Throws `RangeError` before any request
 * when a hard rule is passed (a programming error: hard rules always deny). Rejects with `LlmError` on failure.
 */
export async function reviewDenial(client: LlmClient, tier: LlmTier, input: ReviewInput, opts: CallOptions = {}): Promise<ReviewResult> {
  assertSoftOnly(input.violatedRules);
  const user = dataMessage(
    {
      violated_rules: input.violatedRules.map((r) => ({ id: r.id, text: r.text, severity: r.severity })),
      witness: input.witness.map((w) => ({ rule: w.rule, predicates: w.predicates, confidence: w.confidence })),
      threat_level: input.threatLevel,
    },
    { interaction: interactionView(input.interaction) },
  );
  const { value, usage } = await client.chatJson(
    { tier, system: REFEREE_SYSTEM, user, maxTokens: 300, schemaTag: REFEREE_TAG },
    RefereeAnswerSchema,
    opts,
  );
  return { ruling: value.verdict, confidence: value.confidence, rationale: citeWitness(value.reason, input.witness), usage };
}

/**
 * The referee's hierarchical execution (§4.4): the light tier rules first; a clear `allow` (confidence ≥
 * CLEAR_ALLOW_CONFIDENCE) stands; `deny`, `ambiguous`, a hesitant allow, or a light-tier failure escalate to the
 * strong tier, whose verdict stands (including `ambiguous`, which the caller maps through the rule's
 * `on_unknown`). A strong-tier failure rejects with its `LlmError`. The rationale always cites the witness.
 */
export async function hierarchicalReview(client: LlmClient, input: ReviewInput, opts: CallOptions = {}): Promise<HierarchicalReviewResult> {
  assertSoftOnly(input.violatedRules);
  let light: HierarchicalReviewResult['light'];
  let lightUsage = emptyUsage();
  try {
    const r = await reviewDenial(client, 'light', input, opts);
    lightUsage = r.usage;
    if (r.ruling === 'allow' && r.confidence >= CLEAR_ALLOW_CONFIDENCE) {
      return { ...r, decidedBy: 'light', escalated: false, light: { ruling: r.ruling, confidence: r.confidence, rationale: r.rationale } };
    }
    light = { ruling: r.ruling, confidence: r.confidence, rationale: r.rationale };
  } catch (err) {
    // Only model failures escalate; a caller abort must stop here, and bugs must surface.
    if (!(err instanceof LlmError) || err.code === 'llm_aborted') throw err;
    light = { error: errorMessage(err) };
  }
  const strong = await reviewDenial(client, 'strong', input, opts);
  return { ...strong, usage: sumUsage(lightUsage, strong.usage), decidedBy: 'strong', escalated: true, light };
}

/** Appends the machine-checked witness unless the reason already names every witness predicate. */
export function citeWitness(reason: string, witness: Witness[]): string {
  const text = reason.trim();
  if (witness.length === 0) return text;
  const names = witness.flatMap((w) => Object.keys(w.predicates));
  if (names.length > 0 && names.every((n) => text.includes(n))) return text;
  const cited = witness
    .map((w) => `rule ${w.rule}: ${Object.entries(w.predicates).map(([k, v]) => `${k}=${v}`).join(', ')}`)
    .join('; ');
  return `${text}${/[.!?]$/.test(text) ? '' : '.'} Machine-checked witness: ${cited}.`;
}

function assertSoftOnly(rules: ReviewedRule[]): void {
  const hard = rules.filter((r) => r.hard === true).map((r) => r.id);
  if (hard.length > 0) {
    throw new RangeError(`hard rules are never sent for model review (got ${hard.join(', ')}); they always deny`);
  }
}
