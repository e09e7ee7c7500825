import { SEVERITY_RANK, type Rule } from '../policy/schema.js';
import type { Decision, DecisionDetail, Interaction, InteractionKind, ModelUsage, Witness } from '../core/types.js';
import { makeDecision } from '../core/types.js';
import { KINDS } from '../core/kinds.js';

/**
 * The referee (QuadSentinel §4.4), deterministic by default. For each rule the verifier found violated or
 * undecided it decides deny, flag or ignore:
 * - `monitor` rules never deny; they flag.
 * - hard rules always deny when violated, and are never sent to a model.
 * - soft enforced rules deny when their severity reaches the threshold of the agent's threat level; a
 *   configured reviewer (the model issue's hierarchical referee) may overturn a soft denial.
 * - an unknown outcome follows the rule's `on_unknown` (deny, allow, or allow-and-flag).
 * - a soft enforced rule with `effect: approve` that would deny (violated at any severity, or unknown with
 *   `on_unknown: deny`) HOLDS the interaction for a person instead: no model reviews it and the threat level
 *   does not lower it to a flag. When another rule denies, the held rules are reported with the denial (an
 *   approval could not let the call through anyway). The pipeline turns a hold into an approval request.
 * The rationale is built from the rule text, the machine-checked witness and the remediation.
 */

/** A rule the verifier could not show satisfied. */
export interface RuleOutcome {
  id: string;
  def: Rule;
  onUnknown: 'deny' | 'allow' | 'flag';
  status: 'violated' | 'unknown';
  witness: Witness;
}

/** What a reviewer of a soft denial answers. */
export interface ReviewRuling {
  ruling: 'deny' | 'allow';
  rationale?: string;
  /** Model accounting, copied into the decision's detail.llm. */
  usage?: ModelUsage;
}

/**
 * Where a model may review soft denials (filled by the model-backed referee). It is only ever called with soft,
 * enforced, violated rules; hard rules and unknown outcomes never reach it.
 */
export type SoftDenialReviewer = (input: {
  kind: InteractionKind;
  rules: RuleOutcome[];
  threatLevel: number;
  signal?: AbortSignal;
  /** The interaction under review (a model reviewer needs it). */
  interaction?: Interaction;
}) => Promise<ReviewRuling>;

export interface RefereeInput {
  kind: InteractionKind;
  outcomes: RuleOutcome[];
  threatLevel: number;
  /** Severity rank at or above which a soft violation is denied, indexed by threat level. */
  denyAtRank: readonly number[];
  reviewer?: SoftDenialReviewer;
  signal?: AbortSignal;
  /** Passed on to the reviewer. */
  interaction?: Interaction;
}

export interface RefereeVerdict {
  decision: Decision;
  /** Rules whose effect is `redact` and that the proxy should apply by masking instead of denying. */
  redact: RuleOutcome[];
  /**
   * Rules with `effect: approve` that hold the interaction. Non-empty only when nothing else denies; the
   * decision is then a denial (`source: approval`) that a person's approval can turn into a single allow.
   */
  hold: RuleOutcome[];
}

/** Whether an outcome that would deny is instead held for a person's approval. */
function holds(o: RuleOutcome): boolean {
  return o.def.effect === 'approve' && !o.def.hard && o.def.mode === 'enforce';
}

function formatWitness(w: Witness): string {
  const parts = Object.entries(w.predicates).map(([name, v]) => (v === 'true' ? name : v === 'false' ? `not ${name}` : `${name}=unknown`));
  return parts.length ? parts.join(', ') : '(the rule fires in every state)';
}

/**
 * One self-contained sentence per rule: id, severity, policy sentence, witness. The remediation is not repeated
 * here: it travels in `Decision.remediation`, and the denial text (src/proxy/denial.ts) says it once.
 */
export function describeOutcome(o: RuleOutcome): string {
  const kind = o.status === 'unknown' ? 'could not be shown satisfied' : 'violated';
  return `rule \`${o.id}\` (${o.def.severity}${o.def.hard ? ', hard' : ''}) ${kind}: "${o.def.text}" — witness: ${formatWitness(o.witness)}.`;
}

