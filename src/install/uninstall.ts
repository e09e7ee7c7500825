import { classifyEntry, unwrapEntry } from './entry.js';
import { listServers, openDocument } from './document.js';
import { backupFile, writeAtomic } from './fs-safe.js';
import { readSidecar, sidecarPath, writeSidecar } from './sidecar.js';
import { applyEdits, describeEdits, eolOf, formatValue, indentUnitOf, lineIndentAt, type TextEdit } from './text-edit.js';
import { CLI_PATH, resolveTarget, type RegisterOptions, type RegisterReport } from './options.js';
import { InstallError } from './errors.js';

/**
 * Puts wrapped entries back: the original text from the sidecar (byte for byte), or, without a record, the
 * command and args after `wrap … --` with every other key kept. Entries that are not wrapped are left alone, so
 * running it twice is a no-op.
 *
 * @example
 * uninstallClient({ client: 'vscode', select: { all: true } });
 */
export function uninstallClient(opts: RegisterOptions): RegisterReport {
  const { spec, loc } = resolveTarget(opts);
  const report: RegisterReport = { file: loc.file, changed: [], skipped: [], notes: [], diff: '', written: false, created: false };
  const doc = openDocument(spec, { ...loc, creatable: true });
  if (!doc.exists) return { ...report, notes: [`${loc.file} does not exist; nothing to restore`] };
  if (opts.select === undefined) return { ...report, listing: listServers(doc, CLI_PATH) };

  const sidecar = readSidecar(doc.file, spec.name);
  const inFile = doc.entries.map((e) => e.key);
  const names =
    'all' in opts.select
      ? [...new Set([...inFile, ...Object.keys(sidecar.entries)])]
      : opts.select.names.map((n) => {
          if (!inFile.includes(n) && !(n in sidecar.entries)) throw new InstallError('install_usage', `no server "${n}" in ${doc.file}; servers: ${inFile.join(', ') || '(none)'}`);
          return n;
        });
  const unit = indentUnitOf(doc.text);
  const eol = eolOf(doc.text);
  const edits: TextEdit[] = [];
  let sidecarChanged = false;

  for (const name of names) {
    const m = doc.entries.find((e) => e.key === name);
    const rec = sidecar.entries[name];
    const kind = m ? classifyEntry(m.node.value, spec, CLI_PATH) : undefined;
    if (!m || kind?.kind !== 'wrapped') {
      if (rec) {
        delete sidecar.entries[name];
        sidecarChanged = true;
        report.notes.push(`${name}: ${m ? 'no longer wrapped' : 'no longer in the file'}; dropped its sidecar record`);
      }
      if (m && !('all' in opts.select)) report.skipped.push({ name, reason: 'not wrapped by QuadGuard' });
      continue;
    }
    let replacement: string;
    if (rec) {
      if (JSON.stringify(m.node.value) !== JSON.stringify(rec.wrapped)) {
        report.notes.push(`${name}: edited since install; restored the original (the edited version is in the backup)`);
      }
      replacement = rec.original_text;
      delete sidecar.entries[name];
      sidecarChanged = true;
    } else {
      report.notes.push(`${name}: no sidecar record; rebuilt from the wrapped command line`);
      replacement = formatValue(unwrapEntry(kind.entry, kind.original), unit, lineIndentAt(doc.text, m.keyStart), eol);
    }
    edits.push({ start: m.node.start, end: m.node.end, replacement });
    report.changed.push(name);
  }

  report.diff = edits.length > 0 ? describeEdits(doc.file, doc.text, edits) : '';
  if (opts.dryRun) return report;
  if (edits.length > 0) {
    report.backup = backupFile(doc.file, opts.now);
    writeAtomic(doc.file, applyEdits(doc.text, edits));
    report.written = true;
  }
  if (sidecarChanged) {
    report.sidecar = writeSidecar(doc.file, sidecar);
    if (report.sidecar === undefined) report.notes.push(`removed ${sidecarPath(doc.file)} (nothing left to restore)`);
    report.written = true;
  }
  return report;
}
