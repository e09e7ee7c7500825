import type { GuardModelHooks } from '../model/index.js';
import { expandLowConfidence } from '../model/expansion.js';
import { need, type GuardContext, type GuardEnv, type Stage } from './context.js';

/**
 * State expansion (§4.3), with a model only: low-confidence semantic predicates in a witness are re-decided once
 * by the strong tier, and the rules are verified again on the revised track.
 */
export const modelExpansion: Stage = {
  name: 'modelExpansion',
  run(ctx, env) {
    if (!env.model) return;
    return expand(ctx, env, env.model);
  },
};

async function expand(ctx: GuardContext, env: GuardEnv, model: GuardModelHooks): Promise<void> {
  const i = ctx.interaction;
  const expansion = await expandLowConfidence(model, {
    book: env.book,
    interaction: i,
    track: need(ctx.track, 'the track'),
    outcomes: need(ctx.outcomes, 'the outcomes'),
    sticky: need(ctx.sticky, 'the sticky values'),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  if (!expansion) return;
  ctx.track = expansion.track;
  ctx.outcomes = env.verifier(i.kind, expansion.track);
  ctx.usages.push(expansion.usage);
  ctx.expanded = expansion.predicates;
}
