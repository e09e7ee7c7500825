import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfigFile } from '../config/load.js';
import { ConfigError, EvalRunError } from '../core/errors.js';
import { modelHooksFor } from '../config/guard.js';
import { pipelineGuardFactory, type CaseGuardSettings, type GuardFactory } from '../eval/guard-factory.js';
import { loadCases } from '../eval/load-cases.js';
import { computeMetrics } from '../eval/metrics.js';
import { createProgress, type ProgressStream } from '../eval/progress.js';
import { renderHtmlReport } from '../eval/report-html.js';
import { buildJsonReport, renderJsonReport, type JsonReport } from '../eval/report-json.js';
import { renderTable } from '../eval/report-table.js';
import { runEval, type CaseResult } from '../eval/run.js';
import { PACKAGE_ROOT } from '../core/version.js';

/** The shipped books, found relative to the package (not the current directory). */
export const SHIPPED_POLICIES = join(PACKAGE_ROOT, 'policies');

/** Options of `quadguard eval`, as commander hands them over. */
export interface EvalCommandOptions {
  cases: string;
  /** Folders of policy books, searched in order (the CLI adds the shipped policies/ last). */
  policies: string | string[];
  json?: string;
  html?: string;
  suite?: string;
  limit?: number;
  quiet?: boolean;
  /** A QuadGuard config file whose `llm:` section (and `guard:` settings) the guard uses. */
  config?: string;
  /** Exit 1 when overall accuracy is below this fraction (0–1). */
  failUnder?: number;
}

/** What the command needs from its surroundings; tests and benchmarks replace any of it. */
export interface EvalCommandDeps {
  /**
   * Guard factory for a policies directory and the run's settings (from `--config`); defaults to the real
   * pipeline (`pipelineGuardFactory`).
   */
  guardFactory?: (policiesDir: string | string[], settings: CaseGuardSettings) => GuardFactory;
  /** Where the results table goes (default stdout). */
  stdout?: { write(chunk: string): unknown };
  /** Where progress and notices go (default stderr). */
  stderr?: ProgressStream;
}

/**
 * Registers `quadguard eval`: replay labeled cases through the guard and report accuracy, precision, recall,
 * FPR and F1 (deny = positive), overall, per suite and per rule, with time and model usage per step.
 * Exit code 0 when the run completes (the metrics are results, not failures), 1 on bad input or, with
 * `--fail-under`, when accuracy is below the threshold. Each wrong case is named with the step that decided it.
 *
 * @example
 * quadguard eval --cases ../shared/data/eval/dev --json out/eval.json --html out/eval.html
 */
export function registerEvalCommand(program: Command, deps: EvalCommandDeps = {}): Command {
  return program
    .command('eval')
    .description('replay labeled evaluation cases through the guard and report its accuracy')
    .requiredOption('--cases <path>', 'a .jsonl case file, or a directory of them')
    .option('--policies <dir...>', "folders of policy books named by the cases' policy field, searched in order, then the shipped policies/ (repeat the flag or list several)")
    .option('--json <out>', 'write the full report as JSON')
    .option('--html <out>', 'write a self-contained HTML report')
    .option('--suite <name>', 'only the cases of this suite')
    .option('--limit <n>', 'only the first N cases (after --suite)', parseLimit)
    .option('--quiet', 'no progress bar or notices on stderr')
    .option('--config <file>', "a QuadGuard config file: its llm: section turns the model layer on, its guard: section tunes the pipeline")
    .option('--fail-under <accuracy>', 'exit 1 when overall accuracy is below this (0.95 or 95%), for CI', parseAccuracy)
    .action(async (opts: Omit<EvalCommandOptions, 'policies'> & { policies?: string[] }) => {
      // Your books first, the shipped ones after: cases may mix `default` with a book of your own.
      const policies = [...(opts.policies ?? []).flatMap((p) => p.split(',')).filter(Boolean), SHIPPED_POLICIES];
      const report = await runEvalCommand({ ...opts, policies }, deps);
      if (opts.failUnder !== undefined) {
        const acc = report.overall.accuracy ?? 0;
        if (acc < opts.failUnder) {
          (deps.stderr ?? process.stderr).write(`eval: accuracy ${pct(acc)} is below --fail-under ${pct(opts.failUnder)}\n`);
          process.exitCode = 1;
        }
      }
    });
}

