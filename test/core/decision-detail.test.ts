import { describe, expect, it } from 'vitest';
import { DecisionDetailSchema, makeDecision } from '../../src/core/types.js';

describe('Decision.detail has a schema', () => {
  it('accepts what the pipeline, the referee and the approvals write', () => {
    const d = makeDecision({
      decision: 'deny',
      rationale: 'held',
      detail: {
        candidates: 7,
        threat: { tau: 0.2, level: 1, burst: false, rate: 3 },
        llm: { calls: 2, promptTokens: 300, completionTokens: 30, ms: 41 },
        expanded: ['fraud_request'],
        modelThreat: { delta: 1, reason: 'escalating' },
        review: { ruling: 'deny', rationale: 'the witness holds' },
        approval: { id: 'ap_0123456789abcdef0123', status: 'pending', expiresAt: 1_700_000_900_000 },
      },
    });
    expect(d.detail.approval?.status).toBe('pending');
    expect(makeDecision({ decision: 'allow', rationale: 'ok' }).detail).toEqual({});
    expect(DecisionDetailSchema.parse({ review: { error: 'model down' } })).toEqual({ review: { error: 'model down' } });
  });

  it('keeps room for the data-flow source', () => {
    expect(DecisionDetailSchema.safeParse({ flow: { source: 'files__read_file' } }).success).toBe(true);
  });

  it('refuses a key it does not know and a malformed value, so a typo cannot hide', () => {
    expect(() => makeDecision({ decision: 'allow', rationale: 'ok', detail: { candidate: 3 } as never })).toThrow();
    expect(() => makeDecision({ decision: 'allow', rationale: 'ok', detail: { llm: 'not-a-usage-object' } as never })).toThrow();
    expect(() => makeDecision({ decision: 'allow', rationale: 'ok', detail: { approval: { id: 'a', status: 'maybe', expiresAt: 1 } } as never })).toThrow();
  });
});
