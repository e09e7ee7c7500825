import { RUN_CLASS_BITS } from '../../../src/core/text/runs.js';

/** `subRuns` (detectors/scan.ts) as it was: one loop over the run, every class tested at every character. */
export function subRuns(text: string, start: number, end: number, out: number[][], minRun = 15): void {
  const table = RUN_CLASS_BITS;
  const classes = out.length;
  const from = new Int32Array(classes).fill(-1);
  for (let i = start; i <= end; i++) {
    const bits = i < end ? table[text.charCodeAt(i)]! : 0;
    for (let k = 0; k < classes; k++) {
      if ((bits & (1 << k)) !== 0) {
        if (from[k] === -1) from[k] = i;
      } else if (from[k] !== -1) {
        if (i - from[k]! >= minRun) out[k]!.push(from[k]!, i);
        from[k] = -1;
      }
    }
  }
}
