import { once } from 'node:events';
import { StoreError } from '../../core/errors.js';
import { auditFields, ChainWalker, parseRow, rowHash, type VerifyResult } from '../audit.js';
import { formatAuditId, parseAuditId, type AuditEntry, type AuditRow } from '../audit-schema.js';
import type { InteractionRecord } from '../audit-interaction.js';
import type { AuditApi } from '../engine.js';
import { inline, type PgDb, type Query } from './connection.js';

const PAGE = 500;
const COLUMNS = [
  'id', 'ts', 'agent', 'session', 'kind', 'server', 'tool', 'uri', 'recipient', 'digest', 'preview', 'size', 'decision',
  'rules', 'flagged', 'witness', 'threat', 'rationale', 'elapsed_ms', 'policy_hash', 'source', 'llm', 'prev_hash', 'hash',
] as const;
const PLACEHOLDERS = COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
const N = COLUMNS.length;
/**
 * One statement writes the row, its interaction and the new chain head (a data-modifying CTE), so an append is
 * two round trips: BEGIN + lock of the head, then this with COMMIT.
 */
const INSERT = `WITH a AS (INSERT INTO audit (${COLUMNS.join(', ')}) VALUES (${PLACEHOLDERS}) RETURNING id),
  i AS (INSERT INTO audit_interaction (id, body, masked, truncated) SELECT id, $${N + 2}::text, $${N + 3}::int, $${N + 4}::int FROM a WHERE $${N + 1}::boolean),
  h AS (UPDATE audit_head SET id = $1::bigint, hash = $${N}::text WHERE one)
  SELECT id FROM a`;
const LOCK_HEAD = 'SELECT id, hash FROM audit_head WHERE one FOR UPDATE';

/**
 * The audit log on PostgreSQL: the same rows and chain hash as SQLite (audit.ts computes both), appended by any
 * number of replicas. The chain head lives in `audit_head`, locked FOR UPDATE inside each append's
 * transaction: appends from every replica queue on that row, each links to the committed row before it, ids
 * are consecutive (no fork, no gap), and the row is committed before `append` resolves (before the answer).
 */
export class PgAuditLog implements AuditApi {
  constructor(private readonly db: PgDb) {}

