import { describe, expect, it } from 'vitest';
import { mean, median, percentile, ratio } from '../../src/eval/stats.js';

describe('stats', () => {
  it('returns null, not NaN, for empty samples and zero denominators', () => {
    expect(ratio(3, 0)).toBeNull();
    expect(ratio(0, 0)).toBeNull();
    expect(median([])).toBeNull();
    expect(percentile([], 99)).toBeNull();
    expect(mean([])).toBeNull();
  });

  it('computes medians of odd and even samples without mutating them', () => {
    const xs = [3, 1, 2];
    expect(median(xs)).toBe(2);
    expect(xs).toEqual([3, 1, 2]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  it('uses nearest-rank percentiles', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile(hundred, 0)).toBe(1);
    // 11 values: ceil(0.99 * 11) = 11th smallest.
    expect(percentile([5, 1, 9, 2, 8, 3, 7, 4, 6, 10, 11], 99)).toBe(11);
    expect(percentile([5], 99)).toBe(5);
  });

  it('computes ratios and means', () => {
    expect(ratio(1, 4)).toBe(0.25);
    expect(mean([1, 2, 3, 6])).toBe(3);
  });
});
