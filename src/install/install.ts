import { existsSync } from 'node:fs';
import type { ClientSpec } from './clients.js';
import { classifyEntry, wrapEntry } from './entry.js';
import { listServers, openDocument } from './document.js';
import { backupFile, writeAtomic } from './fs-safe.js';
import { readSidecar, writeSidecar } from './sidecar.js';
import { describeEdits, applyEdits, eolOf, formatValue, indentUnitOf, lineIndentAt, type TextEdit } from './text-edit.js';
import { launcherFor, resolveGuard, resolveTarget, selectedNames, type RegisterOptions, type RegisterReport } from './options.js';

/** Install options: which policy and launcher the wrapped entries use. */
export interface InstallOptions extends RegisterOptions {
  /** Policy book for the wrapped servers (default: the shipped `policies/default`). */
  policy?: string | undefined;
  /** Launch QuadGuard with `npx -y quadguard` instead of this Node and this package's CLI path. */
  useNpx?: boolean | undefined;
}

/**
 * Why nothing was done for a file with no servers (nothing is written: an empty client file helps no one). In the
 * default project scope, the user's servers are most likely in the user file: say how to reach it.
 */
function noServersNote(file: string, opts: InstallOptions, spec: ClientSpec): string {
  const defaulted = opts.scope === undefined && opts.configFile === undefined && spec.defaultScope === 'project' && spec.scopes.includes('user');
  const base = `no servers in ${file}${existsSync(file) ? '' : ' (it does not exist)'}; nothing written`;
  if (!defaulted) return `${base}; add servers to it, then run install again`;
  return `${base}. That is ${spec.title}'s project file, for this folder only; servers you added for every project are in the user file: quadguard install --client ${spec.name} --scope user --all`;
}

/**
 * Rewrites the chosen stdio servers of a host's config so they run through `quadguard wrap`. Only the changed
 * entries' value spans are replaced (comments and everything else stay byte-identical); a backup is made first,
 * the originals go to the sidecar, and the file is replaced atomically. Remote, already wrapped and QuadGuard
 * entries are skipped with a reason.
 *
 * @example
 * const report = installClient({ client: 'cursor', select: { all: true }, configFile: '.cursor/mcp.json' });
 */
export function installClient(opts: InstallOptions): RegisterReport {
  const { spec, loc, env } = resolveTarget(opts);
  const launcher = launcherFor(opts.useNpx);
  const cliPath = opts.useNpx ? undefined : launcher.prefix[0];
  const doc = openDocument(spec, loc);
  const report: RegisterReport = { file: doc.file, changed: [], skipped: [], notes: [], diff: '', written: false, created: false };
  if (opts.select === undefined) return { ...report, listing: listServers(doc, cliPath) };

  if (doc.entries.length === 0) return { ...report, noServers: true, notes: [noServersNote(doc.file, opts, spec)] };
  const guard = resolveGuard(opts.policy, spec.name, env);
  if ('config' in guard) report.notes.push(`wrapped servers use ${guard.config} (its policy, store and agents; --policy to use a book instead)`);
  const names = selectedNames(opts.select, doc.entries.map((e) => e.key), doc.file);
  const sidecar = readSidecar(doc.file, spec.name);
  const unit = indentUnitOf(doc.text);
  const eol = eolOf(doc.text);
  const now = (opts.now ?? new Date()).toISOString();
  const edits: TextEdit[] = [];

  for (const name of names) {
    const m = doc.entries.find((e) => e.key === name)!;
    const kind = classifyEntry(m.node.value, spec, cliPath);
    if (kind.kind === 'wrapped') {
      report.skipped.push({ name, reason: 'already wrapped by QuadGuard' });
      continue;
    }
    if (kind.kind !== 'stdio') {
      report.skipped.push({ name, reason: kind.reason });
      continue;
    }
    if (kind.entry.env === undefined && 'envFile' in kind.entry) {
      report.notes.push(`${name}: variables from envFile reach QuadGuard but not the wrapped server; list them under "env" to pass them through`);
    }
    const wrapped = wrapEntry(name, kind.entry, { launcher, guard, agent: spec.name });
    edits.push({ start: m.node.start, end: m.node.end, replacement: formatValue(wrapped, unit, lineIndentAt(doc.text, m.keyStart), eol) });
    sidecar.entries[name] = { original_text: doc.text.slice(m.node.start, m.node.end), original: m.node.value, wrapped, installed_at: now };
    report.changed.push(name);
  }

  report.diff = edits.length > 0 ? describeEdits(doc.file, doc.text, edits) : '';
  if (opts.dryRun) return report;
  if (edits.length === 0) return report;
  if (doc.exists) report.backup = backupFile(doc.file, opts.now);
  // Sidecar first: if the config write then fails, uninstall finds the entry unwrapped and just drops the record.
  report.sidecar = writeSidecar(doc.file, sidecar);
  writeAtomic(doc.file, applyEdits(doc.text, edits), { mkdir: !doc.exists });
  return { ...report, written: true, created: !doc.exists };
}
