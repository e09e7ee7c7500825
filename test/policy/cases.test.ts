import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { InteractionSchema, TruthSchema } from '../../src/core/types.js';
import { compileBook, evaluateBook, PolicyBookError } from '../../src/policy/index.js';
import { registerTestDetectors } from './support.js';

registerTestDetectors();

/** One data-driven policy case (see test/cases/README.md). */
const CaseSchema = z.strictObject({
  note: z.string().min(1),
  book: z.unknown().optional(),
  interaction: z.unknown().optional(),
  want_decision: z.enum(['allow', 'deny']).optional(),
  want_violated: z.array(z.string()).optional(),
  want_flagged: z.array(z.string()).optional(),
  want_witness: z.record(z.string(), z.record(z.string(), TruthSchema)).optional(),
  want_error_code: z.string().optional(),
});
const CaseFileSchema = z.strictObject({ book: z.unknown().optional(), cases: z.array(CaseSchema).min(1) });

const dir = fileURLToPath(new URL('../cases/', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();

describe('policy cases', () => {
  it('finds case files', () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
  });

  for (const file of files) {
    const data = CaseFileSchema.parse(parse(readFileSync(join(dir, file), 'utf8')));
    describe(file, () => {
      for (const c of data.cases) {
        it(c.note, () => {
          const book = c.book ?? data.book;
          expect(book, 'case needs a book').toBeDefined();
          if (c.want_error_code !== undefined) {
            let caught: unknown;
            try {
              compileBook(book as never);
            } catch (e) {
              caught = e;
            }
            expect(caught).toBeInstanceOf(PolicyBookError);
            expect((caught as PolicyBookError).errors.map((e) => e.code)).toContain(c.want_error_code);
            return;
          }
          expect(c.want_decision, 'case needs want_decision or want_error_code').toBeDefined();
          const { compiled } = compileBook(book as never);
          const report = evaluateBook(compiled, InteractionSchema.parse(c.interaction), 'all');
          expect(report.verdict).toBe(c.want_decision);
          if (c.want_violated) expect(report.rules.filter((r) => r.status === 'violated').map((r) => r.id)).toEqual(c.want_violated);
          if (c.want_flagged) expect(report.flagged).toEqual(c.want_flagged);
          for (const [rule, preds] of Object.entries(c.want_witness ?? {})) {
            expect(report.rules.find((r) => r.id === rule)?.witness?.predicates).toEqual(preds);
          }
        });
      }
    });
  }
});
