import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EvalRunError } from '../../src/core/errors.js';
import { CaseProblems, loadCases } from '../../src/eval/load-cases.js';
import { aCase, tempDir, writeJsonl } from './support.js';

/** The loader's rejection, as an EvalRunError. */
async function failure(path: string): Promise<EvalRunError> {
  const err = await loadCases(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EvalRunError);
  return err as EvalRunError;
}

describe('loadCases', () => {
  it('loads a file, skipping empty lines, and keeps file:line of each case', async () => {
    const dir = await tempDir();
    const file = join(dir, 'cases.jsonl');
    await writeFile(file, `${JSON.stringify(aCase('a'))}\n\n   \n${JSON.stringify(aCase('b', { context: {} }))}\r\n`);
    const loaded = await loadCases(file);
    expect(loaded.map((l) => [l.case.id, l.line])).toEqual([
      ['a', 1],
      ['b', 4],
    ]);
    expect(loaded[0]!.file).toBe(file);
    expect(loaded[1]!.case.context).toEqual({});
  });

  it('loads every *.jsonl of a directory in name order and ignores other files', async () => {
    const dir = await tempDir();
    await writeJsonl(join(dir, 'b.jsonl'), [aCase('from-b')]);
    await writeJsonl(join(dir, 'a.jsonl'), [aCase('from-a')]);
    await writeFile(join(dir, 'NOTICE.md'), '# not cases\n');
    const loaded = await loadCases(dir);
    expect(loaded.map((l) => l.case.id)).toEqual(['from-a', 'from-b']);
  });

  it('keeps informational context keys and defaults tool arguments to {}', async () => {
    const dir = await tempDir();
    const file = await writeJsonl(join(dir, 'c.jsonl'), [
      aCase('x', {
        context: { agent: 'a', profile: { role: 'nursing' }, category: 'Fraud' },
        steps: [{ kind: 'tool_call', server: 's', tool: 't' }],
      }),
    ]);
    const [l] = await loadCases(file);
    expect(l!.case.context).toEqual({ agent: 'a', profile: { role: 'nursing' }, category: 'Fraud' });
    expect(l!.case.steps[0]).toEqual({ kind: 'tool_call', server: 's', tool: 't', arguments: {} });
  });

  it('reports a bad JSON line with file:line', async () => {
    const dir = await tempDir();
    const file = await writeJsonl(join(dir, 'cases.jsonl'), [aCase('a'), aCase('b'), '{"id": "c", "suite": ']);
    const err = await failure(file);
    expect(err.code).toBe('eval_case_json');
    expect(err.location).toMatchObject({ file, line: 3 });
    expect(err.format()).toMatch(new RegExp(`^${escapeRe(file)}:3: eval_case_json: not valid JSON: `));
  });

  it('reports a bad step kind with file:line and the zod path', async () => {
    const dir = await tempDir();
    const bad = aCase('b', {
      steps: [
        { kind: 'message', sender: 'user', recipient: 'agent', content: 'hi' },
        { kind: 'tool_cal', server: 's', tool: 't', arguments: {} },
      ],
    });
    const file = await writeJsonl(join(dir, 'cases.jsonl'), [aCase('a'), bad]);
    const err = await failure(file);
    expect(err.format()).toBe(
      `${file}:2: eval_case_invalid: steps.1.kind: expected one of message|tool_call|tool_result|resource_read`,
    );
    expect(err.location).toEqual({ file, line: 2, path: 'steps.1.kind' });
  });

  it('reports a missing field, a bad decision and an unknown key', async () => {
    const dir = await tempDir();
    const noExpect = aCase('a');
    delete noExpect.expect;
    const f1 = await writeJsonl(join(dir, 'one.jsonl'), [noExpect]);
    expect((await failure(f1)).format()).toBe(`${f1}:1: eval_case_invalid: expect: missing required field (expected object)`);

    const f2 = await writeJsonl(join(dir, 'two.jsonl'), [aCase('a', { expect: { decision: 'block' } })]);
    expect((await failure(f2)).format()).toBe(`${f2}:1: eval_case_invalid: expect.decision: expected one of allow|deny`);

    const f3 = await writeJsonl(join(dir, 'three.jsonl'), [
      aCase('a', { steps: [{ kind: 'tool_call', server: 's', tool: 't', argument: {} }] }),
    ]);
    expect((await failure(f3)).format()).toBe(`${f3}:1: eval_case_invalid: steps.0: unknown key "argument"`);

    const f4 = await writeJsonl(join(dir, 'four.jsonl'), [aCase('a', { steps: [] })]);
    expect((await failure(f4)).message).toMatch(/^steps: /);
  });

  it('reports duplicate ids across files, pointing at the first occurrence', async () => {
    const dir = await tempDir();
    const a = await writeJsonl(join(dir, 'a.jsonl'), [aCase('one'), aCase('same')]);
    const b = await writeJsonl(join(dir, 'b.jsonl'), [aCase('same')]);
    const err = await failure(dir);
    expect(err.format()).toBe(`${b}:1: eval_case_duplicate: duplicate id "same" (first at ${a}:2)`);
  });

  it('collects several bad lines into one error that lists each with its location', async () => {
    const dir = await tempDir();
    const file = await writeJsonl(join(dir, 'cases.jsonl'), [
      'not json',
      aCase('ok'),
      aCase('bad', { suite: '' }),
      aCase('ok'),
    ]);
    const err = await failure(file);
    expect(err).toBeInstanceOf(CaseProblems);
    expect(err.code).toBe('eval_cases_invalid');
    const problems = (err as CaseProblems).problems;
    expect(problems.map((p) => [p.code, p.location?.line])).toEqual([
      ['eval_case_json', 1],
      ['eval_case_invalid', 3],
      ['eval_case_duplicate', 4],
    ]);
    const text = err.format();
    expect(text).toContain(`${file}:1: eval_case_json:`);
    expect(text).toContain(`${file}:3: eval_case_invalid: suite:`);
    expect(text).toContain(`${file}:4: eval_case_duplicate:`);
  });

  it('reports a missing path and a directory without case files', async () => {
    const dir = await tempDir();
    const missing = await failure(join(dir, 'nope.jsonl'));
    expect(missing.code).toBe('eval_cases_missing');
    const empty = await failure(dir);
    expect(empty.code).toBe('eval_cases_missing');
    expect(empty.message).toContain('no *.jsonl case files');
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
