import { makeDecision } from '../../core/types.js';
import type { Stage } from './context.js';

/** A quarantined agent is denied everything, before any work is done. */
export const quarantineGate: Stage = {
  name: 'quarantineGate',
  async run(ctx, env) {
    const i = ctx.interaction;
    const before = await env.store.state.getThreat(i.agent);
    ctx.before = before;
    if (!before.quarantined) return;
    ctx.decision = makeDecision({
      decision: 'deny',
      rationale: `Agent "${i.agent}" is quarantined by QuadGuard${before.reason ? ` (${before.reason})` : ''}; every interaction is denied until an operator releases it with \`quadguard agents release ${i.agent}\`.`,
      source: 'quarantine',
      threatLevel: 4,
    });
    ctx.final = true;
  },
};
