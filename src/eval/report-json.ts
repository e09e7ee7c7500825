import type { EvalMetrics, GroupMetrics, LatencyMetrics, ModelMetrics, RuleMetrics } from './metrics.js';
import type { CaseResult, EvalRun } from './run.js';

/** Where and how a report was produced, so a figure in the README can be traced to its command. */
export interface ReportMeta {
  generatedAt: string;
  /** The `--cases` argument. */
  cases: string;
  policiesDir?: string;
  suite?: string;
  limit?: number;
  /** Wall time of the whole run. */
  elapsedMs: number;
}

/** One case in the JSON report: the run's own case result, field for field. */
export type CaseReport = CaseResult;

/**
 * The `--json` report: metrics at the top (`overall`, `suites`, `rules`, `latency`, `model`), then every case
 * with its per-step decisions. Every rate is a number in [0, 1] or `null` (undefined for this data).
 */
export interface JsonReport {
  meta: ReportMeta;
  overall: GroupMetrics;
  suites: Record<string, GroupMetrics>;
  rules: Record<string, RuleMetrics>;
  latency: LatencyMetrics;
  model: ModelMetrics;
  cases: CaseReport[];
}

/** Assembles the JSON report from a run and its metrics. */
export function buildJsonReport(run: EvalRun, metrics: EvalMetrics, meta: ReportMeta): JsonReport {
  return {
    meta,
    overall: metrics.overall,
    suites: metrics.suites,
    rules: metrics.rules,
    latency: metrics.latency,
    model: metrics.model,
    cases: run.cases.map((c) => ({
      id: c.id,
      suite: c.suite,
      policy: c.policy,
      expected: c.expected,
      ...(c.expectedRules ? { expectedRules: c.expectedRules } : {}),
      actual: c.actual,
      correct: c.correct,
      steps: c.steps,
      skippedSteps: c.skippedSteps,
      witness: c.witness,
      rules: c.rules,
      flagged: c.flagged,
      rationale: c.rationale,
      ...(c.error !== undefined ? { error: c.error } : {}),
      ...(c.stopped !== undefined ? { stopped: c.stopped } : {}),
    })),
  };
}

/** The report as pretty-printed JSON text with a trailing newline. */
export function renderJsonReport(report: JsonReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
