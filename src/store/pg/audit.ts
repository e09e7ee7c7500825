import { StoreError } from '../../core/errors.js';
import { ChainWalker, type RetentionAnchor, type VerifyOptions, type VerifyResult } from '../audit-chain.js';
import { auditFields, linkedRow, parseRow, rowHash } from '../audit-row.js';
import { auditInsert, auditSelect, interactionSelect, readStored, recordedBody, STORED_COLUMNS, storedBody, storedValues } from '../audit-columns.js';
import { anchorMac, dbHeadMac, HeadAnchor, macEqual, readHead, rowMac, type AuditKey } from '../audit-key.js';
import { formatAuditId, parseAuditId, type AuditEntry, type AuditRow } from '../audit-schema.js';
import { bodyDigest, type InteractionRecord } from '../audit-interaction.js';
import { journalLine, journalLineOk, type AuditJournal, type JournalRow } from '../audit-journal.js';
import type { AuditApi, AuditWatchHandlers, AuditWatcher } from '../engine.js';
import { inline, literal, type PgDb, type Query } from './connection.js';
import { firstGroup, GROUP_MAX, PgJournal } from './journal.js';
import { AUDIT_CHANNEL } from './notify.js';

const PAGE = 500;
const N = STORED_COLUMNS.length;
/** The parameter number of the row's chain hash (the head row takes it). */
const HASH_PARAM = STORED_COLUMNS.indexOf('hash') + 1;
/** The parameter number of the row's book: its policy hash, which the statement resolves to the book's id. */
const BOOK_PARAM = STORED_COLUMNS.indexOf('book') + 1;
/**
 * One statement writes the row (naming its book, added when new), its interaction and the new chain head (a
 * data-modifying CTE), so an append is two round trips: BEGIN + lock of the head, then this with COMMIT. It notifies
 * `quadguard_audit` with the row's id (delivered at commit, to the live views that LISTEN: pg/notify.ts).
 */
const INSERT = `WITH k0 AS (INSERT INTO audit_book (hash) SELECT $${BOOK_PARAM}::text WHERE $${BOOK_PARAM}::text IS NOT NULL ON CONFLICT (hash) DO NOTHING RETURNING id),
  k AS (SELECT id FROM k0 UNION ALL SELECT id FROM audit_book WHERE hash = $${BOOK_PARAM}::text),
  a AS (${auditInsert((c, n) => (c === 'book' ? '(SELECT id FROM k LIMIT 1)' : `$${n + 1}`))} RETURNING id),
  b AS (INSERT INTO audit_body (digest, body) SELECT $${N + 6}::text, $${N + 2}::text WHERE $${N + 6}::text IS NOT NULL ON CONFLICT (digest) DO NOTHING),
  i AS (INSERT INTO audit_interaction (id, body, masked, truncated, body_digest) SELECT id, NULL, $${N + 3}::int, $${N + 4}::int, $${N + 6}::text FROM a WHERE $${N + 1}::boolean),
  h AS (UPDATE audit_head SET id = $1::bigint, hash = $${HASH_PARAM}::text, mac = $${N + 5}::text WHERE one)
  SELECT id, pg_notify('${AUDIT_CHANNEL}', id::text) FROM a`;
const LOCK_HEAD = 'SELECT id, hash FROM audit_head WHERE one FOR UPDATE';

/**
 * The audit log on PostgreSQL: the same rows and chain hash as SQLite (audit.ts computes both), appended by any
 * number of replicas. The chain head lives in `audit_head`, locked FOR UPDATE inside each append's
 * transaction: appends from every replica queue on that row, each links to the committed row before it, ids
 * are consecutive (no fork, no gap), and the row is committed before `append` resolves (before the answer).
 *
 * With the audit key (shared by every replica, kept outside the database: audit-key.ts `sharedAuditKey`), each
 * row carries `mac = HMAC(key, hash)` and the head row `HMAC(key, id, hash)`, and each process keeps a signed
 * head file of the last row it appended (its local monotonic anchor). An append that finds the head row behind
 * the highest row this process has seen refuses (the log was cut or rolled back under it): fail closed.
 *
 * With a journal attached (`audit_journal`, off by default on PostgreSQL: pg/journal.ts), a decision is answered
 * once its row is in the replica's journal, with its `ref` as audit id, and rows are committed in groups
 * (`commitGroup`); reads in this process commit the pending rows first.
 */
