import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { roundedTau } from '../../../src/guard/stages/context.js';

// The detail's τ as it was written before (54834e0): its text to four decimals, read back.
const formerRoundedTau = (tau: number): number => Number(tau.toFixed(4));

describe("the decision detail's τ", () => {
  it('is the former rounding for every number, 0 and -0 as +0', () => {
    const same = (t: number): void => {
      expect(Object.is(roundedTau(t), formerRoundedTau(t)), String(t)).toBe(true);
    };
    for (const t of [0, -0, 1e-5, -1e-5, 4.9999e-5, 5e-5, 0.00005, 0.12345, 0.99995, 1, 2.5, 1e21, -1e21, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, Infinity, -Infinity, NaN]) same(t);
    fc.assert(fc.property(fc.double(), same), { numRuns: 20000 });
    fc.assert(fc.property(fc.double({ min: -2, max: 2 }), same), { numRuns: 20000 });
    fc.assert(fc.property(fc.integer({ min: -40000, max: 40000 }), (k) => same(k / 10000 + 0.00005 * Math.sign(k))), { numRuns: 20000 });
  });
});
