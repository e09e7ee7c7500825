/**
 * The evaluation harness behind `quadguard eval`: load labeled cases, replay them through a fresh guard per case,
 * compute deny-positive metrics, and render them as a table, JSON or a self-contained HTML page. Benchmarks and
 * the CLI use these same functions.
 */
export { EvalCaseSchema, stepToInteraction, summarizeStep, type CaseContext, type EvalCase, type Step } from './cases.js';
export { CaseProblems, loadCases, type LoadedCase } from './load-cases.js';
export { pipelineGuardFactory, type CaseGuardSettings, type GuardFactory, type GuardHandle } from './guard-factory.js';
export { LlmUsageSchema, llmUsageOf, type LlmUsage } from './llm-usage.js';
export { runCase, runEval, type CaseResult, type EvalRun, type RunEvalOptions, type StepResult } from './run.js';
export { computeMetrics, type EvalMetrics, type GroupMetrics, type RuleMetrics } from './metrics.js';
export { buildJsonReport, renderJsonReport, type JsonReport, type ReportMeta } from './report-json.js';
export { renderTable } from './report-table.js';
export { renderHtmlReport } from './report-html.js';
export { createProgress, type Progress } from './progress.js';
