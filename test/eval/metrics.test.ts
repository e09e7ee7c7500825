import { describe, expect, it } from 'vitest';
import type { DecisionLabel } from '../../src/eval/cases.js';
import { computeMetrics } from '../../src/eval/metrics.js';
import type { CaseResult, StepResult } from '../../src/eval/run.js';

let counter = 0;
/** A hand-made case result: one step taking `ms` milliseconds. */
function result(
  suite: string,
  expected: DecisionLabel,
  actual: DecisionLabel,
  ms: number,
  extra: { rules?: string[]; flagged?: string[]; expectedRules?: string[]; llm?: StepResult['llm']; error?: string } = {},
): CaseResult {
  const step: StepResult = {
    index: 0,
    kind: 'tool_call',
    summary: 's',
    decision: actual,
    held: false,
    rules: extra.rules ?? [],
    flagged: extra.flagged ?? [],
    witness: [],
    rationale: 'r',
    source: 'pipeline',
    elapsedMs: ms,
    ...(extra.llm ? { llm: extra.llm } : {}),
  };
  return {
    id: `c${++counter}`,
    suite,
    policy: 'default',
    expected,
    ...(extra.expectedRules ? { expectedRules: extra.expectedRules } : {}),
    actual,
    correct: expected === actual,
    steps: [step],
    skippedSteps: 0,
    rules: extra.rules ?? [],
    flagged: extra.flagged ?? [],
    witness: [],
    rationale: 'r',
    ...(extra.error ? { error: extra.error } : {}),
  };
}

/**
 * Hand-made set, 11 cases with step times 1..11 ms:
 *   suite a: TP, TP, FN, FP, TN, TN, TN  → tp 2, fn 1, fp 1, tn 3
 *   suite b: FN, TN                      → tp 0, fn 1, fp 0, tn 1
 *   suite c: TN, TN                      → no positives at all
 * Rule r1 fires on both TPs and the FP; it is expected on the first TP and on a's FN. Rule r2 is expected on b's
 * FN but never fires. Rule r3 is only flagged, on one TN.
 */
function handMade(): CaseResult[] {
  return [
    result('a', 'deny', 'deny', 1, { rules: ['r1'], expectedRules: ['r1'] }),
    result('a', 'deny', 'deny', 2, { rules: ['r1'], llm: { calls: 1, promptTokens: 100, completionTokens: 10 } }),
    result('a', 'deny', 'allow', 3, { expectedRules: ['r1'] }),
    result('a', 'allow', 'deny', 4, { rules: ['r1'], error: 'boom' }),
    result('a', 'allow', 'allow', 5, { flagged: ['r3'] }),
    result('a', 'allow', 'allow', 6),
    result('a', 'allow', 'allow', 7, { llm: { calls: 2, promptTokens: 300, completionTokens: 20 } }),
    result('b', 'deny', 'allow', 8, { expectedRules: ['r2'] }),
    result('b', 'allow', 'allow', 9),
    result('c', 'allow', 'allow', 10),
    result('c', 'allow', 'allow', 11),
  ];
}

