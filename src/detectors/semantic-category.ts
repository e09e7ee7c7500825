import { z } from 'zod';
import { LocalEmbedder } from '../core/text/local-embedder.js';
import { sparseCosine } from '../core/text/sparse.js';
import { clip, configError, FieldSelectorSchema, inspectedFields } from './common.js';
import { compilePhrases, matchPhrases, tokenizeForPhrases } from './phrase-matcher.js';
import { defineDetector } from './registry.js';
import type { DetectorResult } from './types.js';

/**
 * `semantic_category`: does the text fall in a category described in words, such as "the action books a flight"?
 * Deterministic and local: a keyword or phrase hit scores 1; otherwise the score is the local embedder's cosine
 * between the text and the category (description plus keywords). True when the score reaches `threshold`.
 * A `negative` phrase (e.g. "track flight" for a flight-booking category) makes the answer false whatever else
 * matched, so narrow exclusions stay explicit in the book.
 *
 * Options: `category` (the description), `keywords` (phrases; a trailing `*` on a word matches a prefix, words
 * also match their plural and -ing/-ed forms), `negative` (phrases that exclude), `threshold` (default 0.5),
 * `field` (default `any`). A missing field is `false` (nothing to see).
 *
 * @example { type: semantic_category, category: 'books a flight', keywords: ['flight', 'airline ticket'], field: content }
 */
export const SemanticCategoryOptionsSchema = z.strictObject({
  field: FieldSelectorSchema.default('any'),
  category: z.string().min(1),
  keywords: z.array(z.string().min(1)).default([]),
  negative: z.array(z.string().min(1)).default([]),
  threshold: z.number().gt(0).max(1).default(0.5),
});
export type SemanticCategoryOptions = z.infer<typeof SemanticCategoryOptionsSchema>;

/** One embedder for every category detector: it is stateless and deterministic. */
const embedder = new LocalEmbedder();

export const semanticCategoryDetector = defineDetector({
  type: 'semantic_category',
  summary: 'text falls in a described category (keyword/phrase hits, local-embedding similarity), minus exclusions',
  options: SemanticCategoryOptionsSchema,
  create(opts, ctx) {
    const kw = compilePhrases(opts.keywords);
    const neg = compilePhrases(opts.negative);
    const invalid = [...kw.invalid, ...neg.invalid];
    if (invalid.length > 0) throw configError(ctx, `semantic_category: phrases without letters or digits: ${invalid.join(', ')}`);
    const centroid = embedder.embedSparse([opts.category, ...opts.keywords].join('. '));
    return function semantic_category(i): DetectorResult {
      const fields = inspectedFields(i, opts.field);
      if (fields.length === 0) return { value: 'false', score: 0, evidence: `semantic_category: no ${opts.field}` };
      const text = fields.map((f) => f.text).join('\n');
      const tokens = tokenizeForPhrases(text);
      const excluded = matchPhrases(tokens, neg.phrases);
      if (excluded.length > 0) {
        return { value: 'false', score: 0, evidence: `semantic_category: excluded by "${excluded.join('", "')}"` };
      }
      const hits = matchPhrases(tokens, kw.phrases);
      const similarity = Math.max(0, sparseCosine(embedder.embedSparse(text), centroid));
      const score = hits.length > 0 ? 1 : similarity;
      const value = score >= opts.threshold ? 'true' : 'false';
      const why = hits.length > 0 ? `keywords "${hits.join('", "')}"` : `similarity ${similarity.toFixed(2)}`;
      return { value, score, evidence: `semantic_category "${clip(opts.category, 60)}": ${why}` };
    };
  },
});
