import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { EvalRunError, errorMessage, QuadGuardError } from '../core/errors.js';
import { makeDecision, type Decision, type Witness } from '../core/types.js';
import { caseCatalogue, stepToInteraction, summarizeStep, type DecisionLabel, type EvalCase, type StepKind } from './cases.js';
import type { GuardFactory } from './guard-factory.js';
import { llmUsageOf, type LlmUsage } from './llm-usage.js';

/** What the harness records for one replayed step. */
export interface StepResult {
  index: number;
  kind: StepKind;
  /** One-line description of the step's input, for reports. */
  summary: string;
  decision: DecisionLabel;
  /** A denial that is a hold: the call waits for a person's approval (`effect: approve`), not refused for good. */
  held: boolean;
  /** Enforced rules that caused a denial, and rules that were only flagged (monitor mode, unknown). */
  rules: string[];
  flagged: string[];
  witness: Witness[];
  rationale: string;
  source: string;
  /** Wall time of `guard.check`, measured with `performance.now()`. */
  elapsedMs: number;
  /** Model usage when the decision reported it (`detail.llm`, see `llm-usage.ts`). */
  llm?: LlmUsage;
  /** Set when `guard.check` threw; the step then counts as a fail-closed denial. */
  error?: string;
}

/** The outcome of one case. */
export interface CaseResult {
  id: string;
  suite: string;
  policy: string;
  expected: DecisionLabel;
  expectedRules?: string[];
  actual: DecisionLabel;
  correct: boolean;
  /** The steps that were replayed: all of them, or up to and including the first denial. */
  steps: StepResult[];
  /** Steps not replayed because an earlier one was denied. */
  skippedSteps: number;
  /** Rules violated and flagged over the replayed steps (union, in order of first appearance). */
  rules: string[];
  flagged: string[];
  /** Witness and rationale of the denying step (empty / the last step's rationale when allowed). */
  witness: Witness[];
  rationale: string;
  /** Set when the guard threw on some step. */
  error?: string;
  /** Where the case was stopped: the step (0-based), its kind, held or denied, and the rules. Absent when allowed. */
  stopped?: StopPoint;
}

/** The step at which a case was stopped, and how. */
export interface StopPoint {
  step: number;
  kind: StepKind;
  how: 'held' | 'denied';
  rules: string[];
}

/** Progress after each case, for progress bars. */
export type ProgressListener = (done: number, total: number, last: CaseResult) => void;

export interface RunEvalOptions {
  /** Fresh guard for each case; see `GuardFactory`. */
  guardFor: GuardFactory;
  onProgress?: ProgressListener;
  /** Aborts between steps (and is passed to `guard.check`); the run then rejects with `eval_aborted`. */
  signal?: AbortSignal;
}

/** A finished run. */
export interface EvalRun {
  cases: CaseResult[];
  elapsedMs: number;
}

/**
 * Replays each case, in order, through a fresh guard from `guardFor` (state never leaks between cases; each case
 * also gets its own session id, derived from its id). With the CLI's factory the run is deterministic: the same
 * cases give the same decisions whatever ran before them and on every run (guard-factory.ts, EVAL_FLOW_KEY). Within a case the steps share agent, profile and session, so trajectory rules
 * see earlier steps.
 *
 * A case is denied when any step is denied, and replay of that case STOPS at the first denial: a denied action
 * does not happen, so later steps (which might depend on its result) would describe a trajectory that cannot
 * occur under the guard. The remaining steps are counted in `skippedSteps`.
 *
 * Failure handling: a `guard.check` that throws is recorded as a fail-closed denial of that step (source `error`,
 * with the message in `error`), like the proxy does; a factory that throws aborts the run, since every later case
 * would fail the same way (a missing or invalid policy book).
 *
 * @example
 * const run = await runEval(cases, { guardFor: pipelineGuardFactory('./policies') });
 * const metrics = computeMetrics(run.cases);
 */
export async function runEval(cases: readonly EvalCase[], options: RunEvalOptions): Promise<EvalRun> {
  const started = performance.now();
  const results: CaseResult[] = [];
  for (const evalCase of cases) {
    throwIfAborted(options.signal, results.length, cases.length);
    const result = await runCase(evalCase, options);
    results.push(result);
    options.onProgress?.(results.length, cases.length, result);
  }
  return { cases: results, elapsedMs: performance.now() - started };
}

