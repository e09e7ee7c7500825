import type Database from 'better-sqlite3';
import { StoreError } from '../core/errors.js';
import { formatAuditId, parseAuditId, type AuditEntry, type AuditRow, type RawAuditRow } from './audit-schema.js';
import { bodyDigest, type InteractionRecord } from './audit-interaction.js';
import { anchorMac, HeadAnchor, macEqual, rowMac, type AuditKey } from './audit-key.js';
import { ChainWalker, GENESIS_HASH, type RetentionAnchor, type VerifyOptions, type VerifyResult } from './audit-chain.js';
import { auditFields, chainText, linkedHash, linkedRow, parseRow, rowHash, type AuditFields } from './audit-row.js';
import { auditInsert, auditSelect, interactionSelect, readStored, recordedBody, storedBody, storedValues } from './audit-columns.js';
import { chainTextOf, journalLine, journalLineOk, liveJournals, type AuditJournal, type JournalRow, type LinkedJournalRow } from './audit-journal.js';

export * from './audit-schema.js';
export { ChainWalker, GENESIS_HASH, type ChainContext, type RetentionAnchor, type VerifyOptions, type VerifyResult } from './audit-chain.js';
export { AUDIT_COLUMNS, auditFields, parseRow, rowHash } from './audit-row.js';

const PAGE = 500;
/** After a group commit failed (the store locked by another process, a full disk), when it is tried again, ms. */
const JOURNAL_RETRY_MS = 100;
/** Pending rows past which an append commits the group first (a store that keeps failing bounds the memory). */
const JOURNAL_MAX_PENDING = 10_000;
/**
 * How long the first row journaled after a commit waits for others to join its group commit, ms. A transaction's
 * fixed cost (BEGIN IMMEDIATE, the WAL frames of the pages it touches, COMMIT) is then shared by every row answered
 * in the window: under a steady stream of calls, several calls and their results per commit instead of one call.
 * It is also how late another process can see an answered row (docs/audit.md); this process's own reads, a
 * mutation's row and close commit what is pending first.
 */
export const GROUP_WINDOW_MS = 10;
/** Pending rows at which the group commits once the turn has answered, without waiting out the window. */
export const GROUP_MAX_ROWS = 128;
/**
 * From this far into the window (ms), the turn that journals a tool result's row commits the group once it has
 * answered, without waiting out the window. The commit then runs while the client reads its answer, instead of
 * wherever the window's end falls: in the middle of another call's check, or while a server's answer waits for it.
 */
export const GROUP_ANSWER_MS = 8;

/** How often, at most, the signed head is written to its file (ms); it is also written at close. */
const HEAD_INTERVAL_MS = 1000;

/** What a watcher of new audit rows is told. */
export interface AuditWatchHandlers {
  /** A row was appended (by any process on the store); its id when the notification carried it. */
  onRow(id: number | undefined): void;
  /** Listening started (`true`), or was lost (`false`, with why): the caller polls until it is back. */
  onState(listening: boolean, why?: string): void;
}

export interface AuditWatcher {
  close(): void;
}

export interface AuditApi {
  /**
   * Follows new rows as they are committed by any process (PostgreSQL: LISTEN/NOTIFY on a dedicated connection);
   * absent where the engine cannot (SQLite: readers poll).
   */
  watch?(handlers: AuditWatchHandlers): AuditWatcher;
  append(entry: AuditEntry): Promise<{ id?: number; auditId: string; hash?: string }>;
  get(id: number | string): Promise<AuditRow | undefined>;
  interaction(id: number): Promise<InteractionRecord | undefined>;
  tail(n: number): Promise<AuditRow[]>;
  iterate(fromId?: number): AsyncIterable<AuditRow>;
  verify(options?: VerifyOptions): Promise<VerifyResult>;
  /**
   * Retention: drops the rows written before `before` (ms since the epoch) from the start of the log, after handing
   * each to `exportTo`, and records the last dropped row as the retention anchor `verify` walks from (docs/audit.md).
   * `limit`: at most this many rows in this call (one transaction; the background retention's batches). The bodies
   * no kept row names are dropped by the call that reaches the last row to drop.
   */
  prune(before: number, exportTo?: (row: AuditRow) => void, limit?: number): Promise<{ dropped: number; anchor: RetentionAnchor | undefined }>;
}

