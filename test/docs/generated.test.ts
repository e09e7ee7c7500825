import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_CASES, generatedDocs } from '../../scripts/gen-docs.js';
import { EvalCaseSchema } from '../../src/eval/cases.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { detectorTypes } from '../../src/detectors/index.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('generated docs', () => {
  const docs = generatedDocs();

  it.each(Object.keys(docs))('%s matches the generator (run `npm run docs` after changing a schema or detector)', (file) => {
    expect(readFileSync(join(ROOT, file), 'utf8')).toBe(docs[file]);
  });

  it('the configuration reference names every top-level key and the detector reference every detector type', () => {
    for (const key of Object.keys(ConfigSchema.shape)) expect(docs['docs/configuration.md']).toContain(`| \`${key}\` |`);
    for (const type of detectorTypes()) expect(docs['docs/detectors.md']).toContain(`## \`${type}\``);
  });

  it('the example cases of docs/eval-cases.md are valid cases', () => {
    for (const c of EXAMPLE_CASES) expect(EvalCaseSchema.safeParse(c).success).toBe(true);
  });
});
