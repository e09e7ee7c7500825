import { z } from 'zod';
import { defineDetector } from './registry.js';
import { negatedAt } from './negation.js';
import { FieldSelectorSchema, compileRegex, configError, fromFindings, cutOrNo, inspectedFields, mask, MAX_SPANS, type Finding } from './common.js';

/**
 * `regex`: true when `pattern` matches any selected text.
 *
 * - `pattern`: an ECMAScript regular expression (compiled once, when the book loads; a syntax error is a
 *   `DetectorConfigError`).
 * - `flags`: any of `i m s u v` (each once; `u` and `v` exclusive). `g` is added internally.
 * - `field`: selector (default `any`). A missing field means nothing to see: `false`.
 * - `skip_negated`: a match governed by a negation of giving in its clause ("do not give us your PIN") is not
 *   counted (default false).
 *
 * Every field is inspected to its end (up to `MAX_TOTAL_CHARS`, 16 MiB in all; beyond it, nothing found is `unknown`). Evidence shows the match masked (a pattern
 * may well catch secrets); spans cover every match (up to 100).
 *
 * @example { type: regex, pattern: 'DROP\\s+TABLE', flags: i, field: arguments.query }
 */
export const RegexOptionsSchema = z.strictObject({
  pattern: z.string().min(1),
  flags: z
    .string()
    .regex(/^[imsuv]*$/, 'flags may contain only i, m, s, u, v')
    .optional(),
  field: FieldSelectorSchema.default('any'),
  /**
   * Skip a match a negation of giving governs in its own clause ("do not give us your PIN" warns, it does not ask;
   * see negation.ts). For patterns that model a request for the thing they name.
   */
  skip_negated: z.boolean().default(false),
});
export type RegexOptions = z.infer<typeof RegexOptionsSchema>;

export const regexDetector = defineDetector({
  type: 'regex',
  summary: 'true when a regular expression matches the selected text',
  options: RegexOptionsSchema,
  create(opts, ctx) {
    const flags = opts.flags ?? '';
    if (new Set(flags).size !== flags.length) throw configError(ctx, `regex flags "${flags}" repeat a flag`);
    if (flags.includes('u') && flags.includes('v')) throw configError(ctx, 'regex flags u and v cannot be combined');
    const re = compileRegex(opts.pattern, `${flags}g`, ctx, `regex pattern /${opts.pattern}/`);
    const field = opts.field;
    return function regex(i) {
      const findings: Finding[] = [];
      const fields = inspectedFields(i, field);
      for (const f of fields) {
        re.lastIndex = 0;
        for (const m of f.text.matchAll(re)) {
          const start = m.index;
          if (opts.skip_negated && negatedAt(f.text, start)) continue;
          findings.push({ kind: 'match', field: f.field, start, end: start + m[0].length, shown: mask(m[0]) });
          if (findings.length >= MAX_SPANS) break;
        }
        if (findings.length >= MAX_SPANS) break;
      }
      if (findings.length === 0) return cutOrNo('regex', fields);
      return fromFindings('regex', findings);
    };
  },
});
