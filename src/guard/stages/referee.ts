import { withKey } from '../../core/with-key.js';
import { referee as decide } from '../referee.js';
import { need, pipelineDetail, type Stage } from './context.js';

/**
 * The referee: deny, flag or ignore each outcome (hard rules, severity against the threshold of the level, the
 * model review of soft denials), and which rules hold the call or redact the result. The decision's detail is the
 * referee's (the review) plus the pipeline's, with the model usage of every stage summed.
 */
export const referee: Stage = {
  name: 'referee',
  async run(ctx, env) {
    const i = ctx.interaction;
    const verdict = await decide({
      kind: i.kind,
      outcomes: need(ctx.outcomes, 'the outcomes'),
      threatLevel: need(ctx.threat, 'the threat update').level,
      denyAtRank: env.options.deny_at_rank,
      ...(env.model ? { reviewer: env.model.reviewer } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      interaction: i,
    });
    ctx.verdict = verdict;
    ctx.usages.push(verdict.decision.detail.llm);
    ctx.decision = withKey(verdict.decision, 'detail', { ...verdict.decision.detail, ...pipelineDetail(ctx) });
  },
};
