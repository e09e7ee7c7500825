import { once } from 'node:events';
import type Database from 'better-sqlite3';
import { StoreError } from '../core/errors.js';
import { formatAuditId, parseAuditId, type AuditEntry, type AuditRow } from './audit-schema.js';
import { bodyDigest, type InteractionRecord } from './audit-interaction.js';
import { HeadAnchor, rowMac, type AuditKey } from './audit-key.js';
import { ChainWalker, GENESIS_HASH, type VerifyOptions, type VerifyResult } from './audit-chain.js';
import { AUDIT_COLUMNS, auditFields, parseRow, rowHash, rowValues, type AuditFields } from './audit-row.js';

export * from './audit-schema.js';
export { ChainWalker, GENESIS_HASH, type ChainContext, type VerifyOptions, type VerifyResult } from './audit-chain.js';
export { AUDIT_COLUMNS, auditFields, parseRow, rowHash } from './audit-row.js';

const PAGE = 500;

/** How often, at most, the signed head is written to its file (ms); it is also written at close. */
const HEAD_INTERVAL_MS = 1000;

/**
 * The append-only, hash-chained decisions log. Every row carries `hash = sha256(prev_hash ‖ canonical row JSON)`
 * where the row JSON includes its own id, so editing, deleting or renumbering a row breaks the chain.
 *
 * Durability choice: no batching. Each `append` is one synchronous IMMEDIATE transaction (~10–30 µs with WAL and
 * `synchronous=NORMAL`), so a denial is committed — it survives a crash of the proxy — before the denial is
 * returned, the row id is known to the caller (`Decision.auditId`), and a second process (the CLI releasing an
 * agent) can append to the same chain safely because the chain head is read inside the write lock.
 */
export class AuditLog {
  private readonly head: Database.Statement<[], { id: number | null; hash: string | null; seq: number | null }>;
  private readonly insert: Database.Statement;
  private readonly byId: Database.Statement<[number], unknown>;
  private readonly page: Database.Statement<[number, number], unknown>;
  private readonly tailStmt: Database.Statement<[number], unknown>;
  private readonly insertInteraction: Database.Statement;
  private readonly insertBody: Database.Statement;
  private readonly interactionById: Database.Statement<[number], { body: string | null; masked: number; truncated: number }>;
  private readonly appendTx: (row: AuditFields, rec?: InteractionRecord) => { id: number; hash: string };
  private readonly firstKeyed: Database.Statement<[], { id: number }>;
  private readonly count: Database.Statement<[], { n: number }>;
  private readonly anchor: HeadAnchor | undefined;

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
    this.insert = db.prepare(`INSERT INTO audit (${AUDIT_COLUMNS.join(', ')}) VALUES (${AUDIT_COLUMNS.map(() => '?').join(', ')})`);
    this.firstKeyed = db.prepare('SELECT id FROM audit WHERE mac IS NOT NULL ORDER BY id LIMIT 1');
    this.count = db.prepare('SELECT count(*) AS n FROM audit');
    this.anchor = key?.headFile
      ? new HeadAnchor(key, (last) => ({ ...last, rows: this.count.get()?.n ?? 0, keyedSince: this.firstKeyed.get()?.id ?? last.id, ts: 0 }), HEAD_INTERVAL_MS)
      : undefined;
    this.byId = db.prepare('SELECT * FROM audit WHERE id = ?');
    this.page = db.prepare('SELECT * FROM audit WHERE id > ? ORDER BY id LIMIT ?');
    this.tailStmt = db.prepare('SELECT * FROM (SELECT * FROM audit ORDER BY id DESC LIMIT ?) ORDER BY id');
    this.insertInteraction = db.prepare('INSERT INTO audit_interaction (id, body, masked, truncated, body_digest) VALUES (?, NULL, ?, ?, ?)');
    this.insertBody = db.prepare('INSERT OR IGNORE INTO audit_body (digest, body) VALUES (?, ?)');
    this.interactionById = db.prepare(
      'SELECT coalesce(i.body, b.body) AS body, i.masked, i.truncated FROM audit_interaction i LEFT JOIN audit_body b ON b.digest = i.body_digest WHERE i.id = ?',
    );
    const tx = db.transaction((fields: AuditFields, rec?: InteractionRecord) => {
      const head = this.head.get();
      // The next id follows the highest id ever used, so a deleted tail shows up as a gap.
      const id = Math.max(head?.id ?? 0, head?.seq ?? 0) + 1;
      const prev = head?.hash ?? GENESIS_HASH;
      const row = { id, ...fields, prev_hash: prev };
      const hash = rowHash(row);
      this.insert.run(rowValues({ ...row, llm: fields.llm ?? null, hash, mac: this.key ? rowMac(this.key, hash) : null }));
      if (rec) {
        const digest = rec.body !== null ? bodyDigest(rec.body) : null;
        if (digest !== null) this.insertBody.run(digest, rec.body);
        this.insertInteraction.run(id, rec.masked ? 1 : 0, rec.truncated ? 1 : 0, digest);
      }
      return { id, hash };
    });
    this.appendTx = (row, rec) => tx.immediate(row, rec);
  }

  /** Records one entry; returns its id, stable string id and chain hash. Throws `store_invalid_entry` on a bad entry. */
  append(entry: AuditEntry): { id: number; auditId: string; hash: string } {
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
  get(id: number | string): AuditRow | undefined {
    const ref = typeof id === 'number' ? { id } : parseAuditId(id);
    if (!ref) throw new StoreError('store_invalid_id', `not an audit id: ${String(id)} (expected 42 or 42-3fa9c1d2)`);
    const raw = this.byId.get(ref.id);
    if (raw === undefined) return undefined;
    const row = parseRow(raw);
    if ('hashPrefix' in ref && ref.hashPrefix && !row.hash.startsWith(ref.hashPrefix)) return undefined;
    return row;
  }

  /**
   * The masked, capped interaction recorded with row `id` (see audit-interaction.ts); undefined for admin rows and
   * rows written before the store kept interactions. Not covered by the hash chain: the chain's `digest` is of the
   * unmasked payload, which the store never keeps.
   */
  interaction(id: number): InteractionRecord | undefined {
    const r = this.interactionById.get(id);
    return r === undefined ? undefined : { body: r.body, masked: r.masked === 1, truncated: r.truncated === 1 };
  }

  /** The last `n` rows, oldest first. */
  tail(n: number): AuditRow[] {
    return this.tailStmt.all(Math.max(0, Math.floor(n))).map(parseRow);
  }

  /** Every row with id ≥ `fromId`, in id order, read in pages so the connection is never held between steps. */
  *iterate(fromId = 1): Generator<AuditRow> {
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
  verify(options: VerifyOptions = {}): VerifyResult {
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
    });
    if (walk.early) return walk.early;
    for (const raw of this.rawPages(0)) {
      const bad = walk.push(raw);
      if (bad) return bad;
    }
    return walk.finish(this.head.get()?.seq ?? 0);
  }

  /** Writes every row as one JSON line, respecting back-pressure; resolves with the number of rows written. */
  async exportNdjson(out: NodeJS.WritableStream, fromId = 1): Promise<number> {
    let n = 0;
    for (const row of this.iterate(fromId)) {
      if (!out.write(`${JSON.stringify(row)}\n`)) await once(out, 'drain');
      n++;
    }
    return n;
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
      for (const raw of page) yield raw;
      if (page.length < PAGE) return;
      after = (page[page.length - 1] as { id: number }).id;
    }
  }
}