/** The command's work, callable without commander (benchmarks, tests). Returns the JSON report. */
export async function runEvalCommand(opts: EvalCommandOptions, deps: EvalCommandDeps = {}): Promise<JsonReport> {
  const stdout = deps.stdout ?? process.stdout;
  const stderr = deps.stderr ?? process.stderr;
  const settings = opts.config !== undefined ? await caseSettingsFromConfig(opts.config) : {};
  const guardFor = (deps.guardFactory ?? pipelineGuardFactory)(opts.policies, settings);

  let cases = (await loadCases(opts.cases)).map((l) => l.case);
  if (opts.suite !== undefined) {
    const suites = [...new Set(cases.map((c) => c.suite))].sort();
    cases = cases.filter((c) => c.suite === opts.suite);
    if (cases.length === 0) {
      throw new EvalRunError('eval_no_cases', `no cases in suite ${JSON.stringify(opts.suite)} (suites: ${suites.join(', ')})`);
    }
  }
  if (opts.limit !== undefined) cases = cases.slice(0, opts.limit);

  const progress = createProgress({ total: cases.length, stream: stderr, quiet: opts.quiet === true });
  let wrong = 0;
  let run;
  try {
    run = await runEval(cases, {
      guardFor,
      onProgress: (done, _total, last) => {
        if (!last.correct) wrong++;
        progress.update(done, wrong);
      },
    });
  } finally {
    progress.finish();
  }

  const metrics = computeMetrics(run.cases);
  const report = buildJsonReport(run, metrics, {
    generatedAt: new Date().toISOString(),
    cases: opts.cases,
    policiesDir: typeof opts.policies === 'string' ? opts.policies : opts.policies.join(', '),
    ...(opts.suite !== undefined ? { suite: opts.suite } : {}),
    ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    elapsedMs: run.elapsedMs,
  });
  stdout.write(renderTable(metrics));
  const wrongCases = run.cases.filter((c) => !c.correct);
  if (wrongCases.length > 0) stdout.write(`\n${wrongCases.length} wrong:\n${wrongCases.map((c) => `  ${describeWrongCase(c)}\n`).join('')}`);
  if (opts.json) await writeOut(opts.json, renderJsonReport(report), stderr, opts.quiet);
  if (opts.html) await writeOut(opts.html, renderHtmlReport(report), stderr, opts.quiet);
  return report;
}

/**
 * A config file's `guard:` settings and `llm:` model, for every case guard of the run. Without `llm:` it is an
 * error: `--config` exists to evaluate with a model.
 */
async function caseSettingsFromConfig(file: string): Promise<CaseGuardSettings> {
  const { config } = loadConfigFile(file);
  const modelFor = await modelHooksFor(config);
  if (modelFor === undefined) throw new ConfigError('config_invalid', `${file}: no llm: section; --config is for evaluating with a model`);
  return { ...(config.guard ? { settings: config.guard } : {}), modelFor };
}

async function writeOut(path: string, text: string, stderr: ProgressStream, quiet?: boolean): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text, 'utf8');
  } catch (err) {
    throw new EvalRunError('eval_output_failed', `cannot write ${path}: ${(err as Error).message}`, { cause: err });
  }
  if (!quiet) stderr.write(`wrote ${path}\n`);
}

/**
 * One line naming a wrong case and the step that decided it: for a denial, the first denying step with its rules
 * and the predicates of its witness; for an allow, that no step was denied.
 *
 * @example
 * describeWrongCase(c) // 'chat/hostile (chat, policy default): expected allow, got deny at step 1 message: rule no-injection [injection_phrases] (deterministic)'
 */
export function describeWrongCase(c: CaseResult): string {
  const head = `${c.id} (${c.suite}, policy ${c.policy}): expected ${c.expected}, got ${c.actual}`;
  const denying = c.steps.find((s) => s.decision === 'deny');
  if (!denying) {
    const flagged = c.flagged.length > 0 ? `; flagged only: ${c.flagged.join(', ')}` : '';
    return `${head}: no step denied (${c.steps.length} step${c.steps.length === 1 ? '' : 's'} replayed${flagged})`;
  }
  const preds = [...new Set(denying.witness.flatMap((w) => Object.keys(w.predicates)))];
  const rules = denying.rules.length > 0 ? `rule ${denying.rules.join(', ')}` : 'no rule';
  const why = denying.error ? `error: ${denying.error}` : `${rules}${preds.length > 0 ? ` [${preds.join(', ')}]` : ''}`;
  return `${head} at step ${denying.index + 1} ${denying.kind}${denying.held ? ' (held for approval)' : ''}: ${why} (${denying.source})`;
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

/** `--fail-under`: 0.95, 95% or 95 (a number above 1 is a percentage). */
function parseAccuracy(value: string): number {
  const n = Number(value.replace(/%$/, ''));
  if (!Number.isFinite(n) || n < 0 || n > 100) throw new InvalidArgumentError('expected an accuracy such as 0.95 or 95%');
  return value.endsWith('%') || n > 1 ? n / 100 : n;
}

/** `--limit`: a positive integer, else a usage error. */
function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}
