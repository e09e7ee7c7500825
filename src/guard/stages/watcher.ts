import { isResultKind } from '../../core/kinds.js';
import { need, type Stage } from './context.js';

/**
 * The threat watcher: τ moves with this interaction's evidence (severities of the violated rules, the strongest
 * injection score) and the agent's request rate. A call held for approval is a request, not evidence of an attack.
 */
export const watcher: Stage = {
  name: 'watcher',
  async run(ctx, env) {
    const i = ctx.interaction;
    const track = need(ctx.track, 'the track');
    let injectionScore = 0;
    for (const [name, v] of track.values) {
      if (v.value === 'true' && env.injectionPredicates.has(name)) injectionScore = Math.max(injectionScore, v.score ?? 1);
    }
    const violations = need(ctx.outcomes, 'the outcomes')
      // A rate limit over is not evidence of an attack (rate is not threat): it is refused with a retry-after.
      .filter((o) => o.status === 'violated' && !(o.def.effect === 'approve' && !o.def.hard) && !env.rateRules.has(o.id))
      .map((o) => o.def.severity);
    ctx.evidence = { violations, injectionScore };
    let update = { burst: false, rate: 0 };
    // A result is the answer to a request already counted: one interaction counts once against the burst window.
    const counts = !isResultKind(i.kind);
    const now = env.now();
    // The window is the store's, shared by every replica (one statement); counted once, outside the τ retry loop.
    const rate = await env.store.state.countRequest(i.agent, now, env.watcher.options.burst_window_ms, counts);
    const after = await env.store.state.updateThreat(
      i.agent,
      (current) => {
        const u = env.watcher.score(current.tau, { violations, injectionScore, now, counts }, rate);
        update = u;
        return { tau: u.tau, level: u.level };
      },
      ctx.before,
    );
    ctx.threat = { tau: after.tau, level: after.level, burst: update.burst, rate: update.rate };
  },
};