/**
 * The append-only, hash-chained decisions log. Every row carries `hash = sha256(prev_hash ‖ canonical row JSON)`
 * where the row JSON includes its own id, so editing, deleting or renumbering a row breaks the chain.
 *
 * Durability: `appendNow` (a mutation's row, the CLI's) is one IMMEDIATE transaction, the chain head read inside the
 * write lock, so several processes extend one chain. A proxy's decisions go through `append` and the
 * journal (audit-journal.ts): the row's columns and the audit id it is answered with (`ref`, not its place in the
 * chain) are written to the journal in one write (as durable against a crash of the proxy as a commit with WAL and
 * `synchronous=NORMAL`), answered, and chained when committed in groups, under the write lock, after whatever any
 * process committed meanwhile (`link`). On open, the journals of dead processes are replayed (db.ts).
 */
export class AuditLog implements AuditApi {
  private readonly head: Database.Statement<[], { id: number | null; hash: string | null; seq: number | null }>;
  private readonly insert: Database.Statement;
  private readonly byId: Database.Statement<[number], unknown>;
  private readonly page: Database.Statement<[number, number], unknown>;
  private readonly tailStmt: Database.Statement<[number], unknown>;
  private readonly insertInteraction: Database.Statement;
  private readonly insertBody: Database.Statement;
  private readonly interactionById: Database.Statement<[number], { body: string | null; masked: number; truncated: number; session: string }>;
  private readonly appendTx: (row: AuditFields, rec?: InteractionRecord) => { id: number; hash: string };
  private readonly firstKeyed: Database.Statement<[], { id: number }>;
  private readonly count: Database.Statement<[], { n: number }>;
  private readonly anchor: HeadAnchor | undefined;
  private readonly hashById: Database.Statement<[number], { hash: string }>;
  private readonly byRef: Database.Statement<[string], unknown>;
  private readonly refHeld: Database.Statement<[string], { one: number }>;
  private readonly bookByHash: Database.Statement<[string], { id: number }>;
  private readonly insertBook: Database.Statement<[string]>;
  /** Book ids by policy hash, known in the current write transaction (cleared when one starts: a rollback loses them). */
  private readonly books = new Map<string, number>();
  private readonly commitTx: Database.Transaction<(rows: Array<JournalRow | LinkedJournalRow>, own: boolean) => LinkResult>;
  private journal: AuditJournal | undefined;
  private hooks: { onFault: (err: unknown, pending: number) => void } | undefined;
  /** Rows written to the journal and not yet known to be committed, in the order they were answered. */
  private pending: JournalRow[] = [];
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  /** The timer is an immediate (a full group, or a tool result answered late in the window), not a timeout. */
  private timerSoon = false;
  /** The window is past `GROUP_ANSWER_MS`: the next tool result's row commits the group after its turn. */
  private answerDue = false;

