import { describe, expect, it } from 'vitest';
import { makeDecision } from '../src/core/types.js';
import { PolicyError } from '../src/core/errors.js';

describe('shared types', () => {
  it('fills decision defaults', () => {
    const d = makeDecision({ decision: 'deny', rationale: 'x' });
    expect(d.rules).toEqual([]);
    expect(d.source).toBe('pipeline');
  });
  it('formats errors with their location', () => {
    const e = new PolicyError('policy_parse_error', 'unexpected )', { location: { file: 'b.yaml', line: 3, column: 7 } });
    expect(e.format()).toBe('b.yaml:3:7: policy_parse_error: unexpected )');
  });
});
