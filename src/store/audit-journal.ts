import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fdatasyncSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { formatRef, RawAuditRowSchema, type RawAuditRow } from './audit-schema.js';
import type { InteractionRecord } from './audit-interaction.js';
import { chainText, columnsJson, linkedHash, withRef, type AuditFields, type ChainText } from './audit-row.js';
import { macEqual, rowMac, type AuditKey } from './audit-key.js';

/**
 * The audit journal of a SQLite store (issue #30 part 1): a proxy appends each decision's row to a file of its own
 * with one `write`, answers, and commits the journal's rows to the database in groups (audit.ts). The durability is
 * the database's: with `synchronous = NORMAL` (the default) a commit in WAL mode is not fsynced either, so both
 * survive a crash of the process (the kernel holds the bytes) and may lose the last ones on power loss; with `FULL`
 * each journal write is followed by an fdatasync, as each commit is.
 *
 * A journal row holds the row BEFORE its link: its columns, the audit id it was answered with (`ref`, a tag of this
 * process and a counter), and, under the audit key, a MAC of those columns. Its id, `prev_hash`, hash and row MAC
 * are given when it is committed, under the store's write lock, after whatever any process committed before. So
 * several processes journal into one store, each row's audit id names that row wherever it lands in the one chain,
 * and the chain is exactly the one `audit verify` walks.
 *
 * Each process has its own file, `<store>.audit-journal/<pid>.ndjson`. Whoever opens the store next replays the
 * files of processes that are no longer running (audit.ts `AuditLog.replay`); a row whose `ref` the store holds is
 * skipped, so a row that was answered is in the store once after a `kill -9`, whenever it came.
 */

/** The columns of a row before its link (all but id, prev_hash, hash, mac), with the audit id it was answered with. */
const UnlinkedRowSchema = RawAuditRowSchema.omit({ id: true, prev_hash: true, hash: true, mac: true }).extend({ ref: z.string() });
const RecSchema = z.object({ body: z.string().nullable(), masked: z.boolean(), truncated: z.boolean() });

/** One journal line: the row's columns, their MAC under the audit key (null without one), its interaction record. */
export const JournalRowSchema = z.object({ fields: UnlinkedRowSchema, mac: z.string().nullable(), rec: RecSchema.optional() });
export interface JournalRow {
  fields: AuditFields & { ref: string };
  mac: string | null;
  rec?: InteractionRecord | undefined;
}

/** A line of the earlier format (before `ref`): the row already chained. Replayed by its hash and MAC. */
const LinkedLineSchema = z.object({ row: RawAuditRowSchema, rec: RecSchema.optional() });
export interface LinkedJournalRow {
  row: RawAuditRow;
  rec?: InteractionRecord | undefined;
}

/**
 * The size (characters written) past which a journal whose rows are all committed is emptied. Below it, committed
 * lines stay: a replay, or another process's direct append, skips a `ref` the store holds; emptying the file after
 * every group commit cost an ftruncate per group on the allow path.
 */
const CLEAR_AT = 256 * 1024;

/**
 * The chain text of each journal row made by `journalLine` (audit-row.ts `ChainText`): its MAC, its line in the file
 * and its chain hash at commit are made from that one serialisation of its columns. Held under a symbol, so it is not
 * in what the file holds (`lineOf` writes the row's own members), with the row it was made for: a copy of the row
 * (`{ ...row }` copies the symbol too) makes its own, as a row read from a file does. Not a WeakMap: an entry in a
 * WeakMap's table for every row journaled (two a call) is work for the collector.
 */
const CHAIN_TEXT: unique symbol = Symbol('chain text');
type TextedRow = JournalRow & { [CHAIN_TEXT]?: { row: JournalRow; text: ChainText } };

/** The chain text of a journal row's columns: the one `journalLine` made, else (a row read from a file) made now. */
export function chainTextOf(j: JournalRow): ChainText {
  const r = j as TextedRow;
  const held = r[CHAIN_TEXT];
  if (held !== undefined && held.row === j) return held.text;
  const text = chainText(j.fields);
  r[CHAIN_TEXT] = { row: j, text };
  return text;
}

/** The journal line of a decision's row: its columns with the audit id answered (`ref`), their MAC, its interaction. */
export function journalLine(fields: AuditFields, ref: string, rec: InteractionRecord | undefined, key: AuditKey | undefined): JournalRow {
  const unlinked = withRef(fields, ref);
  const text = chainText(unlinked);
  const row: TextedRow = { fields: unlinked, mac: key ? journalMac(key, text) : null, ...(rec ? { rec } : {}) };
  row[CHAIN_TEXT] = { row, text };
  return row;
}

/** Whether a journal line's MAC is the key's (a line added or edited by hand is not); without a key, every line is. */
export function journalLineOk(key: AuditKey | undefined, j: JournalRow): boolean {
  return !key || (j.mac !== null && macEqual(j.mac, journalMac(key, chainTextOf(j))));
}

