import { randomBytes } from 'node:crypto';
import type { FlowSource } from '../../core/flow.js';
import { inReadOrder, matchesFromRows, originOf, printList, printsDigest, READ_COLUMNS, readRow, SWEEP_BUDGET, type FlowMatch, type FlowStore } from '../flow.js';
import type { PgDb } from './connection.js';

/** Expired reads a sweep looks at per call. */
const SWEEP_READS = 64;

/**
 * The data-flow store on PostgreSQL (docs/data-flow.md): the same tables and rules as the SQLite one
 * (src/store/flow.ts), shared by every replica, so a read through one replica is recognised when the data leaves
 * through another. The key is created once (the first replica to ask wins; the others read it).
 */
export class PgFlowStore implements FlowStore {
  private cachedKey: Buffer | undefined;

  constructor(private readonly db: PgDb) {}

  async key(): Promise<Buffer> {
    if (this.cachedKey) return this.cachedKey;
    await this.db.query('INSERT INTO flow_key (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [randomBytes(32)]);
    const r = await this.db.query('SELECT key FROM flow_key WHERE id = 1');
    this.cachedKey = Buffer.from(r.rows[0].key as Buffer);
    return this.cachedKey;
  }

  async recordRead(agent: string, source: FlowSource, fingerprints: readonly string[], expires: number, digest?: string): Promise<void> {
    const list = printList(fingerprints);
    await this.db.tx(async (q) => {
      // Content already held (even expired, not yet swept: its fingerprints are the same) takes the newest read's
      // name and expiry. Two replicas recording the same content meet on the key; the fingerprints are the same.
      const r = await q(
        `INSERT INTO flow_reads (${READ_COLUMNS}, prints) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT (agent, origin, digest) DO UPDATE SET source = excluded.source, session = excluded.session, kind = excluded.kind,
           server = excluded.server, tool = excluded.tool, uri = excluded.uri, at = excluded.at, expires = excluded.expires RETURNING id`,
        [...readRow(agent, source, digest ?? printsDigest(fingerprints), expires), list],
      );
      // One statement for every fingerprint of the read (unnest of an array parameter).
      await q('INSERT INTO flow_prints (hash, read) SELECT h, $1 FROM unnest($2::text[]) AS h ON CONFLICT DO NOTHING', [
        r.rows[0].id,
        list === '' ? [] : list.split(','),
      ]);
    });
  }

  async refresh(agent: string, source: FlowSource, digest: string, expires: number, now: number): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE flow_reads SET source = $1, session = $2, kind = $3, server = $4, tool = $5, uri = $6, at = $7, expires = $8
       WHERE agent = $9 AND origin = $10 AND digest = $11 AND expires > $12`,
      [source.id, source.session, source.kind, source.server ?? null, source.tool ?? null, source.uri ?? null, source.at, expires, agent, originOf(source), digest, now],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async match(agent: string, fingerprints: readonly string[], now: number): Promise<FlowMatch[]> {
    const unique = [...new Set(fingerprints)];
    if (unique.length === 0) return [];
    const r = await this.db.query(
      `SELECT r.source AS id, r.session, r.kind, r.server, r.tool, r.uri, r.at, p.hash FROM flow_prints p JOIN flow_reads r ON r.id = p.read
       WHERE p.hash = ANY($1::text[]) AND r.agent = $2 AND r.expires > $3`,
      [unique, agent, now],
    );
    return inReadOrder(matchesFromRows(r.rows));
  }

  async sweep(now: number, budget = SWEEP_BUDGET): Promise<number> {
    return this.db.tx(async (q) => {
      // Rows another replica is sweeping (or refreshing) are skipped, not waited for.
      const expired = await q('SELECT id, prints FROM flow_reads WHERE expires <= $1 ORDER BY expires LIMIT $2 FOR UPDATE SKIP LOCKED', [now, SWEEP_READS]);
      const ids: unknown[] = [];
      const reads: unknown[] = [];
      const hashes: string[] = [];
      let left = budget;
      for (const row of expired.rows as Array<{ id: unknown; prints: string }>) {
        const prints = row.prints === '' ? [] : row.prints.split(',');
        if (ids.length > 0 && prints.length > left) break;
        ids.push(row.id);
        for (const h of prints) {
          reads.push(row.id);
          hashes.push(h);
        }
        left -= prints.length;
      }
      if (ids.length === 0) return 0;
      await q('DELETE FROM flow_prints p USING unnest($1::text[], $2::bigint[]) AS d(hash, read) WHERE p.hash = d.hash AND p.read = d.read', [hashes, reads]);
      await q('DELETE FROM flow_reads WHERE id = ANY($1::bigint[])', [ids]);
      return ids.length;
    });
  }
}
