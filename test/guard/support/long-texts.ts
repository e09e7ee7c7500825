/** What the worker-pool tests share: texts long enough for the pool, and a decision without its recording. */
import type { Decision } from '../../../src/core/types.js';

/** The pool's threshold for a long text (characters). */
export const MIN = 256 * 1024;

const prose = 'The quarterly review covers the harbour project and the payroll migration for the finance team. ';
/** `n` characters of ordinary prose. */
export const fill = (n: number) => prose.repeat(Math.ceil(n / prose.length)).slice(0, n);

/** What in a decision depends on the reading, not on when or where it was recorded (audit ids name rows). */
export function verdict(d: Decision): unknown {
  const { auditId: _a, elapsedMs: _e, ...rest } = d;
  return JSON.parse(JSON.stringify(rest).replace(/\b\d+-[0-9a-f]{8}\b/g, '<audit id>'));
}