/** Replays one case through a fresh guard. */
export async function runCase(evalCase: EvalCase, options: RunEvalOptions): Promise<CaseResult> {
  let handle;
  try {
    handle = await options.guardFor(evalCase.policy, evalCase.context);
  } catch (err) {
    if (err instanceof QuadGuardError) throw err;
    throw new EvalRunError('eval_guard_factory_failed', `case ${evalCase.id} (policy ${evalCase.policy}): ${errorMessage(err)}`, {
      cause: err,
    });
  }
  // Named by the case, so that the same case replays with the same session (the guard keys nothing across cases by it:
  // every case has its own store).
  const session = `eval-${createHash('sha256').update(evalCase.id).digest('hex').slice(0, 16)}`;
  const steps: StepResult[] = [];
  try {
    // What the proxy would have learnt from the servers' tools/list before the session's first call.
    for (const [server, tools] of caseCatalogue(evalCase)) handle.recordTools?.(server, tools);
    for (const [index, step] of evalCase.steps.entries()) {
      throwIfAborted(options.signal);
      const interaction = stepToInteraction(evalCase, step, session);
      const t0 = performance.now();
      let decision: Decision;
      let error: string | undefined;
      try {
        decision = await handle.guard.check(interaction, options.signal);
      } catch (err) {
        throwIfAborted(options.signal);
        error = errorMessage(err);
        decision = makeDecision({ decision: 'deny', rationale: `guard error: ${error}`, source: 'error' });
      }
      const elapsedMs = performance.now() - t0;
      steps.push(stepResult(index, step.kind, summarizeStep(step), decision, elapsedMs, error));
      if (decision.decision === 'deny') break;
    }
  } finally {
    await handle.close?.();
  }
  return caseResult(evalCase, steps);
}

function stepResult(
  index: number,
  kind: StepKind,
  summary: string,
  d: Decision,
  elapsedMs: number,
  error: string | undefined,
): StepResult {
  const llm = llmUsageOf(d);
  return {
    index,
    kind,
    summary,
    decision: d.decision,
    held: d.decision === 'deny' && d.detail?.approval !== undefined && d.detail.approval.status === 'pending',
    // A guard typed as `Guard` may still hand back a decision built without `makeDecision`.
    rules: [...(d.rules ?? [])],
    flagged: [...(d.flagged ?? [])],
    witness: [...(d.witness ?? [])],
    rationale: d.rationale,
    source: d.source,
    elapsedMs,
    ...(llm ? { llm } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}

function caseResult(evalCase: EvalCase, steps: StepResult[]): CaseResult {
  const denying = steps.find((s) => s.decision === 'deny');
  const actual: DecisionLabel = denying ? 'deny' : 'allow';
  const error = steps.find((s) => s.error !== undefined)?.error;
  return {
    id: evalCase.id,
    suite: evalCase.suite,
    policy: evalCase.policy,
    expected: evalCase.expect.decision,
    ...(evalCase.expect.rules ? { expectedRules: [...evalCase.expect.rules] } : {}),
    actual,
    correct: actual === evalCase.expect.decision,
    steps,
    skippedSteps: evalCase.steps.length - steps.length,
    rules: unique(steps.flatMap((s) => s.rules)),
    flagged: unique(steps.flatMap((s) => s.flagged)),
    witness: denying?.witness ?? [],
    rationale: (denying ?? steps[steps.length - 1])?.rationale ?? '',
    ...(error !== undefined ? { error } : {}),
    ...(denying ? { stopped: { step: denying.index, kind: denying.kind, how: denying.held ? 'held' : 'denied', rules: denying.rules } } : {}),
  };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function throwIfAborted(signal: AbortSignal | undefined, done?: number, total?: number): void {
  if (!signal?.aborted) return;
  const progress = done !== undefined ? ` after ${done} of ${total} cases` : '';
  throw new EvalRunError('eval_aborted', `evaluation aborted${progress}`, { cause: signal.reason });
}
