import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfigFile } from '../config/load.js';
import { prepareBook } from '../guard/build.js';
import { readRecorded, renderReplayReport, replayTrace, type ReplayReport } from '../replay/index.js';
import { openGuardStore } from '../store/open.js';
import { resolveStorePath } from '../store/store-path.js';

/** Options of `quadguard replay`, as commander hands them over. */
export interface ReplayCommandOptions {
  audit?: string;
  policy: string;
  json?: string;
  config?: string;
  from?: number;
  failOnChange?: boolean;
}

/**
 * Registers `quadguard replay`: re-decide the interactions recorded in a store's audit log under another policy
 * book (regression testing of a policy edit over real traffic) and list the decisions that change. Exit 0, or 1
 * with `--fail-on-change` when a verdict changed.
 *
 * @example
 * quadguard replay --policy policies/default-edited --json out/replay.json   # the store of `quadguard status`
 */
export function registerReplayCommand(program: Command): Command {
  return program
    .command('replay')
    .description('re-decide recorded interactions under another policy book and list the decisions that change')
    .option('--audit <state.db|url>', 'the store (SQLite file or postgres:// URL) whose audit log holds the recorded trace, only read (default: the store `quadguard status` shows)')
    .requiredOption('--policy <book>', 'policy book folder or file to replay under')
    .option('--json <out>', 'also write the full report as JSON')
    .option('--config <file>', 'QuadGuard config: agent profiles and guard settings as in the recorded run')
    .option('--from <id>', 'start at this audit row id', parseId)
    .option('--fail-on-change', 'exit 1 when any verdict changed (for CI)')
    .action(async (opts: ReplayCommandOptions) => {
      const report = await runReplayCommand(opts);
      process.stdout.write(renderReplayReport(report));
      if (opts.failOnChange && report.changed.length > 0) process.exitCode = 1;
    });
}

/** The command's work without commander (tests, scripts): returns the report and writes `--json`. */
export async function runReplayCommand(opts: ReplayCommandOptions): Promise<ReplayReport> {
  const config = opts.config ? loadConfigFile(opts.config).config : undefined;
  const profiles = config ? Object.fromEntries(Object.entries(config.agents).map(([name, a]) => [name, a.profile])) : {};
  const prepared = await prepareBook(opts.policy);
  const source = resolveStorePath({ store: opts.audit, config: opts.config });
  const store = await openGuardStore(source, undefined, { mustExist: true });
  let report: ReplayReport;
  try {
    report = await replayTrace(readRecorded(store, { profiles, ...(opts.from ? { fromId: opts.from } : {}) }), {
      prepared,
      // The file, or the URL without its password.
      source: store.location,
      ...(config?.guard ? { options: config.guard } : {}),
    });
  } finally {
    await store.close();
  }
  if (opts.json) {
    await mkdir(dirname(opts.json), { recursive: true });
    await writeFile(opts.json, `${JSON.stringify(report, null, 2)}\n`, 'utf8');
  }
  return report;
}

function parseId(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new InvalidArgumentError('expected a positive audit row id');
  return n;
}
