import { makeDecision, type Decision } from '../../core/types.js';
import { sharingRealPaths } from '../../detectors/real-paths.js';
import { PoolBusyError } from '../text-pool.js';
import { need, type GuardContext, type GuardEnv, type Stage } from './context.js';

/**
 * The state tracker and the verifier: the candidates C = TopK ∪ MustCheck evaluated under Γ (the budget uses the
 * level from before this interaction), and the rules not shown satisfied. An interaction with long texts is read in
 * the worker pool (long-texts.ts); when the pool is full, it is refused as busy, with a retry-after.
 */
export const tracking: Stage = {
  name: 'tracking',
  async run(ctx, env) {
    const i = ctx.interaction;
    const before = need(ctx.before, 'the threat state before');
    const sticky = (ctx.sticky = await env.stickyOf(env.stickyKey(i)));
    let track;
    try {
      // The path detectors of this interaction share their realpath answers (with the proxy's, when it holds them).
      track = await sharingRealPaths(i, new Map(), () => env.tracker(i, before.level, sticky, ctx.signal));
    } catch (err) {
      if (!(err instanceof PoolBusyError)) throw err;
      ctx.decision = busyDecision(ctx, env, err);
      ctx.final = true;
      return;
    }
    ctx.track = track;
    ctx.outcomes = env.verifier(i.kind, track);
    ctx.usages.push(track.usage);
  },
};

/**
 * The refusal of an interaction the guard had no room to read: nothing was read, so nothing was let through; the
 * agent may send it again after the retry-after. Not evidence against the agent (τ is not moved). Data flow's
 * reading of a long send refuses with it too (stages/flow.ts).
 */
export function busyDecision(ctx: GuardContext, env: GuardEnv, err: PoolBusyError): Decision {
  const seconds = Math.ceil(err.retryAfterMs / 100) / 10;
  return makeDecision({
    decision: 'deny',
    rationale: `Refused because the guard is busy: ${err.message}, so this ${ctx.interaction.kind.replace('_', ' ')} with long texts could not be read now and was not let through unread. Retry in ${seconds} s.`,
    remediation: `wait ${seconds} s (retryAfterMs ${err.retryAfterMs}) and send it again; if this recurs, the operator can raise guard.pool.workers or guard.pool.queue.`,
    source: 'busy',
    policy: env.policy,
    detail: { retryAfterMs: err.retryAfterMs },
  });
}