export class PgAuditLog implements AuditApi {
  private readonly anchor: HeadAnchor | undefined;
  /** The highest row this process appended or found in its signed head file: the head never goes below it. */
  private highest = 0;
  /** First row known to carry a MAC (for the signed head); set at open and by the first keyed append. */
  private keyedSince: number | undefined;
  private journal: PgJournal | undefined;

  constructor(
    private readonly db: PgDb,
    private readonly key?: AuditKey,
  ) {
    this.anchor = key?.headFile
      ? new HeadAnchor(key, (last) => ({ ...last, rows: last.id, keyedSince: Math.min(this.keyedSince ?? last.id, last.id), ts: 0 }))
      : undefined;
  }

  /**
   * Checks the store against the key and this process's signed head file before the first append: a log with
   * keyed rows and no key, a head file that is not the key's, or a log that ends before the row the head file
   * names, refuses to open (the proxy does not start on a log it cannot extend honestly).
   */
  async open(): Promise<void> {
    // A failure (the database down, a cut log) is not remembered: the next append checks again.
    this.opened ??= this.check().catch((err: unknown) => {
      this.opened = undefined;
      throw err;
    });
    return this.opened;
  }

  private opened: Promise<void> | undefined;

  private async check(): Promise<void> {
    const first = await this.db.query('SELECT id FROM audit WHERE mac IS NOT NULL ORDER BY id LIMIT 1');
    const firstKeyed = first.rows[0] === undefined ? undefined : Number(first.rows[0].id);
    if (!this.key) {
      if (firstKeyed !== undefined) {
        throw new StoreError(
          'store_audit_key_missing',
          `the audit log of ${this.db.location} was written with an audit key, and none was given: set QUADGUARD_AUDIT_KEY_FILE (or QUADGUARD_AUDIT_KEY) to the key every replica shares`,
        );
      }
      return;
    }
    this.keyedSince = firstKeyed;
    const signed = readHead(this.key);
    if (signed.state === 'invalid') {
      throw new StoreError('store_audit_tampered', `the signed head ${this.key.headFile}: ${signed.reason}; run \`quadguard audit verify\``);
    }
    if (signed.state !== 'ok') return;
    const { head } = signed;
    const r = await this.db.query('SELECT hash FROM audit WHERE id = $1', [head.id]);
    const held = r.rows[0]?.hash as string | undefined;
    // A head naming a row retention dropped is checked by `audit verify` (the anchor's MAC and the rows' count).
    const pruned = held === undefined && head.id <= ((await this.retention(this.db.query.bind(this.db)))?.id ?? 0);
    if (held !== head.hash && !pruned) {
      throw new StoreError(
        'store_audit_tampered',
        `the audit log of ${this.db.location} ${held === undefined ? 'no longer has' : 'has another hash at'} row ${head.id}, which this replica's signed head ${this.key.headFile} recorded: it was truncated or rewritten; run \`quadguard audit verify\``,
      );
    }
    this.highest = head.id;
    this.keyedSince = Math.min(this.keyedSince ?? head.keyedSince, head.keyedSince);
  }

  /** Writes this process's signed head file now (at close). */
  flushHead(): void {
    this.anchor?.flush();
  }

  private noted(id: number, hash: string): void {
    if (id > this.highest) this.highest = id;
    if (this.key && this.keyedSince === undefined) this.keyedSince = id;
    this.anchor?.note(id, hash);
  }

