import { basename } from 'node:path';
import { RemoteEntrySchema, StdioEntrySchema, type ClientSpec, type StdioEntry } from './clients.js';

/**
 * Pure rewriting of one host entry: wrap a stdio server in `quadguard wrap`, recognise an entry that already runs
 * through QuadGuard, and rebuild the original from a wrapped entry when no sidecar record exists.
 */

/** How the rewritten entry starts QuadGuard: `node <abs cli>` (no global install needed) or `npx -y quadguard`. */
export interface Launcher {
  command: string;
  /** Arguments before the `wrap` sub-command. */
  prefix: string[];
}

/** What to wrap with. */
export interface WrapOptions {
  launcher: Launcher;
  /** Absolute policy book path (`--policy`), or the `init` config whose policy, store and agents wrap takes (`--config`). */
  guard: { policy: string } | { config: string };
  /** Agent identity the host's sessions get (the client name). */
  agent: string;
}

/** The classification of one entry. */
export type EntryKind =
  | { kind: 'stdio'; entry: StdioEntry }
  | { kind: 'wrapped'; entry: StdioEntry; original: { command: string; args: string[] } }
  | { kind: 'quadguard'; reason: string }
  | { kind: 'remote'; reason: string }
  | { kind: 'invalid'; reason: string };

/**
 * Index just past the QuadGuard launcher in `args` (0 for a `quadguard` command), or -1. Recognised: the `quadguard`
 * bin, `npx [-y] quadguard[@v]`, this package's CLI path, and any `…/dist/cli/quadguard.js` (the bundled CLI) or
 * `…/dist/src/cli/index.js` (tsc's, which entries written before the bundle name) directly followed by `wrap` or
 * `serve` (a QuadGuard checkout elsewhere).
 */
function quadguardArgsStart(entry: StdioEntry, cliPath: string | undefined): number {
  const args = entry.args ?? [];
  const cmd = basename(entry.command).replace(/\.(exe|cmd)$/i, '');
  if (cmd === 'quadguard') return 0;
  for (let i = 0; i < Math.min(args.length, 3); i++) {
    const a = args[i]!;
    const slash = a.replace(/\\/g, '/');
    const next = args[i + 1];
    if (a === 'quadguard' || /^quadguard@/.test(a) || (cliPath !== undefined && a === cliPath)) return i + 1;
    if (/(^|\/)dist\/(cli\/quadguard|src\/cli\/index)\.js$/.test(slash) && (next === 'wrap' || next === 'serve')) return i + 1;
  }
  return -1;
}

/** Sorts an entry into stdio / already wrapped / QuadGuard itself / remote / not understood. */
export function classifyEntry(raw: unknown, spec: ClientSpec, cliPath?: string): EntryKind {
  const stdio = StdioEntrySchema.safeParse(raw);
  if (!stdio.success) {
    if (RemoteEntrySchema.safeParse(raw).success) {
      const why = spec.stdioOnly
        ? `remote (url) server: ${spec.title} launches stdio servers only and ignores it; guard it with a QuadGuard config (servers.<key>.url) and \`quadguard serve\``
        : 'remote (url) server: `quadguard wrap` guards stdio servers only; list it under servers.<key>.url in a QuadGuard config and register `quadguard serve` instead';
      return { kind: 'remote', reason: why };
    }
    return { kind: 'invalid', reason: 'not a stdio server entry (needs a string "command" and string "args")' };
  }
  const entry = stdio.data;
  const at = quadguardArgsStart(entry, cliPath);
  if (at >= 0) {
    const args = entry.args ?? [];
    const sub = args[at];
    const sep = args.indexOf('--', at);
    if (sub === 'wrap' && sep > at && sep + 1 < args.length) {
      return { kind: 'wrapped', entry, original: { command: args[sep + 1]!, args: args.slice(sep + 2) } };
    }
    return { kind: 'quadguard', reason: `already runs QuadGuard (${sub ?? 'quadguard'}); not wrapped twice` };
  }
  return { kind: 'stdio', entry };
}

/** A QuadGuard server key (`^[a-z][a-z0-9-]{0,31}$`) from a host's server name, or undefined if nothing is left. */
export function serverKeyFor(name: string): string | undefined {
  // eslint-disable-next-line regexp/no-super-linear-move -- a server name from the host's own MCP configuration, which the operator installs
  const key = name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^[^a-z]+/, '').replace(/-+$/, '').slice(0, 32);
  return key.length > 0 ? key : undefined;
}

/**
 * The wrapped entry: same keys in the same order (env, cwd, type and unknown keys kept), `command`/`args` replaced
 * by `quadguard wrap … -- <command> <args…>`. The wrapped server gets only an allow-listed environment, so every
 * `env` name is passed through with `--env`.
 *
 * @example
 * wrapEntry('fs', { command: 'npx', args: ['-y', 'server-fs', '/tmp'] }, { launcher: { command: 'node', prefix: ['/q/cli.js'] }, guard: { policy: '/q/policies/default' }, agent: 'cursor' })
 * // { command: 'node', args: ['/q/cli.js', 'wrap', '--policy', '/q/policies/default', '--agent', 'cursor', '--name', 'fs', '--', 'npx', '-y', 'server-fs', '/tmp'] }
 */
export function wrapEntry(name: string, entry: StdioEntry, opts: WrapOptions): StdioEntry {
  const key = serverKeyFor(name);
  const envNames = Object.keys(entry.env ?? {});
  const args = [
    ...opts.launcher.prefix,
    'wrap',
    ...('config' in opts.guard ? ['--config', opts.guard.config] : ['--policy', opts.guard.policy]),
    '--agent',
    opts.agent,
    ...(key ? ['--name', key] : []),
    // One comma-separated value (not variadic), so a client that strips "--" cannot make it swallow the command.
    ...(envNames.length > 0 ? ['--env', envNames.join(',')] : []),
    '--',
    entry.command,
    ...(entry.args ?? []),
  ];
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(entry)) out[k] = k === 'command' ? opts.launcher.command : k === 'args' ? args : v;
  if (!('args' in out)) out.args = args;
  return out as StdioEntry;
}

/** The original entry rebuilt from a wrapped one (used when the sidecar has no record of it). */
export function unwrapEntry(entry: StdioEntry, original: { command: string; args: string[] }): StdioEntry {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(entry)) out[k] = k === 'command' ? original.command : k === 'args' ? original.args : v;
  return out as StdioEntry;
}