  async append(entry: AuditEntry): Promise<{ id: number; auditId: string; hash: string }> {
    const { fields, rec } = auditFields(entry);
    try {
      // Two round trips: BEGIN with the lock of the head, then the row, its interaction, the new head and COMMIT.
      const { id, hash } = await this.db.lockedWrite(LOCK_HEAD, (head) => {
        const row = this.rowAfter(head.rows[0], fields, rec);
        return { sql: inline(INSERT, row.params), value: row };
      });
      return { id, auditId: formatAuditId(id, hash), hash };
    } catch (err) {
      if (err instanceof StoreError && err.code === 'store_unavailable') throw err;
      throw new StoreError('store_write_failed', `cannot append to the audit log: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Appends inside a transaction the caller holds (an admin change and its row commit together). */
  async appendIn(q: Query, entry: AuditEntry): Promise<{ id: number; hash: string }> {
    const { fields, rec } = auditFields(entry);
    const head = await q(LOCK_HEAD);
    return this.insertAfter(q, head.rows[0], fields, rec);
  }

  private async insertAfter(
    q: Query,
    head: { id: number; hash: string } | undefined,
    fields: ReturnType<typeof auditFields>['fields'],
    rec: InteractionRecord | undefined,
  ): Promise<{ id: number; hash: string }> {
    const { id, hash, params } = this.rowAfter(head, fields, rec);
    await q(INSERT, params);
    return { id, hash };
  }

  /** The next row after `head`: its id, chain hash and the INSERT's parameters. */
  private rowAfter(
    head: { id: number; hash: string } | undefined,
    fields: ReturnType<typeof auditFields>['fields'],
    rec: InteractionRecord | undefined,
  ): { id: number; hash: string; params: unknown[] } {
    if (!head) throw new StoreError('store_corrupt_row', 'the audit_head row is missing: the store was tampered with; run `quadguard audit verify`');
    const id = Number(head.id) + 1;
    const row = { id, ...fields, prev_hash: head.hash };
    const hash = rowHash(row);
    const full: Record<string, unknown> = { ...row, hash };
    const params: unknown[] = COLUMNS.map((c) => full[c] ?? null);
    params.push(rec !== undefined, rec?.body ?? null, rec?.masked ? 1 : 0, rec?.truncated ? 1 : 0);
    return { id, hash, params };
  }

  async get(id: number | string): Promise<AuditRow | undefined> {
    const ref = typeof id === 'number' ? { id } : parseAuditId(id);
    if (!ref) throw new StoreError('store_invalid_id', `not an audit id: ${String(id)} (expected 42 or 42-3fa9c1d2)`);
    const r = await this.db.query('SELECT * FROM audit WHERE id = $1', [ref.id]);
    if (r.rows.length === 0) return undefined;
    const row = parseRow(r.rows[0]);
    if ('hashPrefix' in ref && ref.hashPrefix && !row.hash.startsWith(ref.hashPrefix)) return undefined;
    return row;
  }

  async interaction(id: number): Promise<InteractionRecord | undefined> {
    const r = await this.db.query('SELECT body, masked, truncated FROM audit_interaction WHERE id = $1', [id]);
    const x = r.rows[0] as { body: string | null; masked: number; truncated: number } | undefined;
    return x === undefined ? undefined : { body: x.body, masked: x.masked === 1, truncated: x.truncated === 1 };
  }

  async tail(n: number): Promise<AuditRow[]> {
    const r = await this.db.query('SELECT * FROM (SELECT * FROM audit ORDER BY id DESC LIMIT $1) t ORDER BY id', [Math.max(0, Math.floor(n))]);
    return r.rows.map(parseRow);
  }

  async *iterate(fromId = 1): AsyncGenerator<AuditRow> {
    for await (const raw of this.rawPages(fromId - 1)) yield parseRow(raw);
  }

  async verify(options: { anchor?: { id: number; hash: string } } = {}): Promise<VerifyResult> {
    const warnings: string[] = [];
    const t = await this.db.query(
      "SELECT count(*)::int AS n FROM pg_trigger WHERE tgname IN ('audit_no_update') AND tgrelid = 'audit'::regclass",
    );
    if (t.rows[0].n < 1) warnings.push('the append-only trigger of the audit table is missing (someone dropped it)');
    // The keyed chain (HMAC with a key outside the database, audit-key.ts) is SQLite's so far: say what was checked.
    warnings.push('no audit key with a PostgreSQL store: only the unkeyed hash chain was checked (a full rewrite would pass)');
    const walk = new ChainWalker(warnings);
    for await (const raw of this.rawPages(0)) {
      const bad = walk.push(raw);
      if (bad) return bad;
    }
    const head = await this.db.query('SELECT id FROM audit_head WHERE one');
    const seq = head.rows.length === 0 ? walk.lastId + 1 : Number(head.rows[0].id);
    const anchor = options.anchor;
    let held: string | undefined;
    if (anchor && anchor.id <= walk.lastId) held = (await this.db.query('SELECT hash FROM audit WHERE id = $1', [anchor.id])).rows[0]?.hash;
    return walk.finish(seq, anchor, held);
  }

  async exportNdjson(out: NodeJS.WritableStream, fromId = 1): Promise<number> {
    let n = 0;
    for await (const row of this.iterate(fromId)) {
      if (!out.write(`${JSON.stringify(row)}\n`)) await once(out, 'drain');
      n++;
    }
    return n;
  }

  private async *rawPages(afterId: number): AsyncGenerator<unknown> {
    let after = afterId;
    for (;;) {
      const page = (await this.db.query('SELECT * FROM audit WHERE id > $1 ORDER BY id LIMIT $2', [after, PAGE])).rows;
      for (const raw of page) yield raw;
      if (page.length < PAGE) return;
      after = (page[page.length - 1] as { id: number }).id;
    }
  }
}
