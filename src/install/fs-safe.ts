import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { InstallError } from './errors.js';

/**
 * File writes that never leave a client's config half-written: a timestamped backup first, then a temp file in
 * the same folder renamed over the original (atomic on one file system), keeping the original's permissions
 * (`~/.claude.json` is often 0600).
 */

/**
 * `<file>.bak-<UTC timestamp>`, unique even for two backups in the same millisecond. Only the newest backup is
 * kept: older `<file>.bak-*` files are removed once the new one is written, so repeated installs leave one.
 */
export function backupFile(file: string, now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  let target = `${file}.bak-${stamp}`;
  for (let i = 1; existsSync(target); i++) target = `${file}.bak-${stamp}-${i}`;
  try {
    copyFileSync(file, target);
  } catch (err) {
    throw new InstallError('install_io', `cannot back up ${file} to ${target}: ${(err as Error).message}`, { cause: err });
  }
  const prefix = `${basename(file)}.bak-`;
  for (const old of readdirSync(dirname(file))) {
    if (old.startsWith(prefix) && join(dirname(file), old) !== target) rmSync(join(dirname(file), old), { force: true });
  }
  return target;
}

/** Writes `text` to `file` through a temp file and a rename; creates the folder when asked. */
export function writeAtomic(file: string, text: string, opts: { mkdir?: boolean } = {}): void {
  const dir = dirname(file);
  const tmp = join(dir, `.${basename(file)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    if (opts.mkdir) mkdirSync(dir, { recursive: true });
    const mode = existsSync(file) ? statSync(file).mode & 0o777 : undefined;
    writeFileSync(tmp, text, { flag: 'wx', mode: mode ?? 0o644 });
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new InstallError('install_io', `cannot write ${file}: ${(err as Error).message}`, { cause: err });
  }
}
