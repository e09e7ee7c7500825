import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { sha256Hex } from '../../core/canonical.js';
import { StoreError } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import { orphanJournals, type AuditJournal, type JournalRow } from '../audit-journal.js';
import { quadguardHome } from '../store-path.js';

/**
 * The audit journal of a PostgreSQL replica (issue #30 part 1; the file and its lines are SQLite's, audit-journal.ts):
 * a decision's row is written to this process's journal with one write and answered; the rows are committed in
 * groups, one transaction per group with the chain head locked once (pg/audit.ts `commitGroup`), one group at a time.
 * The journal is a file on the replica's own disk: it is only as durable as that disk (docs/audit.md says when to
 * turn it on).
 */

/** After a group commit failed (the database away, a lock held past the bound), when it is tried again, ms. */
const RETRY_MS = 100;
/** Pending rows past which a decision waits for the commit, and fails closed if it fails: memory stays bounded. */
const MAX_PENDING = 10_000;
/** Rows per transaction at most (a backlog after an outage, a replay), and recorded bodies' characters: one statement of bounded size. */
export const GROUP_MAX = 256;
const GROUP_MAX_CHARS = 4 * 1024 * 1024;

/** The first rows of `rows` that make one group. */
export function firstGroup(rows: readonly JournalRow[]): JournalRow[] {
  let chars = 0;
  let n = 0;
  while (n < rows.length && n < GROUP_MAX) {
    chars += rows[n]!.rec?.body?.length ?? 0;
    if (n > 0 && chars > GROUP_MAX_CHARS) break;
    n++;
  }
  return rows.slice(0, n);
}

/** Where a replica keeps its journals: `QUADGUARD_AUDIT_JOURNAL_DIR`, else beside its default signed head. */
export function pgJournalDir(location: string, env: NodeJS.ProcessEnv = process.env): string {
  const set = env.QUADGUARD_AUDIT_JOURNAL_DIR;
  if (set !== undefined && set !== '') return set;
  return join(quadguardHome(env), `audit-${sha256Hex(location).slice(0, 8)}.audit-journal`);
}

/** Commits rows (skipping those the store holds by `ref`); throws when the transaction did not commit. */
export type GroupCommit = (rows: JournalRow[]) => Promise<unknown>;

/** This process's journal and the rows in it not yet known to be committed, in the order they were answered. */
export class PgJournal {
  private pending: JournalRow[] = [];
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private closed = false;

  constructor(
    private readonly journal: AuditJournal,
    private readonly commit: GroupCommit,
    private readonly onFault: (err: unknown, pending: number) => void,
  ) {}

  nextRef(): string {
    return this.journal.nextRef();
  }

  /** Rows journaled and not known to be committed (a mutation's transaction links them before its own row). */
  get uncommitted(): readonly JournalRow[] {
    return this.pending;
  }

  /** Waits, past `MAX_PENDING` rows, for them to be committed (throws when they cannot be: fail closed). */
  async room(): Promise<void> {
    if (this.pending.length >= MAX_PENDING) await this.flush();
  }

  /** One write of the line (fdatasync'd when asked), then its commit is scheduled after this turn of the event loop. */
  write(line: JournalRow): void {
    try {
      this.journal.write(line);
    } catch (err) {
      const full = (err as NodeJS.ErrnoException).code === 'ENOSPC' ? ' (the disk is full)' : '';
      throw new StoreError('store_write_failed', `cannot write the audit journal ${this.journal.file}${full}: ${(err as Error).message}`, { cause: err });
    }
    this.pending.push(line);
    this.schedule(false);
  }

  /** Commits every row pending now; throws when a group could not be committed (its rows stay pending). */
  async flush(): Promise<void> {
    if (this.running) await this.running;
    if (this.pending.length > 0) await this.run();
  }

  /** Commits what is pending and closes the file: removed when every row is committed, else left for a replay. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) {
      clearTimeout(this.timer as NodeJS.Timeout);
      clearImmediate(this.timer as NodeJS.Immediate);
      this.timer = undefined;
    }
    try {
      await this.flush();
    } finally {
      this.journal.close(this.pending.length === 0);
    }
  }

  /**
   * The one group commit running: groups of at most `GROUP_MAX` rows until nothing is pending (rows journaled while a
   * group commits join the next). After each, the file keeps only the rows still pending. A failure is reported,
   * retried after `RETRY_MS`, and thrown to whoever waits.
   */
  private run(): Promise<void> {
    if (this.running === undefined) {
      const p: Promise<void> = this.loop().finally(() => {
        if (this.running === p) this.running = undefined;
      });
      this.running = p;
    }
    return this.running;
  }

  private async loop(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const group = firstGroup(this.pending);
        await this.commit(group);
        this.pending.splice(0, group.length);
        this.journal.keepOnly(this.pending);
      }
    } catch (err) {
      this.onFault(err, this.pending.length);
      this.schedule(true);
      throw err;
    }
  }

  private schedule(retry: boolean): void {
    // After close, what is left stays in the file for the next start's replay.
    if (this.timer !== undefined || this.closed) return;
    const go = () => {
      this.timer = undefined;
      this.flush().catch(() => {});
    };
    this.timer = retry ? setTimeout(go, RETRY_MS) : setImmediate(go);
    this.timer.unref();
  }
}

/**
 * Replays the journals in `dir` of processes that no longer run (a replica killed, restarted on the same disk):
 * the rows the store lacks are committed in groups (`replay` refuses a line whose MAC is not the key's), then the
 * file is removed. `strict`: a journal that cannot be replayed throws (the proxy, which would otherwise journal into
 * the same file under the same pid, as a container's pid 1 does); else it is left for the next open, with a warning.
 */
export async function replayOrphans(
  dir: string,
  replay: (rows: JournalRow[]) => Promise<{ forged: number }>,
  log: Logger,
  strict: boolean,
): Promise<void> {
  for (const orphan of orphanJournals(dir)) {
    // A line of SQLite's earlier format (a row already chained) never was in a PostgreSQL journal: refused.
    const rows = orphan.rows.filter((r): r is JournalRow => 'fields' in r);
    const bad = orphan.bad + orphan.rows.length - rows.length;
    try {
      const { forged } = await replay(rows);
      rmSync(orphan.file, { force: true });
      const msg = `replayed the audit journal ${orphan.file} of a process that ended without committing it`;
      if (forged + bad > 0) log.warn({ journal: orphan.file, refused: forged + bad }, `${msg}: ${forged + bad} line(s) refused (malformed, or a MAC that does not match: the file was edited)`);
      else log.info({ journal: orphan.file, rows: rows.length }, msg);
    } catch (err) {
      if (strict) {
        throw new StoreError('store_write_failed', `cannot replay the audit journal ${orphan.file} into the store: ${(err as Error).message}; it is replayed at the next start`, { cause: err });
      }
      log.warn({ err, journal: orphan.file }, 'replaying an audit journal failed; it is tried again at the next open');
    }
  }
}
