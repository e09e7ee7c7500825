import { errorMessage } from '../../core/errors.js';
import { makeDecision } from '../../core/types.js';
import { PoolBusyError } from '../text-pool.js';
import { need, type Stage } from './context.js';
import { busyDecision } from './tracking.js';

/**
 * The data-flow stages (docs/data-flow.md): before anything reads the interaction, its capability labels and any
 * private data it carries out are looked up; once decided, a violation through a data-flow predicate names the
 * read the data came from; after the audit row, the fingerprints of a private read are kept for the identity.
 * A long send that finds the worker pool full is refused as busy, with a retry-after, as the tracker's pass is
 * (stages/tracking.ts): nothing of it was read, so nothing is let through.
 */
export const flowInspect: Stage = {
  name: 'flowInspect',
  async run(ctx, env) {
    let i;
    try {
      i = await env.dataflow.inspect(ctx.interaction);
    } catch (err) {
      if (!(err instanceof PoolBusyError)) throw err;
      ctx.decision = busyDecision(ctx, env, err);
      ctx.final = true;
      return;
    }
    if (i.flow) await env.provenance.inspect(i, i.flow);
    // What the audit row and data flow's record take from the text alone starts beside the detector pass (long ones).
    if (env.options.audit) env.long.auditAhead(i);
    env.dataflow.readAhead(i);
    ctx.interaction = i;
  },
};

export const flowAnnotate: Stage = {
  name: 'flowAnnotate',
  run(ctx, env) {
    env.dataflow.annotate(ctx.interaction, need(ctx.decision, 'the decision'), env.flowPredicates);
  },
};

export const flowRecord: Stage = {
  name: 'flowRecord',
  always: true,
  async run(ctx, env) {
    await env.dataflow.record(ctx.interaction, need(ctx.decision, 'the decision'));
    await env.provenance.record(ctx.interaction, need(ctx.decision, 'the decision'));
  },
  // Private data whose fingerprints could not be kept would leave unseen later: withhold it now.
  failClosed: (_ctx, env, err) =>
    makeDecision({
      decision: 'deny',
      rationale: `Denied because the data-flow fingerprints or provenance of this read could not be recorded (${errorMessage(err).replace(/^store_\w+: /, '').slice(0, 300)}; fail closed); retry, or ask the operator to check the QuadGuard logs.`,
      source: 'error',
      policy: env.policy,
    }),
};
