import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerEvalCommand, SHIPPED_POLICIES, type EvalCommandDeps } from '../../src/cli/eval.js';
import { EvalRunError } from '../../src/core/errors.js';
import type { JsonReport } from '../../src/eval/report-json.js';
import { aCase, fixtureCases, HOSTILE_ID, tempDir, testGuardFactory, writeJsonl } from './support.js';

/** Runs `quadguard eval …` on a program holding only this command, with the test guard and captured output. */
async function evalCli(args: string[], deps: EvalCommandDeps = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const policiesSeen: Array<string | string[]> = [];
  const program = new Command('quadguard').exitOverride().configureOutput({ writeErr: () => {} });
  registerEvalCommand(program, {
    guardFactory: (dir) => {
      policiesSeen.push(dir);
      return testGuardFactory();
    },
    stdout: { write: (s: string) => out.push(s) },
    stderr: { isTTY: false, write: (s: string) => err.push(s) },
    ...deps,
  });
  await program.parseAsync(['node', 'quadguard', 'eval', ...args]);
  return { stdout: out.join(''), stderr: err.join(''), policiesSeen };
}

describe('quadguard eval', () => {
  it('prints a table and writes the JSON report with overall, suites, rules, latency and cases', async () => {
    const dir = await tempDir();
    await writeJsonl(join(dir, 'cases.jsonl'), fixtureCases());
    const jsonOut = join(dir, 'out', 'report.json');
    const { stdout, stderr, policiesSeen } = await evalCli(['--cases', dir, '--json', jsonOut]);

    expect(policiesSeen).toEqual([[SHIPPED_POLICIES]]); // found relative to the package, whatever the cwd
    expect(stdout).toMatch(/^suite\s+n\s+acc\s+prec\s+recall\s+fpr\s+f1/m);
    expect(stdout).toMatch(/^overall\s+7\s+57\.1%\s+50\.0%\s+66\.7%\s+50\.0%\s+57\.1%\s+2\s+2\s+2\s+1\s+0\s+0\s+0$/m);
    expect(stdout).toMatch(/^no-destructive-shell\s+2\s+1\s+1\s+50\.0%/m);
    expect(stdout).toContain('time per step: median');
    expect(stderr).toContain('eval: 7/7 cases (100%), 3 wrong');
    expect(stderr).toContain(`wrote ${jsonOut}`);

    const report = JSON.parse(await readFile(jsonOut, 'utf8')) as JsonReport;
    expect(Object.keys(report)).toEqual(['meta', 'overall', 'suites', 'rules', 'latency', 'model', 'cases']);
    expect(report.overall).toMatchObject({ n: 7, tp: 2, fp: 2, tn: 2, fn: 1, precision: 0.5, fpr: 0.5 });
    expect(report.overall.accuracy).toBeCloseTo(4 / 7, 12);
    expect(Object.keys(report.suites)).toEqual(['chat', 'shell']);
    expect(report.suites.shell).toMatchObject({ n: 4, tp: 1, fp: 1, tn: 1, fn: 1, accuracy: 0.5, precision: 0.5, recall: 0.5, fpr: 0.5, f1: 0.5 });
    expect(report.rules['no-destructive-shell']).toMatchObject({ fired: 2, truePositives: 1, falsePositives: 1, expected: 2, detected: 1, recall: 0.5 });
    expect(report.latency.steps).toBe(8); // rmrf stops after its 2nd of 3 steps
    expect(report.model).toMatchObject({ stepsReporting: 3, calls: 3, promptTokens: 360 });
    expect(report.meta).toMatchObject({ cases: dir, policiesDir: SHIPPED_POLICIES });
    // Each wrong case is named with the step that decided it.
    expect(stdout).toMatch(/^3 wrong:$/m);
    expect(stdout).toContain(`  ${HOSTILE_ID} (chat, policy default): expected allow, got deny at step 1 `);
    expect(stdout).toMatch(/expected deny, got allow: no step denied \(\d+ steps? replayed/);

    const rmrf = report.cases.find((c) => c.id === 'shell/rmrf')!;
    expect(rmrf).toMatchObject({ suite: 'shell', expected: 'deny', actual: 'deny', correct: true, rules: ['no-destructive-shell'], skippedSteps: 1 });
    expect(rmrf.steps.map((s) => s.decision)).toEqual(['allow', 'deny']);
    expect(rmrf.witness[0]!.rule).toBe('no-destructive-shell');
    expect(report.cases.find((c) => c.id === HOSTILE_ID)).toMatchObject({ expected: 'allow', actual: 'deny', correct: false });
  });

  it('filters by --suite, applies --limit, stays quiet with --quiet and writes the HTML report', async () => {
    const dir = await tempDir();
    const file = await writeJsonl(join(dir, 'cases.jsonl'), fixtureCases());
    const jsonOut = join(dir, 'r.json');
    const htmlOut = join(dir, 'r.html');
    const { stderr } = await evalCli(['--cases', file, '--suite', 'shell', '--limit', '2', '--quiet', '--json', jsonOut, '--html', htmlOut, '--policies', '/books']);
    expect(stderr).toBe('');
    const report = JSON.parse(await readFile(jsonOut, 'utf8')) as JsonReport;
    expect(report.cases.map((c) => c.id)).toEqual(['shell/benign', 'shell/rmrf']);
    expect(report.meta).toMatchObject({ suite: 'shell', limit: 2, policiesDir: `/books, ${SHIPPED_POLICIES}` });
    expect(await readFile(htmlOut, 'utf8')).toMatch(/^<!doctype html>/);
  });

  it('--fail-under exits 1 below the accuracy (4/7 here) and 0 at or above it', async () => {
    const dir = await tempDir();
    await writeJsonl(join(dir, 'cases.jsonl'), fixtureCases());
    const saved = process.exitCode;
    try {
      process.exitCode = 0;
      const below = await evalCli(['--cases', dir, '--quiet', '--fail-under', '60%']);
      expect(process.exitCode).toBe(1);
      expect(below.stderr).toBe('eval: accuracy 57.1% is below --fail-under 60.0%\n');
      process.exitCode = 0;
      await evalCli(['--cases', dir, '--quiet', '--fail-under', '0.5']);
      expect(process.exitCode).toBe(0);
    } finally {
      process.exitCode = saved;
    }
  });

  it('rejects an unknown suite, naming the suites there are', async () => {
    const dir = await tempDir();
    await writeJsonl(join(dir, 'cases.jsonl'), fixtureCases());
    const err = await evalCli(['--cases', dir, '--suite', 'nope']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EvalRunError);
    expect((err as EvalRunError).format()).toBe('eval_no_cases: no cases in suite "nope" (suites: chat, shell)');
  });

  it('rejects bad case files with file:line before running anything', async () => {
    const dir = await tempDir();
    let created = 0;
    const file = await writeJsonl(join(dir, 'cases.jsonl'), [aCase('a'), aCase('b', { steps: [{ kind: 'shell' }] })]);
    const err = await evalCli(['--cases', file], {
      guardFactory: () => {
        const f = testGuardFactory();
        return (p, c) => {
          created++;
          return f(p, c);
        };
      },
    }).catch((e: unknown) => e);
    expect((err as EvalRunError).format()).toBe(`${file}:2: eval_case_invalid: steps.0.kind: expected one of message|tool_call|tool_result|resource_request|resource_read|resource_result|prompt_request|prompt_result`);
    expect(created).toBe(0);
  });

  it('rejects a --limit that is not a positive integer as a usage error (exit 2 in the entry point)', async () => {
    const dir = await tempDir();
    const file = await writeJsonl(join(dir, 'cases.jsonl'), [aCase('a')]);
    for (const bad of ['zero', '0', '-3', '1.5']) {
      const err = await evalCli(['--cases', file, '--limit', bad]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CommanderError);
      expect((err as CommanderError).code).toBe('commander.invalidArgument');
      expect((err as CommanderError).message).toContain('expected a positive integer');
    }
  });

});