  /**
   * `key`: the audit key (audit-key.ts). Without one, rows are appended without MACs and `verify` checks the
   * unkeyed chain only (read-only opens of a store whose key is elsewhere).
   */
  constructor(
    private readonly db: Database.Database,
    private readonly key?: AuditKey,
  ) {
    // The chain head and the highest id ever used, in one statement (this runs inside every append's lock).
    this.head = db.prepare(
      `SELECT (SELECT id FROM audit ORDER BY id DESC LIMIT 1) AS id, (SELECT hash FROM audit ORDER BY id DESC LIMIT 1) AS hash,
        (SELECT seq FROM sqlite_sequence WHERE name = 'audit') AS seq`,
    );
    this.insert = db.prepare(auditInsert(() => '?'));
    this.bookByHash = db.prepare('SELECT id FROM audit_book WHERE hash = ?');
    this.insertBook = db.prepare('INSERT INTO audit_book (hash) VALUES (?)');
    this.firstKeyed = db.prepare('SELECT id FROM audit WHERE mac IS NOT NULL ORDER BY id LIMIT 1');
    this.count = db.prepare('SELECT count(*) AS n FROM audit');
    this.anchor = key?.headFile
      ? new HeadAnchor(key, (last) => ({ ...last, rows: this.count.get()?.n ?? 0, keyedSince: this.firstKeyed.get()?.id ?? last.id, ts: 0 }), HEAD_INTERVAL_MS)
      : undefined;
    this.byId = db.prepare(auditSelect('WHERE a.id = ?'));
    this.page = db.prepare(auditSelect('WHERE a.id > ? ORDER BY a.id LIMIT ?'));
    this.tailStmt = db.prepare(`SELECT * FROM (${auditSelect('ORDER BY a.id DESC LIMIT ?')}) ORDER BY id`);
    this.insertInteraction = db.prepare('INSERT INTO audit_interaction (id, body, masked, truncated, body_digest) VALUES (?, NULL, ?, ?, ?)');
    this.insertBody = db.prepare('INSERT OR IGNORE INTO audit_body (digest, body) VALUES (?, ?)');
    this.interactionById = db.prepare(interactionSelect('?'));
    this.hashById = db.prepare('SELECT hash FROM audit WHERE id = ?');
    this.byRef = db.prepare(auditSelect('WHERE a.ref = ?'));
    this.refHeld = db.prepare('SELECT 1 AS one FROM audit WHERE ref = ?');
    const tx = db.transaction((fields: AuditFields, rec?: InteractionRecord) => {
      this.books.clear();
      // A mutation's row (quarantine, release, approvals) follows the journals' rows: they were answered first.
      this.commitPending();
      this.absorbLiveJournals();
      const next = this.after(this.head.get(), fields);
      this.insertRow(next, rec);
      return { id: next.id, hash: next.hash };
    });
    this.appendTx = (row, rec) => tx.immediate(row, rec);
    this.commitTx = db.transaction((rows: Array<JournalRow | LinkedJournalRow>, own: boolean) => this.link(rows, own));
  }

  /** The chained, MACed row after `head` (the highest id ever used, so a deleted tail shows up as a gap). */
  /** `text`: the chain text of `fields` when the caller has it (a journal row's, made when it was journaled). */
  private after(head: { id: number | null; hash: string | null; seq: number | null } | undefined, fields: AuditFields, text = chainText(fields)): RawAuditRow {
    const id = Math.max(head?.id ?? 0, head?.seq ?? 0) + 1;
    const prev_hash = head?.hash ?? GENESIS_HASH;
    const hash = linkedHash(text, id, prev_hash);
    return linkedRow(fields, id, prev_hash, hash, this.key ? rowMac(this.key, hash) : null);
  }

  private insertRow(row: RawAuditRow, rec: InteractionRecord | undefined): void {
    const body = rec?.body == null ? null : storedBody(rec.body, row.session);
    this.insert.run(storedValues(row, body, row.policy_hash === null ? null : this.bookOf(row.policy_hash)));
    if (rec) {
      const digest = body !== null ? bodyDigest(body) : null;
      if (digest !== null) this.insertBody.run(digest, body);
      this.insertInteraction.run(row.id, rec.masked ? 1 : 0, rec.truncated ? 1 : 0, digest);
    }
  }

  /** The id of the book with this policy hash in `audit_book`, added when new (inside the caller's write transaction). */
  private bookOf(hash: string): number {
    let id = this.books.get(hash) ?? this.bookByHash.get(hash)?.id;
    id ??= Number(this.insertBook.run(hash).lastInsertRowid);
    this.books.set(hash, id);
    return id;
  }

