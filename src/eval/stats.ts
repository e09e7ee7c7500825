/**
 * Small, exact statistics for evaluation reports. Every function returns `null` where the quantity is undefined
 * (an empty sample, a zero denominator), never `NaN`, so JSON reports stay valid and readers see "no data"
 * instead of a misleading number.
 */

/** `num / den`, or `null` when `den` is 0. */
export function ratio(num: number, den: number): number | null {
  return den === 0 ? null : num / den;
}

/** Median: the middle value, or the mean of the two middle values for an even count; `null` when empty. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = sorted(values);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * Nearest-rank percentile (`p` in 0–100): the smallest value with at least p% of the sample at or below it, i.e.
 * the `ceil(p/100 · n)`-th smallest. Always an observed value; `null` when empty. p99 of 1..100 is 99.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const s = sorted(values);
  const rank = Math.max(1, Math.ceil((p / 100) * s.length));
  return s[Math.min(rank, s.length) - 1]!;
}

/** Arithmetic mean; `null` when empty. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}
