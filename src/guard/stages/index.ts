import { errorMessage } from '../../core/errors.js';
import { makeDecision, type Decision } from '../../core/types.js';
import type { GuardContext, GuardEnv, Stage } from './context.js';
import { flowAnnotate, flowInspect, flowRecord } from './flow.js';
import { holds } from './holds.js';
import { modelExpansion } from './model-expansion.js';
import { quarantine } from './quarantine.js';
import { quarantineGate } from './quarantine-gate.js';
import { rateCount, rateLimit, rateRecord } from './rate-limit.js';
import { audit, observe, stamp } from './record.js';
import { redaction } from './redaction.js';
import { referee } from './referee.js';
import { stickyCommit } from './sticky-commit.js';
import { threatStep } from './threat-step.js';
import { tracking } from './tracking.js';
import { watcher } from './watcher.js';

/**
 * The guard pipeline as an ordered list of named stages over one context (QuadSentinel Algorithm 1):
 *
 *   flowInspect → quarantineGate → rateCount → tracking (tracker + verifier) → modelExpansion → watcher
 *   → threatStep → quarantine → rateLimit → referee → holds → redaction → stickyCommit → flowAnnotate → observe
 *   → stamp → audit → flowRecord → rateRecord
 *
 * The watcher runs after the verifier because its risk is the violations' severity; the tracker's budget uses
 * the level from before this interaction. A stage that decides for good (quarantine, a withheld redaction) skips
 * the deciding stages after it; the recording stages (observe, stamp, audit) see every decision.
 */
export const GUARD_STAGES: readonly Stage[] = [
  flowInspect,
  quarantineGate,
  rateCount,
  tracking,
  modelExpansion,
  watcher,
  threatStep,
  quarantine,
  rateLimit,
  referee,
  holds,
  redaction,
  stickyCommit,
  flowAnnotate,
  observe,
  stamp,
  audit,
  flowRecord,
  rateRecord,
];

/**
 * Runs `stages` in order over `ctx`. This is the one fail-closed catch site of the guard: an unexpected throw in
 * any stage becomes a denial with source `error` (or the stage's own fail-closed decision), and the recording
 * stages still run. Never throws.
 */
export async function runStages(stages: readonly Stage[], ctx: GuardContext, env: GuardEnv): Promise<Decision> {
  for (const stage of stages) {
    if (ctx.final && !stage.always) continue;
    if (stage.always && ctx.decision === undefined) {
      ctx.decision = errorDecision(new Error('no stage reached a decision'));
      ctx.final = true;
    }
    try {
      // A stage that finished synchronously is not awaited: no promise and no microtask turn per stage (most
      // stages of an allowed call are synchronous). Either way the next stage starts only after this one ended.
      const ran = stage.run(ctx, env);
      if (ran !== undefined) await ran;
    } catch (err) {
      if (stage.tolerant) {
        env.log.warn({ err, stage: stage.name }, `guard stage ${stage.name} failed; the decision stands`);
        continue;
      }
      env.log.error({ err, stage: stage.name, kind: ctx.interaction.kind, agent: ctx.interaction.agent }, 'guard pipeline failed; denying (fail closed)');
      ctx.decision = stage.failClosed?.(ctx, env, err) ?? errorDecision(err);
      ctx.final = true;
    }
  }
  return ctx.decision ?? errorDecision(new Error('no stage reached a decision'));
}

/** The denial of an interaction the guard could not evaluate. */
export function errorDecision(err: unknown): Decision {
  return makeDecision({
    decision: 'deny',
    rationale: `Denied because the guard could not evaluate this interaction (${errorMessage(err).slice(0, 200)}). The guard fails closed; retry, or ask the operator to check the QuadGuard logs.`,
    source: 'error',
  });
}

export { newContext, need, pipelineDetail, type GuardContext, type GuardEnv, type Stage, type ThreatAfter } from './context.js';
export { audit, flowAnnotate, flowInspect, flowRecord, holds, modelExpansion, observe, quarantine, quarantineGate, rateCount, rateLimit, rateRecord, redaction, referee, stamp, stickyCommit, threatStep, tracking, watcher };
