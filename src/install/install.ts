import { classifyEntry, wrapEntry } from './entry.js';
import { listServers, openDocument } from './document.js';
import { backupFile, writeAtomic } from './fs-safe.js';
import { readSidecar, writeSidecar } from './sidecar.js';
import { describeEdits, applyEdits, eolOf, formatValue, indentUnitOf, lineIndentAt, type TextEdit } from './text-edit.js';
import { launcherFor, resolvePolicy, resolveTarget, selectedNames, type RegisterOptions, type RegisterReport } from './options.js';

/** Install options: which policy and launcher the wrapped entries use. */
export interface InstallOptions extends RegisterOptions {
  /** Policy book for the wrapped servers (default: the shipped `policies/default`). */
  policy?: string | undefined;
  /** Launch QuadGuard with `npx -y quadguard` instead of this Node and this package's CLI path. */
  useNpx?: boolean | undefined;
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

  const policy = resolvePolicy(opts.policy, env);
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
    const wrapped = wrapEntry(name, kind.entry, { launcher, policy, agent: spec.name });
    edits.push({ start: m.node.start, end: m.node.end, replacement: formatValue(wrapped, unit, lineIndentAt(doc.text, m.keyStart), eol) });
    sidecar.entries[name] = { original_text: doc.text.slice(m.node.start, m.node.end), original: m.node.value, wrapped, installed_at: now };
    report.changed.push(name);
  }
  if (doc.entries.length === 0) report.notes.push(`no servers in ${doc.file} yet; add them, then run install again`);

  report.diff = edits.length > 0 ? describeEdits(doc.file, doc.text, edits) : '';
  if (opts.dryRun) return report;
  if (edits.length === 0) {
    if (!doc.exists) {
      writeAtomic(doc.file, doc.text, { mkdir: true });
      return { ...report, written: true, created: true };
    }
    return report;
  }
  if (doc.exists) report.backup = backupFile(doc.file, opts.now);
  // Sidecar first: if the config write then fails, uninstall finds the entry unwrapped and just drops the record.
  report.sidecar = writeSidecar(doc.file, sidecar);
  writeAtomic(doc.file, applyEdits(doc.text, edits), { mkdir: !doc.exists });
  return { ...report, written: true, created: !doc.exists };
}