  /**
   * Records a decision's entry. With a journal: one write of its line, and its `ref` returned (its id and hash come
   * with the group commit). Without: committed before it returns.
   */
  async append(entry: AuditEntry): Promise<{ id?: number; auditId: string; hash?: string }> {
    const { fields, rec } = auditFields(entry);
    if (this.journal) {
      await this.journal.room();
      const line = journalLine(fields, this.journal.nextRef(), rec, this.key);
      this.journal.write(line);
      return { auditId: line.fields.ref };
    }
    try {
      // The first append of a process that opened the store read-only (CLI admin commands) checks it too.
      await this.open();
      // Two round trips: BEGIN with the lock of the head, then the row, its interaction, the new head and COMMIT.
      const { id, hash } = await this.db.lockedWrite(LOCK_HEAD, (head) => {
        const row = this.rowAfter(head.rows[0], fields, rec);
        return { sql: inline(INSERT, row.params), value: row };
      });
      this.noted(id, hash);
      return { id, auditId: formatAuditId(id, hash), hash };
    } catch (err) {
      if (err instanceof StoreError && (err.code === 'store_unavailable' || err.code.startsWith('store_audit_'))) throw err;
      throw new StoreError('store_write_failed', `cannot append to the audit log: ${(err as Error).message}`, { cause: err });
    }
  }

  /**
   * Appends inside a transaction the caller holds (an admin change and its row commit together). The rows this
   * process journaled and has not committed go in first, as on SQLite: they were answered before. They stay pending
   * (the caller's transaction may roll back); the next group commit skips them by `ref` if it committed.
   */
  async appendIn(q: Query, entry: AuditEntry): Promise<{ id: number; hash: string }> {
    const { fields, rec } = auditFields(entry);
    await this.open();
    const locked = (await q(LOCK_HEAD)).rows[0] as { id: number; hash: string } | undefined;
    const pending = this.journal?.uncommitted ?? [];
    if (pending.length === 0) return this.insertAfter(q, locked, fields, rec);
    const held = await q(`SELECT ref FROM audit WHERE ref IN (${pending.map((j) => literal(j.fields.ref)).join(', ')})`);
    const { sql, head } = this.linkAfter(locked, pending, new Set(held.rows.map((r) => r.ref as string)), false);
    if (sql.length > 0) await q(sql.join('; '));
    const out = this.rowAfter(head, fields, rec);
    await q(INSERT, out.params);
    if (locked && Number(locked.id) > this.highest) this.highest = Number(locked.id);
    return { id: out.id, hash: out.hash };
  }

  /**
   * Journals this replica's decisions from now on (pg/journal.ts). `onFault`: a group commit failed (it is tried
   * again; the rows stay in the journal).
   */
  attachJournal(journal: AuditJournal, onFault: (err: unknown, pending: number) => void): void {
    this.journal = new PgJournal(journal, (rows) => this.commitGroup(rows, false), onFault);
  }

  /** Commits what the journal holds and closes it (removed when nothing is left, else left to replay). */
  async closeJournal(): Promise<void> {
    const j = this.journal;
    this.journal = undefined;
    await j?.close();
  }

  /** Rows of a dead process's journal: commits those the store lacks, in groups; refuses lines whose MAC is not the key's. */
  async replay(rows: JournalRow[]): Promise<{ inserted: number; forged: number }> {
    let inserted = 0;
    let forged = 0;
    for (let i = 0; i < rows.length; ) {
      const group = firstGroup(rows.slice(i, i + GROUP_MAX));
      i += group.length;
      const done = await this.commitGroup(group, true);
      inserted += done.inserted;
      forged += done.forged;
    }
    return { inserted, forged };
  }

  /**
   * One group of journal rows in one transaction, in two round trips: BEGIN with the lock of the chain head and the
   * `ref`s the store already holds (a group whose COMMIT was cut before its answer came back, a replay), then every
   * other row linked after the head as it is now (id, `prev_hash`, hash, row MAC: `rowAfter`, as a direct append)
   * with COMMIT. `checkMacs`: lines from a file of another process are refused unless their MAC is the key's.
   */
  private async commitGroup(rows: JournalRow[], checkMacs: boolean): Promise<{ inserted: number; forged: number }> {
    await this.open();
    const refs = rows.map((j) => literal(j.fields.ref)).join(', ');
    try {
      const done = await this.db.lockedWrite(`${LOCK_HEAD}; SELECT ref FROM audit WHERE ref IN (${refs})`, (first, all) => {
        const held = new Set(all[1]!.rows.map((r) => r.ref as string));
        const linked = this.linkAfter(first.rows[0], rows, held, checkMacs);
        return { sql: `${linked.sql.length > 0 ? linked.sql.join('; ') : 'SELECT 1'}`, value: linked };
      });
      if (done.sql.length > 0 && done.head) this.noted(done.head.id, done.head.hash);
      return { inserted: done.sql.length, forged: done.forged };
    } catch (err) {
      if (err instanceof StoreError && (err.code === 'store_unavailable' || err.code.startsWith('store_audit_'))) throw err;
      throw new StoreError('store_write_failed', `cannot commit the audit journal's rows: ${(err as Error).message}`, { cause: err });
    }
  }

