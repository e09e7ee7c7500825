import { errorMessage } from '../../core/errors.js';
import { makeDecision } from '../../core/types.js';
import { auditEntryFor } from '../../store/audit-schema.js';
import { need, type Stage } from './context.js';

/**
 * The recording stages: they run for every decision, the denials of earlier stages and of the fail-closed catch
 * included.
 */

/** The model layer's per-session history sees the decided interaction (memory only; a failure changes nothing). */
export const observe: Stage = {
  name: 'observe',
  always: true,
  tolerant: true,
  run(ctx, env) {
    env.model?.observe(ctx.interaction, need(ctx.decision, 'the decision'));
  },
};

/** The policy that decided, and how long the check took. */
export const stamp: Stage = {
  name: 'stamp',
  always: true,
  run(ctx, env) {
    const decision = need(ctx.decision, 'the decision');
    decision.policy = env.policy;
    decision.elapsedMs = performance.now() - ctx.started;
  },
};

/**
 * The audit row (`guard.audit`, on by default). An allow that cannot be recorded is denied: the record is part of
 * the product. A denial that cannot be recorded stands.
 */
export const audit: Stage = {
  name: 'audit',
  always: true,
  async run(ctx, env) {
    if (!env.options.audit) return;
    const decision = need(ctx.decision, 'the decision');
    const entry = auditEntryFor(ctx.interaction, decision);
    // A long interaction's row is built in the worker pool, except a refusal because the pool is full: that one is
    // answered at once, its row built here rather than behind the queue it was refused by.
    decision.auditId = (await env.store.audit.append(decision.source === 'busy' ? entry : await env.long.auditEntry(entry))).auditId;
  },
  failClosed(ctx, env, err) {
    // Truthful: the answer says the row is missing and which store failed, so the operator knows where to look.
    const message = errorMessage(err).replace(/^store_\w+: /, '').slice(0, 300);
    const why = message.includes(env.store.location) ? message : `the ${env.store.engine === 'postgres' ? 'PostgreSQL' : 'SQLite'} store ${env.store.location} failed: ${message}`;
    const decision = ctx.decision;
    if (decision && decision.decision !== 'allow') {
      return { ...decision, rationale: `${decision.rationale} This denial could not be recorded in the audit log (${why}).` };
    }
    return makeDecision({ decision: 'deny', rationale: `Denied because the decision could not be recorded in the audit log (fail closed): ${why}.`, source: 'error', policy: env.policy });
  },
};
