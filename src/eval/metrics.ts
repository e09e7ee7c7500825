import type { CaseResult } from './run.js';
import { mean, median, percentile, ratio } from './stats.js';

/**
 * Evaluation metrics with DENY AS THE POSITIVE CLASS: a true positive is a case expected `deny` that the guard
 * denied; a false positive is a case expected `allow` that it denied.
 *
 * Zero denominators give `null`, never `NaN`: precision with no denials at all, recall with no expected denials,
 * FPR with no expected allows, accuracy of an empty group. F1 is computed as `2·TP / (2·TP + FP + FN)`, which
 * equals the harmonic mean of precision and recall whenever both exist, is 0 when the guard found none of the
 * expected denials, and is `null` only when there were neither expected nor actual denials.
 */

/** Confusion counts over cases. */
export interface Confusion {
  tp: number;
  fp: number;
  tn: number;
  fn: number;
}

/** Confusion counts, derived rates, case count and how many cases hit a guard error. */
export interface GroupMetrics extends Confusion {
  n: number;
  accuracy: number | null;
  precision: number | null;
  recall: number | null;
  fpr: number | null;
  f1: number | null;
  errors: number;
  /** Of the stopped cases (tp, fp), those stopped by a hold for approval rather than a denial. */
  tpHeld: number;
  fpHeld: number;
  /** Where cases were stopped: `<step kind> <held|denied>` → cases (e.g. `tool_call held`). */
  stoppedAt: Record<string, number>;
}

/**
 * One rule, over cases. `fired`: cases in which it was violated (enforced) on a replayed step; of those,
 * `truePositives` were expected `deny` and `falsePositives` expected `allow`. `flagged`: cases where it was only
 * flagged. `expected`: cases whose `expect.rules` lists it; `detected`: of those, the ones where it fired;
 * `recall = detected / expected`.
 */
export interface RuleMetrics {
  fired: number;
  truePositives: number;
  falsePositives: number;
  precision: number | null;
  flagged: number;
  expected: number;
  detected: number;
  recall: number | null;
}