  /**
   * Chains and inserts journal rows the store does not hold yet, in order, inside the caller's transaction (under
   * the write lock): each after the store's head as it is now, whatever other processes committed before. A row
   * whose `ref` the store holds is skipped (committed already: by this process, by a replay, or taken in by another
   * process's direct append). Rows of another file (`own` false: a replay, another process's journal) are taken only
   * with the audit key's MAC of their columns. A line of the earlier format (chained when written) is taken with its
   * hash and MAC, as written when it still links, else chained after the head.
   */
  private link(rows: Array<JournalRow | LinkedJournalRow>, own: boolean): LinkResult {
    let forged = 0;
    let last: { id: number; hash: string } | undefined;
    this.books.clear();
    let head = this.head.get();
    for (const j of rows) {
      let row: RawAuditRow;
      if ('row' in j) {
        if (this.hashById.get(j.row.id)?.hash === j.row.hash) continue;
        const { hash, mac, ...rest } = j.row;
        if (rowHash(rest) !== hash || (this.key && (mac === null || !macEqual(mac, rowMac(this.key, hash))))) {
          forged++;
          continue;
        }
        const { id, prev_hash, ...fields } = rest;
        const links = Math.max(head?.id ?? 0, head?.seq ?? 0) + 1 === id && (head?.hash ?? GENESIS_HASH) === prev_hash;
        row = links ? j.row : this.after(head, fields);
      } else {
        if (this.refHeld.get(j.fields.ref) !== undefined) continue;
        if (!own && !journalLineOk(this.key, j)) {
          forged++;
          continue;
        }
        row = this.after(head, j.fields, chainTextOf(j));
      }
      this.insertRow(row, j.rec);
      head = { id: row.id, hash: row.hash, seq: row.id };
      last = { id: row.id, hash: row.hash };
    }
    return { forged, last };
  }

  /**
   * Journals the decisions' rows from now on (the proxy): `append` writes the chained row to `journal` and
   * returns; the rows are committed in groups (`GROUP_WINDOW_MS` after the first, or `GROUP_MAX_ROWS` at once),
   * before any read of the log, before a mutation's own row, and at close. `onFault`: a group commit failed (it is tried again).
   */
  attachJournal(journal: AuditJournal, hooks: { onFault: (err: unknown, pending: number) => void }): void {
    this.journal = journal;
    this.hooks = hooks;
  }

  /**
   * Inside a direct append's write lock: the rows other running proxies have journaled (answered) and not yet
   * committed go in first, so the chain keeps the order in which decisions were answered (their audit ids name
   * them wherever they land; their process skips them at its own commit).
   */
  private absorbLiveJournals(): void {
    if (this.journalFolder === undefined) return;
    for (const j of liveJournals(this.journalFolder)) this.link(j.rows, false);
  }

  /** The folder of this store's journals (every file store: its direct appends take in what running proxies journaled). */
  journalFolder: string | undefined;

  /** Rows of orphaned journals (audit-journal.ts): inserts those the store lacks; returns how many were refused (a
   * MAC or hash that does not match: the file was edited). */
  replay(rows: Array<JournalRow | LinkedJournalRow>): LinkResult {
    const done = this.commitTx.immediate(rows, false);
    if (done.last) this.noteHead(done.last.id, done.last.hash);
    return done;
  }

  /**
   * Commits the journal's pending rows now. Inside a transaction of the caller (a mutation's row), they join it
   * and stay pending until a commit outside one finds them in the store (that transaction might roll back).
   */
  commitPending(): void {
    if (this.pending.length === 0) return;
    if (this.db.inTransaction) {
      this.link(this.pending, true);
      this.schedule();
      return;
    }
    const rows = this.pending;
    const done = this.commitTx.immediate(rows, true);
    this.pending = [];
    this.journal?.clear();
    if (done.last) this.noteHead(done.last.id, done.last.hash);
  }

