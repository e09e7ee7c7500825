import { resolveHold } from '../approvals.js';
import { need, type Stage } from './context.js';

/**
 * Rules with `effect: approve`: a held call that a person approved passes once (the approval is spent);
 * otherwise it is denied and waits under an approval id.
 */
export const holds: Stage = {
  name: 'holds',
  async run(ctx, env) {
    const verdict = need(ctx.verdict, 'the verdict');
    if (verdict.hold.length === 0) return;
    ctx.decision = await resolveHold(env.store, ctx.interaction, need(ctx.decision, 'the decision'), { ttlMs: env.options.approval_ttl_ms, now: env.now() });
  },
};
