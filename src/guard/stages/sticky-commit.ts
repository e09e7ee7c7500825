import type { Truth } from '../../core/types.js';
import { need, type Stage } from './context.js';

/**
 * Sticky predicates that became true are committed to Γ (memory and store) only for interactions that happen:
 * a denied read did not read anything.
 */
export const stickyCommit: Stage = {
  name: 'stickyCommit',
  run(ctx, env) {
    const track = need(ctx.track, 'the track');
    if (need(ctx.decision, 'the decision').decision !== 'allow' || track.newlySticky.length === 0) return;
    const sticky = need(ctx.sticky, 'the sticky values');
    for (const name of track.newlySticky) sticky.set(name, 'true');
    return env.store.state.setStickyMany(env.stickyKey(ctx.interaction), track.newlySticky.map((n) => [n, 'true'] as [string, Truth]));
  },
};