  /** The INSERTs of `rows` not in `held`, each linked after the one before from `head`; the new head. */
  private linkAfter(
    head: { id: number; hash: string } | undefined,
    rows: readonly JournalRow[],
    held: Set<string>,
    checkMacs: boolean,
  ): { sql: string[]; head: { id: number; hash: string } | undefined; forged: number } {
    const sql: string[] = [];
    let forged = 0;
    for (const j of rows) {
      if (held.has(j.fields.ref)) continue;
      if (checkMacs && !journalLineOk(this.key, j)) {
        forged++;
        continue;
      }
      // A line twice in one file is one row.
      held.add(j.fields.ref);
      const row = this.rowAfter(head, j.fields, j.rec);
      sql.push(inline(INSERT, row.params));
      head = { id: row.id, hash: row.hash };
    }
    return { sql, head, forged };
  }

  /** Before a read: this process's journaled rows are committed first (a failure leaves them pending, and the read goes on). */
  private async settled(): Promise<void> {
    await this.journal?.flush().catch(() => {});
  }

  private async insertAfter(
    q: Query,
    head: { id: number; hash: string } | undefined,
    fields: ReturnType<typeof auditFields>['fields'],
    rec: InteractionRecord | undefined,
  ): Promise<{ id: number; hash: string }> {
    const { id, hash, params } = this.rowAfter(head, fields, rec);
    await q(INSERT, params);
    // Inside the caller's transaction, which may still roll back: only the head it locked is known to be committed.
    if (head && Number(head.id) > this.highest) this.highest = Number(head.id);
    return { id, hash };
  }

  /** The next row after `head`: its id, chain hash and the INSERT's parameters. */
  private rowAfter(
    head: { id: number; hash: string } | undefined,
    fields: ReturnType<typeof auditFields>['fields'],
    rec: InteractionRecord | undefined,
  ): { id: number; hash: string; params: unknown[] } {
    if (!head) throw new StoreError('store_corrupt_row', 'the audit_head row is missing: the store was tampered with; run `quadguard audit verify`');
    if (Number(head.id) < this.highest) {
      throw new StoreError(
        'store_audit_tampered',
        `the audit log of ${this.db.location} ends at row ${head.id}, but this replica already saw row ${this.highest}: it was truncated or rolled back; every decision is denied until an operator runs \`quadguard audit verify\``,
      );
    }
    const id = Number(head.id) + 1;
    // Copied key by key (audit-row.ts `linkedRow`), its hash and MAC set once known: rowHash leaves both out.
    const row = linkedRow(fields, id, head.hash, '', null);
    const hash = rowHash(row);
    row.hash = hash;
    row.mac = this.key ? rowMac(this.key, hash) : null;
    const body = rec?.body == null ? null : storedBody(rec.body, row.session);
    const params = storedValues(row, body, row.policy_hash);
    params.push(rec !== undefined, body, rec?.masked ? 1 : 0, rec?.truncated ? 1 : 0, this.key ? dbHeadMac(this.key, id, hash) : null, body !== null ? bodyDigest(body) : null);
    return { id, hash, params };
  }

  watch(h: AuditWatchHandlers): AuditWatcher {
    return this.db.watch(h);
  }