/** Decides from the verifier's outcomes. Never throws on a reviewer failure: the denial stands (fail closed). */
export async function referee(input: RefereeInput): Promise<RefereeVerdict> {
  const deny: RuleOutcome[] = [];
  const soft: RuleOutcome[] = [];
  const flagged: RuleOutcome[] = [];
  const redact: RuleOutcome[] = [];
  const hold: RuleOutcome[] = [];
  const threshold = input.denyAtRank[Math.min(input.threatLevel, input.denyAtRank.length - 1)] ?? SEVERITY_RANK.low;
  // Only a result has content to mask; a redact rule on a request or message denies like any other rule.
  const redactable = KINDS[input.kind].redactable;

  for (const o of input.outcomes) {
    if (o.def.mode === 'monitor') {
      flagged.push(o);
      continue;
    }
    if (o.status === 'unknown') {
      if (o.onUnknown === 'deny') (holds(o) ? hold : deny).push(o);
      else if (o.onUnknown === 'flag') flagged.push(o);
      continue;
    }
    if (o.def.effect === 'redact' && redactable) {
      redact.push(o);
      continue;
    }
    if (o.def.hard) deny.push(o);
    else if (holds(o)) hold.push(o);
    else if (SEVERITY_RANK[o.def.severity] >= threshold) soft.push(o);
    else flagged.push(o);
  }

  const detail: DecisionDetail = {};
  if (soft.length > 0 && input.reviewer) {
    try {
      const ruling = await input.reviewer({ kind: input.kind, rules: soft, threatLevel: input.threatLevel, ...(input.signal ? { signal: input.signal } : {}), ...(input.interaction ? { interaction: input.interaction } : {}) });
      if (ruling.usage) detail.llm = ruling.usage;
      detail.review = { ruling: ruling.ruling, ...(ruling.rationale !== undefined ? { rationale: ruling.rationale } : {}) };
      if (ruling.ruling === 'allow') flagged.push(...soft);
      else deny.push(...soft);
    } catch (err) {
      detail.review = { error: err instanceof Error ? err.message : String(err) };
      deny.push(...soft);
    }
  } else {
    deny.push(...soft);
  }

  if (deny.length > 0) deny.push(...hold);
  const witness = [...deny, ...(deny.length > 0 ? [] : hold), ...redact, ...flagged].map((o) => o.witness);
  const remediation = deny.map((o) => o.def.remediation).find((r) => r !== undefined);
  if (deny.length > 0) {
    const reviewNote = detail.review && 'rationale' in detail.review && detail.review.rationale !== undefined ? ` Reviewer: ${detail.review.rationale}` : '';
    return {
      redact: [],
      hold: [],
      decision: makeDecision({
        decision: 'deny',
        rationale: `Denied by policy: ${deny.map(describeOutcome).join(' ')}${reviewNote}`,
        rules: deny.map((o) => o.id),
        flagged: flagged.map((o) => o.id),
        witness,
        remediation,
        threatLevel: input.threatLevel,
        detail,
      }),
    };
  }
  if (hold.length > 0) {
    const remediation = hold.map((o) => o.def.remediation).find((r) => r !== undefined);
    return {
      redact: [],
      hold,
      decision: makeDecision({
        decision: 'deny',
        rationale: `Held for approval by QuadGuard: ${hold.map(describeOutcome).join(' ')}`,
        rules: hold.map((o) => o.id),
        flagged: flagged.map((o) => o.id),
        witness,
        remediation,
        threatLevel: input.threatLevel,
        source: 'approval',
        detail,
      }),
    };
  }
  const notes = [...redact.map((o) => `redacted per ${describeOutcome(o)}`), ...flagged.map((o) => `flagged: ${describeOutcome(o)}`)];
  const review = detail.review;
  if (review && 'ruling' in review && review.ruling === 'allow' && review.rationale !== undefined) notes.push(`Reviewer: ${review.rationale}`);
  return {
    redact,
    hold: [],
    decision: makeDecision({
      decision: 'allow',
      rationale: notes.length ? `Allowed. ${notes.join(' ')}` : 'Allowed: no rule of the policy is violated.',
      rules: redact.map((o) => o.id),
      flagged: flagged.map((o) => o.id),
      witness,
      threatLevel: input.threatLevel,
      detail,
    }),
  };
}
