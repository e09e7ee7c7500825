import { makeDecision } from '../../core/types.js';
import { need, pipelineDetail, type GuardContext, type GuardEnv, type Stage } from './context.js';

/**
 * Level 4 quarantines the agent (unless `guard.watcher.quarantine` is off): this interaction and every later one
 * is denied until an operator releases it. Only rules actually violated are named: an unknown (flagged) outcome
 * is not evidence against the agent.
 */
export const quarantine: Stage = {
  name: 'quarantine',
  run(ctx, env) {
    const threat = need(ctx.threat, 'the threat update');
    if (threat.level < 4 || !env.watcher.options.quarantine) return;
    return quarantineAgent(ctx, env);
  },
};

async function quarantineAgent(ctx: GuardContext, env: GuardEnv): Promise<void> {
  const i = ctx.interaction;
  const violated = need(ctx.outcomes, 'the outcomes').filter((o) => o.status === 'violated');
  // The rate never raises τ (stages/rate-limit.ts): the reason is always the threat evidence.
  const reason = violated.length > 0 ? `threat level 4 after violations of ${violated.map((o) => o.id).join(', ')}` : 'threat level 4 after violations of the policy and injected content';
  await env.store.state.quarantine(i.agent, reason);
  env.log.warn({ agent: i.agent, reason }, 'agent quarantined');
  ctx.decision = makeDecision({
    decision: 'deny',
    rationale: `Agent "${i.agent}" has been quarantined by QuadGuard (${reason}); every interaction is denied until an operator releases it with \`quadguard agents release ${i.agent}\`.`,
    rules: violated.map((o) => o.id),
    witness: violated.map((o) => o.witness),
    source: 'quarantine',
    threatLevel: 4,
    detail: pipelineDetail(ctx),
  });
  ctx.final = true;
}
