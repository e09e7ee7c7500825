import { errorMessage } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import type { LlmClient } from '../../llm/client.js';
import { hierarchicalReview } from '../../llm/evaluators/review.js';
import { UsageMeter } from '../../llm/usage.js';
import type { SoftDenialReviewer } from '../referee.js';
import { callOpts, shortUsage } from './usage.js';

/**
 * The hierarchical referee for soft, enforced, violated rules only (the deterministic referee never passes hard
 * rules or unknown outcomes). A clear light `allow` stands; otherwise the strong tier decides; strong `ambiguous`
 * DENIES (fail closed), and so does any failure. The rationale cites the machine-checked witness.
 */
export function modelReviewer(client: LlmClient, log: Logger): SoftDenialReviewer {
  return async ({ rules, threatLevel, signal, interaction }) => {
    const meter = new UsageMeter();
    if (interaction === undefined) return { ruling: 'deny', rationale: 'model review skipped: no interaction given; the denial stands' };
    try {
      const r = await hierarchicalReview(
        client,
        {
          interaction,
          violatedRules: rules.map((o) => ({ id: o.id, text: o.def.text, severity: o.def.severity, hard: o.def.hard })),
          witness: rules.map((o) => o.witness),
          threatLevel,
        },
        callOpts(meter, signal),
      );
      // `ambiguous` from the tier whose verdict stands denies: the verifier proved the violation, and the model
      // could not show it spurious (fail closed).
      const ruling = r.ruling === 'allow' ? 'allow' : 'deny';
      const how = r.ruling === 'ambiguous' ? 'could not decide (ambiguous), so the denial stands' : `ruled ${r.ruling}`;
      return { ruling, rationale: `${r.decidedBy} model ${how}${r.escalated ? ' after escalation' : ''}: ${r.rationale}`, usage: shortUsage(meter.total) };
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'model review of a soft denial failed; the denial stands');
      return { ruling: 'deny', rationale: `model review failed (${errorMessage(err).slice(0, 160)}); the denial stands`, usage: shortUsage(meter.total) };
    }
  };
}
