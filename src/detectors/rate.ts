import { z } from 'zod';
import { compileGlob } from '../core/glob.js';
import type { Interaction } from '../core/types.js';
import { qualifiedTool } from '../core/fields.js';
import { defineDetector } from './registry.js';
import { clip, configError, no, unknown } from './common.js';

/**
 * `rate`: true when this call of a matching tool would be more than `max` calls of those tools by this identity
 * (agent) in the last `per` (a minute, an hour, a day). The guard counts (stages/rate-limit.ts `rateCount`): one
 * sliding count per identity and per (`tools`, `per`) of the book, kept in the store beside the burst window (shared by
 * every proxy on the store); a call counts once it is allowed. A rule over rate predicates only is a rate limit, not
 * threat evidence: its denial carries a retry-after and never raises τ or quarantines.
 *
 * - `tools`: globs over `<server>__<tool>` (as the `tool` detector's `match`).
 * - Outside the guard (no count, e.g. `policy explain`) a matching call is `unknown`.
 *
 * @example { type: rate, tools: ['*__send_email'], max: 10, per: hour }
 */
export const RateOptionsSchema = z.strictObject({
  tools: z.array(z.string().min(1)).min(1),
  max: z.number().int().min(1),
  per: z.enum(['minute', 'hour', 'day']),
});
export type RateOptions = z.infer<typeof RateOptionsSchema>;

export const RATE_WINDOW_MS: Record<RateOptions['per'], number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** The count a window keeps: one per (tools, per), whatever `max` each predicate sets. */
export function rateWindowKey(o: Pick<RateOptions, 'tools' | 'per'>): string {
  return `${[...o.tools].sort().join(',')}/${o.per}`;
}

/**
 * The counts the guard found for an interaction (window key → calls in the window, this one included). Kept beside
 * the interaction, not on it: nothing a client or a case file sends can set a count.
 */
export const rateCounts = new WeakMap<Interaction, ReadonlyMap<string, number>>();

defineDetector({
  type: 'rate',
  summary: 'true when this call would be more than `max` calls of the `tools` by this identity in the last minute, hour or day',
  options: RateOptionsSchema,
  create(opts, ctx) {
    const matchers = opts.tools.map((g) => {
      try {
        return compileGlob(g);
      } catch (err) {
        throw configError(ctx, `rate: ${(err as Error).message}`, err);
      }
    });
    const key = rateWindowKey(opts);
    return function rate(i) {
      if (i.kind !== 'tool_call') return no();
      const name = qualifiedTool(i);
      if (name === undefined || !matchers.some((m) => m(name))) return no();
      const n = rateCounts.get(i)?.get(key);
      if (n === undefined) return unknown('rate: no count (the guard did not count this call)');
      if (n <= opts.max) return no();
      return { value: 'true', score: 1, evidence: `rate: call ${n} of ${clip(opts.tools.join(', '))} by this identity in the last ${opts.per}, above ${opts.max}` };
    };
  },
});
