import { closeSync, existsSync, fdatasyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { RawAuditRowSchema, type RawAuditRow } from './audit-schema.js';
import type { InteractionRecord } from './audit-interaction.js';

/**
 * The audit journal of a SQLite store (issue #30 part 1): a proxy appends each decision's chained row to a file of
 * its own with one `write`, answers, and commits the journal's rows to the database in groups (audit.ts). The
 * durability is the database's: with `synchronous = NORMAL` (the default) a commit in WAL mode is not fsynced either,
 * so both survive a crash of the process (the kernel holds the bytes) and may lose the last ones on power loss;
 * with `FULL` each journal write is followed by an fdatasync, as each commit is.
 *
 * Each process has its own file, `<store>.audit-journal/<pid>.ndjson`. Whoever opens the store next replays the
 * files of processes that are no longer running (audit.ts `AuditLog.replay`), so a row that was answered is in the
 * store after a `kill -9`.
 */

/** One journal line: the row as it will be inserted (chained, MACed), and its interaction record. */
export const JournalRowSchema = z.object({
  row: RawAuditRowSchema,
  rec: z.object({ body: z.string().nullable(), masked: z.boolean(), truncated: z.boolean() }).optional(),
});
export interface JournalRow {
  row: RawAuditRow;
  rec?: InteractionRecord | undefined;
}

/** The folder of a store file's journals. */
export function journalDir(storeFile: string): string {
  return `${storeFile}.audit-journal`;
}

/** This process's journal: append-only, emptied once its rows are committed, removed at a clean close. */
export class AuditJournal {
  readonly file: string;
  private fd: number | undefined;

  constructor(
    dir: string,
    private readonly fsync: boolean,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = join(dir, `${process.pid}.ndjson`);
    this.fd = openSync(this.file, 'a', 0o600);
  }

  /** One write of one line (a kill cannot tear it); fdatasync'd when the store's synchronous setting is FULL. */
  write(r: JournalRow): void {
    if (this.fd === undefined) throw new Error(`the audit journal ${this.file} is closed`);
    writeSync(this.fd, `${JSON.stringify(r)}\n`);
    if (this.fsync) fdatasyncSync(this.fd);
  }

  /** Empties the file: every row in it is committed to the store. */
  clear(): void {
    if (this.fd !== undefined) ftruncateSync(this.fd, 0);
  }

  /** Closes the file; removes it when `committed` (nothing in it is missing from the store), else leaves it to replay. */
  close(committed: boolean): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    if (committed) rmSync(this.file, { force: true });
  }
}

/** Whether process `pid` runs (EPERM: it runs, under another user). */
function running(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The parsed lines of a journal file; a line that does not parse, or is not complete yet, is counted as bad. */
function readJournal(file: string): { rows: JournalRow[]; bad: number } {
  const rows: JournalRow[] = [];
  let bad = 0;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { rows, bad };
  }
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let parsed: ReturnType<typeof JournalRowSchema.safeParse>;
    try {
      parsed = JournalRowSchema.safeParse(JSON.parse(line));
    } catch {
      bad++;
      continue;
    }
    if (parsed.success) rows.push(parsed.data);
    else bad++;
  }
  return { rows, bad };
}

/** The journals in `dir` of other processes that run now, with their rows (see `AuditLog.absorbLiveJournals`). */
export function liveJournals(dir: string): Array<{ file: string; rows: JournalRow[] }> {
  // Asked before every direct append: with no journaling process on this store there is no folder, and a readdir that
  // throws ENOENT (an Error and its stack each time) cost more than the append it precedes.
  if (!existsSync(dir)) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((name) => /^(\d+)\.ndjson$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null && Number(m[1]) !== process.pid && running(Number(m[1])))
    .map((m) => ({ file: join(dir, m[0]), rows: readJournal(join(dir, m[0])).rows }));
}

/**
 * The journals in `dir` whose process no longer runs (this process's own pid too: a file under it is a previous
 * process's that had the same pid, as a container's pid 1 does), with their rows in order. A line that does not
 * parse (a file cut by a full disk, or edited) is skipped and counted.
 */
export function orphanJournals(dir: string): Array<{ file: string; rows: JournalRow[]; bad: number }> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: Array<{ file: string; rows: JournalRow[]; bad: number }> = [];
  for (const name of names) {
    const m = /^(\d+)\.ndjson$/.exec(name);
    if (!m || running(Number(m[1]))) continue;
    const file = join(dir, name);
    const { rows, bad } = readJournal(file);
    out.push({ file, rows, bad });
  }
  return out;
}
