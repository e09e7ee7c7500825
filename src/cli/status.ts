import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfigFile } from '../config/load.js';
import { errorMessage } from '../core/errors.js';
import { quadguardHome, resolveStoreLocation, type StoreSource } from '../store/store-path.js';
import { PACKAGE_ROOT, VERSION } from '../core/version.js';

/** What `quadguard status` reports: the paths every command would use from here. */
export interface StatusReport {
  version: string;
  node: string;
  config: string | null;
  store: string;
  storeFrom: StoreSource;
  storeExists: boolean;
  home: string;
  policy: string | null;
  policyKey: string | null;
  tokens: { agent: string; source: string }[];
  /** Each configured server and whether it can start: a stdio command found (or not), a remote URL (not probed). */
  servers: { name: string; state: 'startable' | 'cannot_start' | 'remote'; detail: string }[];
  problem: string | null;
}

/** A stdio command as spawn would find it: a path (against the server's folder), else the first match on PATH. */
function findCommand(command: string, cwd: string): string | undefined {
  const candidates = command.includes('/') || isAbsolute(command) ? [resolve(cwd, command)] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, command));
  return candidates.find((c) => {
    try {
      accessSync(c, constants.X_OK);
      return statSync(c).isFile();
    } catch {
      return false;
    }
  });
}

const FROM: Record<StoreSource, string> = {
  flag: 'from --store',
  config: "from the config's store:",
  home: 'from $QUADGUARD_HOME, else ~/.quadguard',
};

/** The status for the given flags (the same rule `serve`, `wrap`, `audit`, `ui`, … apply). */
export function statusReport(opts: { store?: string; config?: string }): StatusReport {
  const where = resolveStoreLocation(opts);
  const report: StatusReport = {
    version: VERSION,
    node: process.version,
    config: where.config ?? null,
    store: where.path,
    storeFrom: where.source,
    storeExists: existsSync(where.path),
    home: quadguardHome(),
    policy: where.config ? null : join(PACKAGE_ROOT, 'policies', 'default'),
    policyKey: null,
    tokens: [],
    servers: [],
    problem: null,
  };
  if (where.config) {
    try {
      const { config } = loadConfigFile(where.config, process.env, { tokens: false });
      report.policy = config.policy ?? null;
      report.policyKey = config.policy_public_key ?? null;
      for (const [name, srv] of Object.entries(config.servers)) {
        if (srv.command === undefined) {
          report.servers.push({ name, state: 'remote', detail: `${srv.url ?? ''} (not probed)` });
          continue;
        }
        const found = findCommand(srv.command, srv.cwd ?? process.cwd());
        report.servers.push(found
          ? { name, state: 'startable', detail: `${found}${srv.args?.length ? ` ${srv.args.join(' ')}` : ''}` }
          : { name, state: 'cannot_start', detail: `"${srv.command}" is not an executable file and not on PATH: fix servers.${name}.command (or install it); its tools will be missing` });
      }
      for (const [agent, a] of Object.entries(config.agents)) {
        if (!a.token) continue;
        report.tokens.push({ agent, source: 'env' in a.token ? `env ${a.token.env}` : 'file' in a.token ? `file ${a.token.file}` : 'literal value in the config' });
      }
    } catch (err) {
      report.problem = errorMessage(err);
    }
  }
  return report;
}

/** `quadguard status`: version, config, store, policy and key file, i.e. where this machine keeps what. */
export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('print the version and the config, store, policy, key file and servers (whether each can start) the other commands would use from here')
    .option('--store <file>', 'as the other commands take it')
    .option('--config <file>', 'as the other commands take it (default: ./quadguard.config.yaml if present)')
    .option('--json', 'print the report as JSON')
    .action((o: { store?: string; config?: string; json?: boolean }) => {
      const r = statusReport(o);
      if (o.json) {
        process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
      } else {
        const lines = [
          `quadguard ${r.version} on Node ${r.node}`,
          `config:     ${r.config ?? '(none: no --config and no ./quadguard.config.yaml)'}`,
          `store:      ${r.store}  (${FROM[r.storeFrom]}; ${r.storeExists ? 'exists' : 'not created yet'})`,
          `policy:     ${r.policy ?? '(none: tool lists only)'}${r.config ? '' : '  (what `wrap` uses by default)'}`,
          `policy key: ${r.policyKey ?? '(none: the policy is not signature-checked)'}`,
          ...r.tokens.map((t) => `token:      ${t.agent}: ${t.source}`),
          ...r.servers.map((v) => `server:     ${v.name}: ${v.state === 'startable' ? 'can start' : v.state === 'remote' ? 'remote' : 'CANNOT START'}: ${v.detail}`),
        ];
        process.stdout.write(`${lines.join('\n')}\n`);
      }
      if (r.servers.some((v) => v.state === 'cannot_start')) process.exitCode = 1;
      if (r.problem) {
        process.stderr.write(`quadguard: ${r.problem}\n`);
        process.exitCode = 1;
      }
    });
}