/**
 * The MAC of a journal row's columns before its link (the row MAC covers the chain hash, which it does not have
 * yet): a line added to a journal by hand is refused at replay. It is the row MAC of `rowHash` of the row linked as
 * id 0 after '', under the prefix `journal:` (domain-separated from the row MAC: a chain hash never starts with it).
 */
function journalMac(key: AuditKey, text: ChainText): string {
  return rowMac(key, `journal:${linkedHash(text, 0, '')}`);
}

/**
 * A journal row as its line in the file: the JSON of `{ fields, mac, rec }`, its columns written from their chain
 * text (keys sorted, a null `llm` left out: the schema reads it back as null).
 */
function lineOf(r: JournalRow): string {
  return `{"fields":${columnsJson(chainTextOf(r))},"mac":${JSON.stringify(r.mac)}${r.rec === undefined ? '' : `,"rec":${JSON.stringify(r.rec)}`}}\n`;
}

/** The folder of a store file's journals. */
export function journalDir(storeFile: string): string {
  return `${storeFile}.audit-journal`;
}

/** This process's journal: append-only, emptied once its rows are committed, removed at a clean close. */
export class AuditJournal {
  readonly file: string;
  private fd: number | undefined;
  /** This process's random tag in the audit ids it answers (`formatRef`), and the count of ids given. */
  private readonly tag = randomBytes(6).toString('hex');
  private refs = 0;
  /** Characters written since the file was last emptied. */
  private written = 0;

  constructor(
    dir: string,
    private readonly fsync: boolean,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = join(dir, `${process.pid}.ndjson`);
    this.fd = openSync(this.file, 'a', 0o600);
  }

  /** The audit id of the next row (unique per store: a random tag per journal and a counter). */
  nextRef(): string {
    return formatRef(this.tag, ++this.refs);
  }

  /** One write of one line (a kill cannot tear it); fdatasync'd when the store's synchronous setting is FULL. */
  write(r: JournalRow): void {
    if (this.fd === undefined) throw new Error(`the audit journal ${this.file} is closed`);
    const line = lineOf(r);
    writeSync(this.fd, line);
    this.written += line.length;
    if (this.fsync) fdatasyncSync(this.fd);
  }

  /** Every row in the file is committed to the store: empties it once it has grown past `CLEAR_AT`. */
  clear(): void {
    if (this.fd === undefined || this.written < CLEAR_AT) return;
    ftruncateSync(this.fd, 0);
    this.written = 0;
  }

  /**
   * Leaves in the file only `rows` (a group was committed while later rows were journaled: PostgreSQL commits
   * asynchronously). Written beside it and renamed over it, so a kill at any point leaves either file: the old one
   * holds rows already committed too, which a replay skips by `ref`.
   */
  keepOnly(rows: JournalRow[]): void {
    if (this.fd === undefined) return;
    if (rows.length === 0) return this.clear();
    // Below CLEAR_AT committed lines may stay (a replay skips them by `ref`), as `clear` leaves them.
    if (this.written < CLEAR_AT) return;
    const next = `${this.file}.next`;
    const fd = openSync(next, 'w', 0o600);
    try {
      const text = rows.map(lineOf).join('');
      writeSync(fd, text);
      this.written = text.length;
      if (this.fsync) fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(next, this.file);
    closeSync(this.fd);
    this.fd = openSync(this.file, 'a', 0o600);
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

/** What a journal file holds: its rows in order (a line of the earlier format as it was chained), and the lines that do not parse. */
export interface JournalContent {
  rows: Array<JournalRow | LinkedJournalRow>;
  bad: number;
}

/** The parsed lines of a journal file; a line that does not parse, or is not complete yet, is counted as bad. */
function readJournal(file: string): JournalContent {
  const rows: JournalContent['rows'] = [];
  let bad = 0;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { rows, bad };
  }
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      bad++;
      continue;
    }
    const parsed = JournalRowSchema.safeParse(json);
    const linked = parsed.success ? undefined : LinkedLineSchema.safeParse(json);
    if (parsed.success) rows.push(parsed.data);
    else if (linked?.success) rows.push(linked.data);
    else bad++;
  }
  return { rows, bad };
}

/** The journals in `dir` of other processes that run now, with their rows (see `AuditLog.absorbLiveJournals`). */
export function liveJournals(dir: string): Array<{ file: string } & JournalContent> {
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
    .map((m) => ({ file: join(dir, m[0]), ...readJournal(join(dir, m[0])) }));
}

/**
 * The journals in `dir` whose process no longer runs (this process's own pid too: a file under it is a previous
 * process's that had the same pid, as a container's pid 1 does), with their rows in order. A line that does not
 * parse (a file cut by a full disk, or edited) is skipped and counted.
 */
export function orphanJournals(dir: string): Array<{ file: string } & JournalContent> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: Array<{ file: string } & JournalContent> = [];
  for (const name of names) {
    const m = /^(\d+)\.ndjson$/.exec(name);
    if (!m || running(Number(m[1]))) continue;
    const file = join(dir, name);
    const { rows, bad } = readJournal(file);
    out.push({ file, rows, bad });
  }
  return out;
}
