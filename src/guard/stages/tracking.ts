import { need, type Stage } from './context.js';

/**
 * The state tracker and the verifier: the candidates C = TopK ∪ MustCheck evaluated under Γ (the budget uses the
 * level from before this interaction), and the rules not shown satisfied.
 */
export const tracking: Stage = {
  name: 'tracking',
  async run(ctx, env) {
    const i = ctx.interaction;
    const before = need(ctx.before, 'the threat state before');
    ctx.sticky = await env.stickyOf(env.stickyKey(i));
    // Long texts are scored for injection in a worker first, so that reading them does not stall other sessions.
    const release = await env.scoreAhead(i);
    try {
      const track = await env.tracker(i, before.level, ctx.sticky, ctx.signal);
      ctx.track = track;
      ctx.outcomes = env.verifier(i.kind, track);
      ctx.usages.push(track.usage);
    } finally {
      release();
    }
  },
};
