import { z } from 'zod';
import { defineDetector } from '../registry.js';
import { clip, configError, unknown } from '../common.js';
import { atPath } from '../../core/fields.js';
import { evaluateProfileExpr, parseProfileExpr, ProfileExprError } from './expr.js';
import type { DetectorResult } from '../types.js';

/**
 * `profile`: a comparison over the agent's established profile (from config or the eval case, never from what a
 * client claims), e.g. `profile.age >= 18`, `profile.dr_license == true`, `profile.role in ["nursing", "physician"]`,
 * `profile.country not in ["US"]`, or a bare `profile.vaccine` (same as `== true`). Nested fields use dots
 * (`profile.license.class`).
 *
 * Operators `== != < <= > >= in`, `not in`; literals number, `true`/`false`, string ('…' or "…"), list. The
 * expression is parsed once when the book loads; a syntax error is a `DetectorConfigError` naming the column.
 *
 * `unknown` when the profile field is missing or null, is a list or object, or has another type than the literal
 * (`"66" >= 18` is unknown, not coerced). Comparing strings with `<`… is lexicographic (ISO dates work).
 *
 * @example { type: profile, expr: 'profile.age < 18' }
 */
export const ProfileOptionsSchema = z.strictObject({
  expr: z.string().min(1),
});
export type ProfileOptions = z.infer<typeof ProfileOptionsSchema>;

export const profileDetector = defineDetector({
  type: 'profile',
  summary: 'true when a comparison over the agent profile holds (profile.age >= 18, profile.role in [...])',
  options: ProfileOptionsSchema,
  create(opts, ctx) {
    let expr;
    try {
      expr = parseProfileExpr(opts.expr);
    } catch (err) {
      if (err instanceof ProfileExprError) {
        throw configError(ctx, `profile: ${err.message}: ${opts.expr}\n${' '.repeat(err.column - 1)}^`, err);
      }
      throw err;
    }
    const compiled = expr;
    const name = `profile.${compiled.path.join('.')}`;
    return function profile(i): DetectorResult {
      const actual = atPath(i.profile ?? {}, compiled.path.join('.'));
      const v = evaluateProfileExpr(compiled, actual);
      if (v === undefined) {
        const why = actual === undefined || actual === null ? 'is missing' : `has type ${Array.isArray(actual) ? 'list' : typeof actual}`;
        return unknown(`profile: ${name} ${why}`);
      }
      return { value: v ? 'true' : 'false', score: 1, evidence: `profile: ${name} = ${clip(JSON.stringify(actual), 60)}; ${clip(opts.expr, 80)} is ${v}` };
    };
  },
});
