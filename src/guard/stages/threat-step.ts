import { tauForLevel } from '../model/threat.js';
import type { GuardModelHooks } from '../model/index.js';
import { need, type GuardContext, type GuardEnv, type Stage } from './context.js';

/**
 * The threat watcher's model complement (`guard.model.watcher: complement`): a ±1 level step, asked only when the
 * interaction had violations or injection evidence. τ is set to the lower bound of the new level.
 */
export const threatStep: Stage = {
  name: 'threatStep',
  run(ctx, env) {
    const advisor = env.model?.threat;
    const evidence = need(ctx.evidence, 'the threat evidence');
    if (!advisor || (evidence.violations.length === 0 && evidence.injectionScore === 0)) return;
    return step(ctx, env, advisor);
  },
};

async function step(ctx: GuardContext, env: GuardEnv, advisor: NonNullable<GuardModelHooks['threat']>): Promise<void> {
  const i = ctx.interaction;
  const threat = need(ctx.threat, 'the threat update');
  const t = await advisor({
    interaction: i,
    level: threat.level,
    violations: need(ctx.outcomes, 'the outcomes').filter((o) => o.status === 'violated'),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  ctx.usages.push(t.usage);
  ctx.modelThreat = { delta: t.delta, reason: t.reason };
  if (t.delta === 0) return;
  const level = Math.min(4, Math.max(0, threat.level + t.delta));
  const after = await env.store.state.updateThreat(i.agent, () => ({ tau: tauForLevel(level, env.watcher.options.level_bounds), level }));
  ctx.threat = { ...threat, tau: after.tau, level: after.level };
}