describe('computeMetrics', () => {
  const m = computeMetrics(handMade());

  it('computes overall rates with deny as the positive class', () => {
    // tp 2, fn 2, fp 1, tn 6
    expect(m.overall).toMatchObject({ n: 11, tp: 2, fn: 2, fp: 1, tn: 6, errors: 1 });
    expect(m.overall.accuracy).toBeCloseTo(8 / 11, 12);
    expect(m.overall.precision).toBeCloseTo(2 / 3, 12);
    expect(m.overall.recall).toBe(0.5);
    expect(m.overall.fpr).toBeCloseTo(1 / 7, 12);
    // 2·2 / (2·2 + 1 + 2) = 4/7, the harmonic mean of 2/3 and 1/2
    expect(m.overall.f1).toBeCloseTo(4 / 7, 12);
  });

  it('computes per-suite rates, null where a denominator is zero', () => {
    expect(Object.keys(m.suites)).toEqual(['a', 'b', 'c']);
    const a = m.suites.a!;
    expect(a).toMatchObject({ n: 7, tp: 2, fn: 1, fp: 1, tn: 3, errors: 1 });
    expect(a.accuracy).toBeCloseTo(5 / 7, 12);
    expect(a.precision).toBeCloseTo(2 / 3, 12);
    expect(a.recall).toBeCloseTo(2 / 3, 12);
    expect(a.fpr).toBe(0.25);
    expect(a.f1).toBeCloseTo(2 / 3, 12);

    // b: no denials at all → precision undefined; one missed denial → recall 0, F1 0
    expect(m.suites.b).toEqual({ n: 2, tp: 0, fp: 0, tn: 1, fn: 1, accuracy: 0.5, precision: null, recall: 0, fpr: 0, f1: 0, errors: 0, tpHeld: 0, fpHeld: 0, stoppedAt: {} });
    // c: nothing expected or produced as deny → precision, recall and F1 all undefined
    expect(m.suites.c).toEqual({ n: 2, tp: 0, fp: 0, tn: 2, fn: 0, accuracy: 1, precision: null, recall: null, fpr: 0, f1: null, errors: 0, tpHeld: 0, fpHeld: 0, stoppedAt: {} });
  });

  it('computes per-rule firing, precision and recall on expect.rules', () => {
    expect(Object.keys(m.rules)).toEqual(['r1', 'r2', 'r3']);
    expect(m.rules.r1!).toMatchObject({ fired: 3, truePositives: 2, falsePositives: 1, expected: 2, detected: 1, flagged: 0 });
    expect(m.rules.r1!.precision).toBeCloseTo(2 / 3, 12);
    expect(m.rules.r1!.recall).toBe(0.5);
    expect(m.rules.r2).toEqual({ fired: 0, truePositives: 0, falsePositives: 0, precision: null, flagged: 0, expected: 1, detected: 0, recall: 0 });
    expect(m.rules.r3).toEqual({ fired: 0, truePositives: 0, falsePositives: 0, precision: null, flagged: 1, expected: 0, detected: 0, recall: null });
  });

  it('computes time per step: median, nearest-rank p99, mean, max', () => {
    expect(m.latency).toEqual({ steps: 11, meanMs: 6, medianMs: 6, p99Ms: 11, maxMs: 11 });
  });

  it('computes model usage per replayed step over all steps', () => {
    expect(m.model.stepsReporting).toBe(2);
    expect(m.model.calls).toBe(3);
    expect(m.model.promptTokens).toBe(400);
    expect(m.model.completionTokens).toBe(30);
    expect(m.model.callsPerStep).toBeCloseTo(3 / 11, 12);
    expect(m.model.promptTokensPerStep).toBeCloseTo(400 / 11, 12);
    expect(m.model.completionTokensPerStep).toBeCloseTo(30 / 11, 12);
  });

  it('counts a rule once per case even when it fires on several steps', () => {
    const c = result('a', 'deny', 'deny', 1, { rules: ['r1'] });
    c.steps.push({ ...c.steps[0]!, index: 1 });
    c.rules = ['r1', 'r1'];
    expect(computeMetrics([c]).rules.r1!.fired).toBe(1);
  });

  it('reports nulls, not NaN, for an empty run', () => {
    const e = computeMetrics([]);
    expect(e.overall).toEqual({ n: 0, tp: 0, fp: 0, tn: 0, fn: 0, accuracy: null, precision: null, recall: null, fpr: null, f1: null, errors: 0, tpHeld: 0, fpHeld: 0, stoppedAt: {} });
    expect(e.latency).toEqual({ steps: 0, meanMs: null, medianMs: null, p99Ms: null, maxMs: null });
    expect(e.model.callsPerStep).toBeNull();
    expect(JSON.stringify(e)).not.toContain('NaN');
  });
});