  /**
   * Commits the group `GROUP_WINDOW_MS` after its first row, or once the turn has answered when `GROUP_MAX_ROWS`
   * rows are pending or a tool result's row comes `GROUP_ANSWER_MS` or more into the window (`commitAfterAnswer`),
   * or after `JOURNAL_RETRY_MS` when the last commit failed (`retry`; rows journaled meanwhile wait for that retry).
   */
  private schedule(retry = false): void {
    if (this.timer !== undefined) {
      if (retry || this.timerSoon || this.pending.length < GROUP_MAX_ROWS) return;
      clearTimeout(this.timer as NodeJS.Timeout);
    }
    this.answerDue = false;
    this.timerSoon = !retry && this.pending.length >= GROUP_MAX_ROWS;
    if (retry) this.timer = setTimeout(this.commitGroup, JOURNAL_RETRY_MS);
    else if (this.timerSoon) this.timer = setImmediate(this.commitGroup);
    else {
      // The window in two timeouts: its last part opens at the first, and closes at the second.
      this.timer = setTimeout(() => {
        this.answerDue = true;
        this.timer = setTimeout(this.commitGroup, GROUP_WINDOW_MS - GROUP_ANSWER_MS);
        this.timer.unref();
      }, GROUP_ANSWER_MS);
    }
    this.timer.unref();
  }

  /** A tool result's row was journaled: in the window's last part, the group commits once this turn has answered. */
  private commitAfterAnswer(): void {
    if (!this.answerDue) return;
    clearTimeout(this.timer as NodeJS.Timeout);
    this.answerDue = false;
    this.timerSoon = true;
    this.timer = setImmediate(this.commitGroup);
    this.timer.unref();
  }

  private readonly commitGroup = (): void => {
    this.timer = undefined;
    this.timerSoon = false;
    this.answerDue = false;
    this.settle();
  };

  /** Commits what is pending (before a read, so this process reads what it answered); a failure leaves it pending. */
  private settle(): void {
    try {
      this.commitPending();
    } catch (err) {
      this.hooks?.onFault(err, this.pending.length);
      this.schedule(true);
    }
  }

