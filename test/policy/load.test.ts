import { mkdtemp, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBook, PolicyBookError, type PolicyDiagnostic } from '../../src/policy/index.js';
import { registerTestDetectors, sampleBook } from './support.js';

registerTestDetectors();

async function tmp(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'qg-policy-'));
}

async function failure(path: string): Promise<PolicyDiagnostic[]> {
  try {
    await loadBook(path);
  } catch (e) {
    if (e instanceof PolicyBookError) return e.errors;
    throw e;
  }
  throw new Error('expected loadBook to fail');
}

const GOOD = `name: sample
version: "1"
predicates:
  - name: secret
    description: a secret is present
    detectors: [{ type: test_flag, arg: secret }]
  - name: publish
    description: the action publishes
    tools: ["*__publish*"]
    detectors: [{ type: test_flag, arg: publish }]
rules:
  - id: no-secret-publish
    text: Do not publish secrets.
    applies_to: [tool_call]
    formula: "!(secret & publish)"
    severity: critical
    hard: true
`;

describe('loadBook', () => {
  it('loads <dir>/book.yaml, a file, and book.json', async () => {
    const dir = await tmp();
    await writeFile(join(dir, 'book.yaml'), GOOD);
    const fromDir = await loadBook(dir);
    expect(fromDir.file).toBe(join(dir, 'book.yaml'));
    expect(fromDir.compiled.dir).toBe(dir);
    expect(fromDir.compiled.rules.map((r) => r.id)).toEqual(['no-secret-publish']);
    expect((await loadBook(join(dir, 'book.yaml'))).compiled.hash).toBe(fromDir.compiled.hash);

    const jdir = await tmp();
    await writeFile(join(jdir, 'book.json'), JSON.stringify(sampleBook(), null, 2));
    expect((await loadBook(jdir)).compiled.book.name).toBe('sample');
  });

  it('reports a missing book or directory without a book as policy_read_error', async () => {
    const dir = await tmp();
    expect((await failure(join(dir, 'nope')))[0]!.code).toBe('policy_read_error');
    await mkdir(join(dir, 'empty'));
    expect((await failure(join(dir, 'empty')))[0]).toMatchObject({ code: 'policy_read_error', message: expect.stringMatching(/no book.yaml/) });
  });

  it('reports YAML errors with file and line:column, several at once', async () => {
    const dir = await tmp();
    const file = join(dir, 'book.yaml');
    await writeFile(file, 'name: x\nversion: "1"\nname: again\npredicates: [\n');
    const errs = await failure(dir);
    expect(errs.length).toBeGreaterThanOrEqual(2);
    expect(errs.every((e) => e.code === 'policy_yaml_error')).toBe(true);
    expect(errs[0]!.location).toMatchObject({ file, line: 3, column: 1 });
    expect(errs[0]!.message).toMatch(/DUPLICATE_KEY/);
  });

  it('maps zod issue paths to the line of the offending node', async () => {
    const dir = await tmp();
    const file = join(dir, 'book.yaml');
    await writeFile(file, GOOD.replace('severity: critical', 'severity: huge').replace('  - name: publish', '  - name: Publish'));
    const errs = await failure(dir);
    expect(errs.map((e) => [e.code, e.location?.path, e.location?.line])).toEqual([
      ['policy_schema_error', 'predicates[1].name', 7],
      ['policy_schema_error', 'rules[0].severity', 16],
    ]);
    expect(errs[1]!.location).toMatchObject({ file, column: 15 });
  });

  it('points a formula error at its column inside the YAML line', async () => {
    const dir = await tmp();
    await writeFile(join(dir, 'book.yaml'), GOOD.replace('"!(secret & publish)"', '"!(secret & publsh)"'));
    const [e] = await failure(dir);
    // line 15 is `    formula: "!(secret & publsh)"`: the value starts at column 14, the quote adds 1, publsh is at 12.
    expect(e).toMatchObject({ code: 'policy_undefined_predicate', location: { line: 15, column: 26 } });
    expect(e!.message).toMatch(/did you mean publish\?/);
  });

  it('prints errors as file:line:col: code: message', async () => {
    const dir = await tmp();
    await writeFile(join(dir, 'book.yaml'), GOOD.replace('"!(secret & publish)"', '"!(secret & publish"'));
    try {
      await loadBook(dir);
      expect.unreachable();
    } catch (e) {
      expect((e as PolicyBookError).format()).toBe(
        `${join(dir, 'book.yaml')}:15:16: policy_parse_error: rule no-secret-publish: unbalanced parentheses: "(" at column 2 is never closed`,
      );
    }
  });
});
