import { z } from 'zod';
import { defineDetector } from './registry.js';
import { FieldSelectorSchema, compileRegex, configError, cutOrNo, inspectedFields, MAX_SPANS } from './common.js';
import type { DetectorResult } from './types.js';

/**
 * `keywords`: a keyword / phrase set over the selected text.
 *
 * - `words`: the keywords or phrases; whitespace inside a phrase matches any run of whitespace.
 * - `match`: `any` (default): true when at least `min` (default 1) DISTINCT words occur; `all`: true when every
 *   word occurs (`min` is then not allowed).
 * - `word_boundary` (default true): a word must not be glued to letters, digits or `_` on either side
 *   (`rm` does not match `format`); Unicode-aware.
 * - `case_sensitive` (default false).
 * - `field` (default `any`). A missing field is `false`.
 *
 * Inspects every field to its end (16 MiB in all; beyond it, nothing found is `unknown`). Evidence names the words found (they come from the book, not the
 * input); spans cover each occurrence (up to 100).
 *
 * @example { type: keywords, words: ['wire transfer', 'bank account'], field: content, min: 1 }
 */
export const KeywordsOptionsSchema = z.strictObject({
  words: z.array(z.string().trim().min(1)).min(1),
  field: FieldSelectorSchema.default('any'),
  match: z.enum(['any', 'all']).default('any'),
  word_boundary: z.boolean().default(true),
  case_sensitive: z.boolean().default(false),
  min: z.number().int().min(1).optional(),
});
export type KeywordsOptions = z.infer<typeof KeywordsOptionsSchema>;

// Only syntax characters: the `u` flag rejects identity escapes such as `\-`.
const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export const keywordsDetector = defineDetector({
  type: 'keywords',
  summary: 'true when keywords or phrases occur in the selected text (any, all, or at least min of them)',
  options: KeywordsOptionsSchema,
  create(opts, ctx) {
    if (opts.match === 'all' && opts.min !== undefined) throw configError(ctx, 'keywords: min applies only to match: any');
    const norm = (s: string): string => {
      const flat = s.replace(/\s+/g, ' ');
      return opts.case_sensitive ? flat : flat.toLowerCase();
    };
    const words = [...new Set(opts.words.map(norm))];
    const min = opts.match === 'all' ? words.length : (opts.min ?? 1);
    if (min > words.length) throw configError(ctx, `keywords: min ${min} exceeds the ${words.length} distinct words`);
    // Longest first, so a phrase wins over a word it starts with.
    const alternation = [...words]
      .sort((a, b) => b.length - a.length)
      .map((w) => w.split(' ').map(escapeRegExp).join('\\s+'))
      .join('|');
    const body = opts.word_boundary ? `(?<![\\p{L}\\p{N}_])(?:${alternation})(?![\\p{L}\\p{N}_])` : `(?:${alternation})`;
    const re = compileRegex(body, opts.case_sensitive ? 'gu' : 'giu', ctx, 'keywords');
    const field = opts.field;
    return function keywords(i): DetectorResult {
      const found = new Set<string>();
      const spans: Array<{ field: string; start: number; end: number }> = [];
      const fields = inspectedFields(i, field);
      for (const f of fields) {
        re.lastIndex = 0;
        for (const m of f.text.matchAll(re)) {
          found.add(norm(m[0]));
          if (spans.length < MAX_SPANS) spans.push({ field: f.field, start: m.index, end: m.index + m[0].length });
        }
      }
      if (found.size < min) return cutOrNo('keywords', fields);
      const list = [...found].slice(0, 5).map((w) => `"${w}"`).join(', ');
      return {
        value: 'true',
        score: 1,
        evidence: `keywords: ${found.size} of ${words.length} found (${list}${found.size > 5 ? ', …' : ''})`,
        spans,
      };
    };
  },
});
