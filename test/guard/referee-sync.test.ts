import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INTERACTION_KINDS, KINDS } from '../../src/core/kinds.js';
import { makeDecision, type DecisionDetail } from '../../src/core/types.js';
import { describeOutcome, referee, type RefereeInput, type RefereeVerdict, type RuleOutcome, type SoftDenialReviewer } from '../../src/guard/referee.js';
import { RuleSchema, SEVERITY_RANK } from '../../src/policy/schema.js';

/**
 * The referee answers without a promise unless it asks a reviewer. Below, the former referee (always async), written
 * out: the same verdict, key for key, for any outcomes, kind, level and reviewer (none, allowing, denying, failing).
 */

function holds(o: RuleOutcome): boolean {
  return o.def.effect === 'approve' && !o.def.hard && o.def.mode === 'enforce';
}

async function formerReferee(input: RefereeInput): Promise<RefereeVerdict> {
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

const anOutcome = fc
  .record({
    id: fc.constantFrom('r1', 'r2', 'r3', 'r4'),
    severity: fc.constantFrom('low', 'medium', 'high', 'critical'),
    hard: fc.boolean(),
    mode: fc.constantFrom('enforce', 'monitor'),
    effect: fc.constantFrom('deny', 'redact', 'approve'),
    onUnknown: fc.constantFrom('deny', 'allow', 'flag'),
    status: fc.constantFrom('violated', 'unknown'),
    remediation: fc.option(fc.constantFrom('ask first', 'use the sandbox'), { nil: undefined }),
  })
  .map(({ id, severity, hard, mode, effect, onUnknown, status, remediation }): RuleOutcome => ({
    id,
    def: RuleSchema.parse({ id, text: `rule ${id}`, applies_to: ['tool_call'], formula: '!p', severity, hard, mode, effect, ...(remediation ? { remediation } : {}) }),
    onUnknown: onUnknown as RuleOutcome['onUnknown'],
    status: status as RuleOutcome['status'],
    witness: { rule: id, predicates: { p: status === 'violated' ? 'true' : 'unknown' }, confidence: 1 },
  }));

const reviewers: Record<string, SoftDenialReviewer | undefined> = {
  none: undefined,
  allows: async () => ({ ruling: 'allow', rationale: 'fine', usage: { calls: 1, promptTokens: 2, completionTokens: 3, ms: 4 } }),
  denies: async () => ({ ruling: 'deny' }),
  fails: async () => {
    throw new Error('model down');
  },
};

describe('referee: synchronous unless a reviewer is asked', () => {
  it('gives the former verdict, and a promise only when it asks a reviewer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(anOutcome, { maxLength: 5 }),
        fc.constantFrom(...INTERACTION_KINDS),
        fc.integer({ min: 0, max: 4 }),
        fc.constantFrom(...Object.keys(reviewers)),
        async (outcomes, kind, threatLevel, who) => {
          const reviewer = reviewers[who];
          const input: RefereeInput = { kind, outcomes, threatLevel, denyAtRank: [3, 3, 2, 1, 1], ...(reviewer ? { reviewer } : {}) };
          const got = referee(input);
          const asks = reviewer !== undefined && (await formerAsks(input));
          expect(got instanceof Promise).toBe(asks);
          const want: RefereeVerdict = await formerReferee(input);
          expect(await got).toEqual(want);
        },
      ),
      { numRuns: 600 },
    );
  });
});

/** Whether the former referee called its reviewer on `input`. */
async function formerAsks(input: RefereeInput): Promise<boolean> {
  let asked = false;
  const reviewer = input.reviewer;
  if (!reviewer) return false;
  await formerReferee({ ...input, reviewer: (a) => ((asked = true), reviewer(a)) });
  return asked;
}
