import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
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
import { runEval } from '../eval/run.js';

/** Options of `quadguard eval`, as commander hands them over. */
export interface EvalCommandOptions {
  cases: string;
  policies: string;
  json?: string;
  html?: string;
  suite?: string;
  limit?: number;
  quiet?: boolean;
  /** A QuadGuard config file whose `llm:` section (and `guard:` settings) the guard uses. */
  config?: string;
}

/** What the command needs from its surroundings; tests and benchmarks replace any of it. */
export interface EvalCommandDeps {
  /**
   * Guard factory for a policies directory and the run's settings (from `--config`); defaults to the real
   * pipeline (`pipelineGuardFactory`).
   */
  guardFactory?: (policiesDir: string, settings: CaseGuardSettings) => GuardFactory;
  /** Where the results table goes (default stdout). */
  stdout?: { write(chunk: string): unknown };
  /** Where progress and notices go (default stderr). */
  stderr?: ProgressStream;
}

/**
 * Registers `quadguard eval`: replay labeled cases through the guard and report accuracy, precision, recall,
 * FPR and F1 (deny = positive), overall, per suite and per rule, with time and model usage per step.
 * Exit code 0 when the run completes (the metrics are results, not failures), 1 on bad input.
 *
 * @example
 * quadguard eval --cases ../shared/data/eval/dev --json out/eval.json --html out/eval.html
 */
export function registerEvalCommand(program: Command, deps: EvalCommandDeps = {}): Command {
  return program
    .command('eval')
    .description('replay labeled evaluation cases through the guard and report its accuracy')
    .requiredOption('--cases <path>', 'a .jsonl case file, or a directory of them')
    .option('--policies <dir>', 'directory of policy books', './policies')
    .option('--json <out>', 'write the full report as JSON')
    .option('--html <out>', 'write a self-contained HTML report')
    .option('--suite <name>', 'only the cases of this suite')
    .option('--limit <n>', 'only the first N cases (after --suite)', parseLimit)
    .option('--quiet', 'no progress bar or notices on stderr')
    .option('--config <file>', "a QuadGuard config file: its llm: section turns the model layer on, its guard: section tunes the pipeline")
    .action(async (opts: EvalCommandOptions) => {
      await runEvalCommand(opts, deps);
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
    policiesDir: opts.policies,
    ...(opts.suite !== undefined ? { suite: opts.suite } : {}),
    ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    elapsedMs: run.elapsedMs,
  });
  stdout.write(renderTable(metrics));
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

/** `--limit`: a positive integer, else a usage error. */
function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}
