import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfigFile } from '../config/load.js';
import { CLI_ENTRY, PACKAGE_ROOT } from '../core/version.js';
import { DEFAULT_CONFIG_FILE } from '../store/store-path.js';
import { CLIENTS, locateConfig, type ClientName, type ClientSpec, type ConfigLocation, type Environment, type Scope } from './clients.js';
import type { Launcher } from './entry.js';
import { InstallError } from './errors.js';

/** Which servers a command acts on: every one, some by name, or none given (the CLI then lists and exits 2). */
export type Selection = { all: true } | { names: string[] } | undefined;

/** Options shared by install and uninstall. */
export interface RegisterOptions {
  client: ClientName;
  scope?: Scope | undefined;
  /** Explicit client config file (relative to env.cwd). */
  configFile?: string | undefined;
  select: Selection;
  dryRun?: boolean | undefined;
  /** Where to look for default locations; defaults to the real process (tests pass a temp home). */
  env?: Environment | undefined;
  now?: Date | undefined;
}

/** What a run did (or, with dry-run, would do). */
export interface RegisterReport {
  file: string;
  /** Entries rewritten (wrapped or restored). */
  changed: string[];
  skipped: Array<{ name: string; reason: string }>;
  notes: string[];
  /** A line diff of the config file's changes (empty when nothing changes). */
  diff: string;
  /** True when files were written (false for dry-run and no-op runs). */
  written: boolean;
  created: boolean;
  backup?: string | undefined;
  sidecar?: string | undefined;
  /** The file has no servers, so nothing was done (the CLI exits 1: the user's servers are elsewhere). */
  noServers?: boolean | undefined;
  /** Set when no selection was given: the servers, for the CLI to list. */
  listing?: Array<{ name: string; kind: string; note?: string }> | undefined;
}

/** This package's built CLI (package.json `bin`: `dist/cli/quadguard.js`), the default thing rewritten entries launch. */
export const CLI_PATH: string = CLI_ENTRY;

/** The shipped default policy book. */
export const DEFAULT_POLICY: string = join(PACKAGE_ROOT, 'policies', 'default');

/** The real process's environment for locating configs. */
export function processEnvironment(): Environment {
  return { cwd: process.cwd(), home: homedir(), platform: process.platform, appData: process.env.APPDATA };
}

/** `node <abs cli>` with this very Node binary (no global install needed), or `npx -y quadguard`. */
export function launcherFor(useNpx: boolean | undefined): Launcher {
  return useNpx ? { command: 'npx', prefix: ['-y', 'quadguard'] } : { command: process.execPath, prefix: [CLI_PATH] };
}

/** The policy path written into entries: absolute, and it must exist. */
export function resolvePolicy(policy: string | undefined, env: Environment): string {
  const abs = policy === undefined ? DEFAULT_POLICY : resolve(env.cwd, policy);
  if (!existsSync(abs)) throw new InstallError('install_usage', `--policy: ${abs} does not exist (give a policy book folder or file)`);
  return abs;
}

/**
 * What wrapped entries guard with: `--policy` when given; else the `quadguard.config.yaml` of the folder install
 * runs in (an \`init\` folder: its policy, store and agents), which must load and declare the client's agent; else
 * the shipped default book.
 */
export function resolveGuard(policy: string | undefined, agent: string, env: Environment): { policy: string } | { config: string } {
  const config = join(env.cwd, DEFAULT_CONFIG_FILE);
  if (policy !== undefined || !existsSync(config)) return { policy: resolvePolicy(policy, env) };
  let agents: string[];
  try {
    agents = Object.keys(loadConfigFile(config, process.env, { tokens: false }).config.agents);
  } catch (err) {
    throw new InstallError('install_usage', `${config} (the config wrapped servers would use): ${(err as Error).message}\nFix it, or pass --policy to use a book instead of this folder's config`, { cause: err });
  }
  if (agents.length > 0 && !agents.includes(agent)) {
    throw new InstallError('install_usage', `${config} declares no agent "${agent}" (it has ${agents.join(', ')}), and wrapped servers would start as that agent; add it under agents: (\`quadguard init\` writes one per client), or pass --policy`);
  }
  return { config };
}

/** Spec and file location of a run. */
export function resolveTarget(opts: RegisterOptions): { spec: ClientSpec; loc: ConfigLocation; env: Environment } {
  const spec = CLIENTS[opts.client];
  const env = opts.env ?? processEnvironment();
  return { spec, loc: locateConfig(spec, { scope: opts.scope, configFile: opts.configFile }, env), env };
}

/** Names the selection covers, checked against the file; an unknown name is a usage error listing the known ones. */
export function selectedNames(select: Exclude<Selection, undefined>, known: readonly string[], file: string): string[] {
  if ('all' in select) return [...known];
  for (const n of select.names) {
    if (!known.includes(n)) {
      throw new InstallError('install_usage', `no server "${n}" in ${file}; servers: ${known.length > 0 ? known.join(', ') : '(none)'}`);
    }
  }
  return [...new Set(select.names)];
}