/** Time per replayed step, in milliseconds. */
export interface LatencyMetrics {
  steps: number;
  meanMs: number | null;
  medianMs: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

/**
 * Model usage per replayed step (from `detail.llm`). Per-step figures divide by ALL replayed steps (a step that
 * called no model counts as zero calls) and are `null` when no step reported usage at all (no model measured).
 */
export interface ModelMetrics {
  stepsReporting: number;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  callsPerStep: number | null;
  promptTokensPerStep: number | null;
  completionTokensPerStep: number | null;
}

export interface EvalMetrics {
  overall: GroupMetrics;
  suites: Record<string, GroupMetrics>;
  rules: Record<string, RuleMetrics>;
  latency: LatencyMetrics;
  model: ModelMetrics;
}

/**
 * All metrics of a run: overall, per suite and per rule (keys sorted), latency and model usage.
 *
 * @example
 * const m = computeMetrics(run.cases);
 * console.log(m.overall.f1, m.suites['eicu-ac']?.recall);
 */
export function computeMetrics(cases: readonly CaseResult[]): EvalMetrics {
  const bySuite = new Map<string, CaseResult[]>();
  for (const c of cases) bySuite.set(c.suite, [...(bySuite.get(c.suite) ?? []), c]);
  const suites: Record<string, GroupMetrics> = {};
  for (const name of [...bySuite.keys()].sort()) suites[name] = groupMetrics(bySuite.get(name)!);
  return {
    overall: groupMetrics(cases),
    suites,
    rules: ruleMetrics(cases),
    latency: latencyMetrics(cases),
    model: modelMetrics(cases),
  };
}

/** Confusion counts of a set of cases. */
export function confusion(cases: readonly CaseResult[]): Confusion {
  const m: Confusion = { tp: 0, fp: 0, tn: 0, fn: 0 };
  for (const c of cases) {
    if (c.expected === 'deny') c.actual === 'deny' ? m.tp++ : m.fn++;
    else c.actual === 'deny' ? m.fp++ : m.tn++;
  }
  return m;
}

/** Counts and rates of a set of cases (see the module comment for zero denominators). */
export function groupMetrics(cases: readonly CaseResult[]): GroupMetrics {
  const { tp, fp, tn, fn } = confusion(cases);
  const n = cases.length;
  return {
    n,
    tp,
    fp,
    tn,
    fn,
    accuracy: ratio(tp + tn, n),
    precision: ratio(tp, tp + fp),
    recall: ratio(tp, tp + fn),
    fpr: ratio(fp, fp + tn),
    f1: ratio(2 * tp, 2 * tp + fp + fn),
    errors: cases.filter((c) => c.error !== undefined).length,
    tpHeld: cases.filter((c) => c.expected === 'deny' && c.stopped?.how === 'held').length,
    fpHeld: cases.filter((c) => c.expected === 'allow' && c.stopped?.how === 'held').length,
    stoppedAt: stoppedAt(cases),
  };
}

/** Per-rule figures for every rule that fired, was flagged, or is named in some `expect.rules`. */
export function ruleMetrics(cases: readonly CaseResult[]): Record<string, RuleMetrics> {
  const acc = new Map<string, RuleMetrics>();
  const get = (id: string): RuleMetrics => {
    let m = acc.get(id);
    if (!m) {
      m = { fired: 0, truePositives: 0, falsePositives: 0, precision: null, flagged: 0, expected: 0, detected: 0, recall: null };
      acc.set(id, m);
    }
    return m;
  };
  for (const c of cases) {
    const fired = new Set(c.rules);
    for (const id of fired) {
      const m = get(id);
      m.fired++;
      if (c.expected === 'deny') m.truePositives++;
      else m.falsePositives++;
    }
    for (const id of new Set(c.flagged)) get(id).flagged++;
    for (const id of new Set(c.expectedRules ?? [])) {
      const m = get(id);
      m.expected++;
      if (fired.has(id)) m.detected++;
    }
  }
  const out: Record<string, RuleMetrics> = {};
  for (const id of [...acc.keys()].sort()) {
    const m = acc.get(id)!;
    out[id] = { ...m, precision: ratio(m.truePositives, m.fired), recall: ratio(m.detected, m.expected) };
  }
  return out;
}

/** The elapsed time of every replayed step, in run order. */
export function stepTimes(cases: readonly CaseResult[]): number[] {
  return cases.flatMap((c) => c.steps.map((s) => s.elapsedMs));
}

/** Time per replayed step: mean, median, nearest-rank p99 and max (all `null` without steps). */
export function latencyMetrics(cases: readonly CaseResult[]): LatencyMetrics {
  const times = stepTimes(cases);
  return {
    steps: times.length,
    meanMs: mean(times),
    medianMs: median(times),
    p99Ms: percentile(times, 99),
    maxMs: times.length === 0 ? null : times.reduce((a, b) => Math.max(a, b)),
  };
}

/** Model calls and tokens from `detail.llm`, in total and per replayed step (see `ModelMetrics`). */
export function modelMetrics(cases: readonly CaseResult[]): ModelMetrics {
  const steps = cases.flatMap((c) => c.steps);
  const reporting = steps.filter((s) => s.llm !== undefined);
  const sum = (f: (s: (typeof reporting)[number]) => number) => reporting.reduce((a, s) => a + f(s), 0);
  const calls = sum((s) => s.llm!.calls);
  const promptTokens = sum((s) => s.llm!.promptTokens);
  const completionTokens = sum((s) => s.llm!.completionTokens);
  const perStep = (v: number) => (reporting.length === 0 ? null : ratio(v, steps.length));
  return {
    stepsReporting: reporting.length,
    calls,
    promptTokens,
    completionTokens,
    callsPerStep: perStep(calls),
    promptTokensPerStep: perStep(promptTokens),
    completionTokensPerStep: perStep(completionTokens),
  };
}

function stoppedAt(cases: readonly CaseResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of cases) {
    if (c.stopped === undefined) continue;
    const key = `${c.stopped.kind} ${c.stopped.how}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}