  /**
   * Records one decision's entry. With a journal (the proxy): the row's columns and a new audit id (`ref`) are
   * written to the journal in one write and the audit id returned; the row is chained and committed with its group
   * (`schedule`; its numeric id and hash are not known yet). Without one, as `appendNow`. Throws
   * `store_write_failed` when the journal does not take it (the caller fails closed).
   */
  async append(entry: AuditEntry): Promise<{ id?: number; auditId: string; hash?: string }> {
    if (!this.journal) return this.appendNow(entry);
    const { fields, rec } = auditFields(entry);
    try {
      if (this.pending.length >= JOURNAL_MAX_PENDING) this.commitPending();
      const j = journalLine(fields, this.journal.nextRef(), rec, this.key);
      try {
        this.journal.write(j);
      } catch (err) {
        const full = (err as NodeJS.ErrnoException).code === 'ENOSPC' ? ' (the disk is full)' : '';
        throw new StoreError('store_write_failed', `cannot write the audit journal ${this.journal.file}${full}: ${(err as Error).message}`, { cause: err });
      }
      this.pending.push(j);
      this.schedule();
      if (entry.kind === 'tool_result') this.commitAfterAnswer();
      return { auditId: j.fields.ref };
    } catch (err) {
      throw new StoreError('store_write_failed', `cannot append to the audit log: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Commits the pending rows and closes the journal (removed when nothing is left in it, else left to replay). */
  closeJournal(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer as NodeJS.Timeout);
      clearImmediate(this.timer as NodeJS.Immediate);
    }
    this.timer = undefined;
    this.timerSoon = false;
    this.answerDue = false;
    try {
      this.commitPending();
    } finally {
      this.journal?.close(this.pending.length === 0);
      this.journal = undefined;
    }
  }

  /**
   * Records one entry now, in the caller's transaction when there is one (a mutation's row); returns its id, stable
   * string id and chain hash. Throws `store_invalid_entry` on a bad entry.
   */
  appendNow(entry: AuditEntry): { id: number; auditId: string; hash: string } {
    const { fields, rec } = auditFields(entry);
    try {
      const { id, hash } = this.appendTx(fields, rec);
      this.noteHead(id, hash);
      return { id, auditId: formatAuditId(id, hash), hash };
    } catch (err) {
      throw new StoreError('store_write_failed', `cannot append to the audit log: ${(err as Error).message}`, { cause: err });
    }
  }

  /** One row by numeric id or stable string id (`42` or `42-3fa9c1d2`); undefined when absent or the hash prefix differs. */
  async get(id: number | string): Promise<AuditRow | undefined> {
    this.settle();
    const ref = typeof id === 'number' ? { id } : parseAuditId(id);
    if (!ref) throw new StoreError('store_invalid_id', `not an audit id: ${String(id)} (expected 42 or 42-3fa9c1d2)`);
    const raw = 'ref' in ref ? this.byRef.get(ref.ref) : this.byId.get(ref.id);
    if (raw === undefined) return undefined;
    const row = parseRow(readStored(raw));
    if ('hashPrefix' in ref && ref.hashPrefix && !row.hash.startsWith(ref.hashPrefix)) return undefined;
    return row;
  }

  /**
   * The masked, capped interaction recorded with row `id` (see audit-interaction.ts); undefined for admin rows and
   * rows written before the store kept interactions. Not covered by the hash chain: the chain's `digest` is of the
   * unmasked payload, which the store never keeps.
   */
  async interaction(id: number): Promise<InteractionRecord | undefined> {
    this.settle();
    const r = this.interactionById.get(id);
    return r === undefined ? undefined : { body: r.body === null ? null : recordedBody(r.body, r.session), masked: r.masked === 1, truncated: r.truncated === 1 };
  }

  /** The last `n` rows, oldest first. */
  async tail(n: number): Promise<AuditRow[]> {
    this.settle();
    return this.tailStmt.all(Math.max(0, Math.floor(n))).map((raw) => parseRow(readStored(raw)));
  }

  /** Every row with id ≥ `fromId`, in id order, read in pages so the connection is never held between steps. */
  async *iterate(fromId = 1): AsyncGenerator<AuditRow> {
    this.settle();
    for (const raw of this.rawPages(fromId - 1)) yield parseRow(raw);
  }

  /**
   * Walks the whole chain and names the first row that breaks it: an edited row (its hash no longer matches),
   * a deleted row (a gap in ids, or a missing tail), a rewritten or reordered row (a `prev_hash` that does not
   * link to the row before). An attacker who deletes the tail and also rewinds `sqlite_sequence` leaves no
   * trace inside the file, but the signed head file beside the key does (and `anchor`, a head kept elsewhere:
   * row `anchor.id` must still exist with that hash; any prefix of it is accepted, e.g. an auditId's 8 digits).
   * The checks are `ChainWalker`'s, shared with PostgreSQL.
   */
  async verify(options: VerifyOptions = {}): Promise<VerifyResult> {
    this.settle();
    const warnings: string[] = [];
    const triggers = this.db
      .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name IN ('audit_no_update', 'audit_no_delete')")
      .get() as { n: number };
    if (triggers.n < 2) warnings.push('the append-only triggers of the audit table are missing (someone dropped them)');
    const walk = new ChainWalker(warnings, {
      key: this.key,
      ...(options.heads ? { extraHeads: options.heads } : {}),
      ownHeadRequired: true,
      firstKeyed: this.firstKeyed.get()?.id,
      rowCount: this.count.get()?.n ?? 0,
      anchor: options.anchor,
      retention: this.retention(),
    });
    if (walk.early) return walk.early;
    for (const raw of this.rawPages(walk.lastId)) {
      const bad = walk.push(raw);
      if (bad) return bad;
    }
    return walk.finish(this.head.get()?.seq ?? 0);
  }

  /** The retention anchor, when `prune` dropped rows. */
  private retention(): RetentionAnchor | undefined {
    return this.db.prepare('SELECT id, hash, dropped, ts, mac FROM audit_anchor WHERE one = 1').get() as RetentionAnchor | undefined;
  }

  /**
   * Retention: drops the rows written before `before` (ms since the epoch) — the longest run of them from the start
   * of the log, so the kept chain stays one chain — with their recorded interactions and the bodies no kept row names,
   * and records the last dropped row's id and hash as the retention anchor (MACed under the audit key), from which
   * `verify` walks the rest. `exportTo` gets the dropped rows as NDJSON first (the file is written before anything is
   * dropped; a failure drops nothing). The append-only triggers are lifted inside the transaction only. `limit`: at
   * most this many rows; the bodies no kept row names are dropped by the call that reaches the last row to drop.
   */
  async prune(before: number, exportTo?: (row: AuditRow) => void, limit = Number.POSITIVE_INFINITY): Promise<{ dropped: number; anchor: RetentionAnchor | undefined }> {
    this.settle();
    const tx = this.db.transaction(() => {
      const current = this.retention();
      const firstKept = this.db.prepare('SELECT min(id) AS id FROM audit WHERE ts >= ?').get(before) as { id: number | null };
      const last = this.db.prepare('SELECT max(id) AS id FROM audit').get() as { id: number | null };
      const due = firstKept.id !== null ? firstKept.id - 1 : (last.id ?? 0);
      const cut = Math.min(due, (current?.id ?? 0) + limit);
      if (cut <= (current?.id ?? 0)) return { dropped: 0, anchor: current };
      if (exportTo) for (const raw of this.rawPages(current?.id ?? 0)) {
        const row = parseRow(raw);
        if (row.id > cut) break;
        exportTo(row);
      }
      const hash = this.hashById.get(cut)!.hash;
      const dropped = (current?.dropped ?? 0) + (this.db.prepare('SELECT count(*) AS n FROM audit WHERE id <= ?').get(cut) as { n: number }).n;
      const a = { id: cut, hash, dropped, ts: Date.now() };
      const anchor: RetentionAnchor = { ...a, mac: this.key ? anchorMac(this.key, a) : null };
      this.db.exec(`DROP TRIGGER audit_no_delete; DROP TRIGGER audit_interaction_no_delete; DROP TRIGGER audit_body_no_delete;`);
      this.db.prepare('DELETE FROM audit_interaction WHERE id <= ?').run(cut);
      this.db.prepare('DELETE FROM audit WHERE id <= ?').run(cut);
      // A scan of the kept interactions: once, by the call that reaches the last row due (not by every batch).
      if (cut === due) this.db.exec('DELETE FROM audit_body WHERE digest NOT IN (SELECT body_digest FROM audit_interaction WHERE body_digest IS NOT NULL)');
      this.db.exec(`CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
        CREATE TRIGGER audit_interaction_no_delete BEFORE DELETE ON audit_interaction BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;
        CREATE TRIGGER audit_body_no_delete BEFORE DELETE ON audit_body BEGIN SELECT RAISE(ABORT, 'audit log is append-only'); END;`);
      this.db.prepare('INSERT INTO audit_anchor (one, id, hash, dropped, ts, mac) VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT (one) DO UPDATE SET id = excluded.id, hash = excluded.hash, dropped = excluded.dropped, ts = excluded.ts, mac = excluded.mac')
        .run(anchor.id, anchor.hash, anchor.dropped, anchor.ts, anchor.mac);
      return { dropped: dropped - (current?.dropped ?? 0), anchor };
    });
    try {
      return tx.immediate();
    } catch (err) {
      throw new StoreError('store_write_failed', `cannot prune the audit log: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Writes the signed head now if it has not been written for a second, else soon (timer, unref'd). */
  private noteHead(id: number, hash: string): void {
    this.anchor?.note(id, hash);
  }

  /** Writes the pending signed head (at close, and from the timer). */
  flushHead(): void {
    this.anchor?.flush();
  }

  private *rawPages(afterId: number): Generator<unknown> {
    let after = afterId;
    for (;;) {
      const page = this.page.all(after, PAGE);
      for (const raw of page) yield readStored(raw);
      if (page.length < PAGE) return;
      after = (page[page.length - 1] as { id: number }).id;
    }
  }
}


/** What committing journal rows did: the rows refused (a MAC or hash that does not match), the last row inserted. */
interface LinkResult {
  forged: number;
  last: { id: number; hash: string } | undefined;
}