  async get(id: number | string): Promise<AuditRow | undefined> {
    await this.settled();
    const ref = typeof id === 'number' ? { id } : parseAuditId(id);
    if (!ref) throw new StoreError('store_invalid_id', `not an audit id: ${String(id)} (expected 42 or 42-3fa9c1d2)`);
    const r = 'ref' in ref ? await this.db.query(auditSelect('WHERE a.ref = $1'), [ref.ref]) : await this.db.query(auditSelect('WHERE a.id = $1'), [ref.id]);
    if (r.rows.length === 0) return undefined;
    const row = parseRow(readStored(r.rows[0]));
    if ('hashPrefix' in ref && ref.hashPrefix && !row.hash.startsWith(ref.hashPrefix)) return undefined;
    return row;
  }

  async interaction(id: number): Promise<InteractionRecord | undefined> {
    await this.settled();
    const r = await this.db.query(interactionSelect('$1'), [id]);
    const x = r.rows[0] as { body: string | null; masked: number; truncated: number; session: string } | undefined;
    return x === undefined ? undefined : { body: x.body === null ? null : recordedBody(x.body, x.session), masked: x.masked === 1, truncated: x.truncated === 1 };
  }

  async tail(n: number): Promise<AuditRow[]> {
    await this.settled();
    const r = await this.db.query(`SELECT * FROM (${auditSelect('ORDER BY a.id DESC LIMIT $1')}) t ORDER BY id`, [Math.max(0, Math.floor(n))]);
    return r.rows.map((raw) => parseRow(readStored(raw)));
  }

  async *iterate(fromId = 1): AsyncGenerator<AuditRow> {
    await this.settled();
    for await (const raw of this.rawPages(fromId - 1)) yield parseRow(raw);
  }

  async verify(options: VerifyOptions = {}): Promise<VerifyResult> {
    await this.settled();
    const warnings: string[] = [];
    const t = await this.db.query(
      "SELECT count(*)::int AS n FROM pg_trigger WHERE tgname IN ('audit_no_update') AND tgrelid = 'audit'::regclass",
    );
    if (t.rows[0].n < 1) warnings.push('the append-only trigger of the audit table is missing (someone dropped it)');
    const first = await this.db.query('SELECT id FROM audit WHERE mac IS NOT NULL ORDER BY id LIMIT 1');
    const count = await this.db.query('SELECT count(*)::int AS n FROM audit');
    const walk = new ChainWalker(warnings, {
      key: this.key,
      ...(options.heads ? { extraHeads: options.heads } : {}),
      // Each replica keeps its head file where it runs: a verifier elsewhere may have none (it says so).
      ownHeadRequired: false,
      macsRequired: true,
      firstKeyed: first.rows[0] === undefined ? undefined : Number(first.rows[0].id),
      rowCount: count.rows[0].n,
      anchor: options.anchor,
      retention: await this.retention(this.db.query.bind(this.db)),
    });
    if (walk.early) return walk.early;
    for await (const raw of this.rawPages(walk.lastId)) {
      const bad = walk.push(raw);
      if (bad) return bad;
    }
    const h = await this.db.query('SELECT id, hash, mac FROM audit_head WHERE one');
    const head = h.rows[0] as { id: number; hash: string; mac: string | null } | undefined;
    const done = walk.finish(head === undefined ? walk.lastId + 1 : Number(head.id));
    if (!done.ok || !this.key || !Number.isFinite(walk.keyedSince) || head === undefined) return done;
    // The head row of a keyed log carries the key's MAC: one set back by hand (a cut tail) does not.
    if (head.mac === null || !macEqual(head.mac, dbHeadMac(this.key, Number(head.id), head.hash))) {
      return walk.fail(Number(head.id) + 1, `the chain head row (audit_head, row ${head.id}) does not carry the audit key's MAC: it was set back by hand, so rows after ${head.id} were cut`);
    }
    return done;
  }

  /** The retention anchor, when `prune` dropped rows. */
  private async retention(q: Query): Promise<RetentionAnchor | undefined> {
    const r = await q('SELECT id, hash, dropped, ts, mac FROM audit_anchor WHERE one');
    const a = r.rows[0] as { id: string | number; hash: string; dropped: string | number; ts: string | number; mac: string | null } | undefined;
    return a === undefined ? undefined : { id: Number(a.id), hash: a.hash, dropped: Number(a.dropped), ts: Number(a.ts), mac: a.mac };
  }

  /**
   * Retention, as SQLite's `AuditLog.prune`: one transaction holding the chain head's lock (no append meanwhile) drops
   * the rows written before `before` from the start of the log, their interactions and the bodies no kept row names,
   * and records the anchor. The append-only trigger is disabled inside the transaction only.
   */
  async prune(before: number, exportTo?: (row: AuditRow) => void, limit = Number.POSITIVE_INFINITY): Promise<{ dropped: number; anchor: RetentionAnchor | undefined }> {
    await this.open();
    await this.settled();
    try {
      return await this.db.tx(async (q) => {
        const current = await this.retention(q);
        const firstKept = (await q('SELECT min(id) AS id FROM audit WHERE ts >= $1', [before])).rows[0] as { id: string | null };
        const last = (await q('SELECT max(id) AS id FROM audit')).rows[0] as { id: string | null };
        const due = firstKept.id !== null ? Number(firstKept.id) - 1 : Number(last.id ?? 0);
        const cut = Math.min(due, (current?.id ?? 0) + limit);
        if (cut <= (current?.id ?? 0)) return { dropped: 0, anchor: current };
        if (exportTo) {
          const rows = await q(auditSelect('WHERE a.id > $1 AND a.id <= $2 ORDER BY a.id'), [current?.id ?? 0, cut]);
          for (const raw of rows.rows) exportTo(parseRow(readStored(raw)));
        }
        const hash = ((await q('SELECT hash FROM audit WHERE id = $1', [cut])).rows[0] as { hash: string }).hash;
        const n = Number(((await q('SELECT count(*) AS n FROM audit WHERE id <= $1', [cut])).rows[0] as { n: string }).n);
        const a = { id: cut, hash, dropped: (current?.dropped ?? 0) + n, ts: Date.now() };
        const anchor: RetentionAnchor = { ...a, mac: this.key ? anchorMac(this.key, a) : null };
        await q('ALTER TABLE audit DISABLE TRIGGER audit_no_update');
        await q('ALTER TABLE audit_interaction DISABLE TRIGGER audit_interaction_no_update');
        await q('ALTER TABLE audit_body DISABLE TRIGGER audit_body_no_update');
        await q('DELETE FROM audit_interaction WHERE id <= $1', [cut]);
        await q('DELETE FROM audit WHERE id <= $1', [cut]);
        if (cut === due) await q('DELETE FROM audit_body b WHERE NOT EXISTS (SELECT 1 FROM audit_interaction i WHERE i.body_digest = b.digest)');
        await q('ALTER TABLE audit ENABLE TRIGGER audit_no_update');
        await q('ALTER TABLE audit_interaction ENABLE TRIGGER audit_interaction_no_update');
        await q('ALTER TABLE audit_body ENABLE TRIGGER audit_body_no_update');
        await q(
          'INSERT INTO audit_anchor (one, id, hash, dropped, ts, mac) VALUES (true, $1, $2, $3, $4, $5) ON CONFLICT (one) DO UPDATE SET id = excluded.id, hash = excluded.hash, dropped = excluded.dropped, ts = excluded.ts, mac = excluded.mac',
          [anchor.id, anchor.hash, anchor.dropped, anchor.ts, anchor.mac],
        );
        return { dropped: n, anchor };
      }, LOCK_HEAD);
    } catch (err) {
      if (err instanceof StoreError && err.code === 'store_unavailable') throw err;
      throw new StoreError('store_write_failed', `cannot prune the audit log: ${(err as Error).message}`, { cause: err });
    }
  }

  private async *rawPages(afterId: number): AsyncGenerator<unknown> {
    let after = afterId;
    for (;;) {
      const page = (await this.db.query(auditSelect('WHERE a.id > $1 ORDER BY a.id LIMIT $2'), [after, PAGE])).rows;
      for (const raw of page) yield readStored(raw);
      if (page.length < PAGE) return;
      after = (page[page.length - 1] as { id: number }).id;
    }
  }
}
