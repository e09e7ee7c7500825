import { randomBytes } from 'node:crypto';
import type { FlowSource } from '../../core/flow.js';
import { matchesFromRows, originOf, type FlowMatch, type FlowStore } from '../flow.js';
import type { PgDb } from './connection.js';


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

  async recordRead(agent: string, source: FlowSource, fingerprints: readonly string[], expires: number): Promise<void> {
    await this.db.tx(async (q) => {
      await q(
        `INSERT INTO flow_sources (id, agent, session, kind, server, tool, uri, at, expires) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (id) DO UPDATE SET agent = excluded.agent, session = excluded.session, kind = excluded.kind, server = excluded.server,
           tool = excluded.tool, uri = excluded.uri, at = excluded.at, expires = excluded.expires`,
        [source.id, agent, source.session, source.kind, source.server ?? null, source.tool ?? null, source.uri ?? null, source.at, expires],
      );
      // One statement for every fingerprint of the read (unnest of an array parameter).
      await q(
        `INSERT INTO flow_fingerprints (agent, hash, origin, source, expires) SELECT $1, h, $2, $3, $4 FROM unnest($5::text[]) AS h
         ON CONFLICT (agent, hash, origin) DO UPDATE SET source = excluded.source, expires = excluded.expires`,
        [agent, originOf(source), source.id, expires, [...new Set(fingerprints)]],
      );
    });
  }

  async match(agent: string, fingerprints: readonly string[], now: number): Promise<FlowMatch[]> {
    const unique = [...new Set(fingerprints)];
    if (unique.length === 0) return [];
    const r = await this.db.query(
      `SELECT s.id, s.session, s.kind, s.server, s.tool, s.uri, s.at, f.hash FROM flow_fingerprints f JOIN flow_sources s ON s.id = f.source
       WHERE f.agent = $1 AND f.expires > $2 AND f.hash = ANY($3::text[])`,
      [agent, now, unique],
    );
    return [...matchesFromRows(r.rows).values()];
  }

  async sweep(now: number): Promise<number> {
    return this.db.tx(async (q) => {
      await q('DELETE FROM flow_fingerprints WHERE expires <= $1', [now]);
      const r = await q('DELETE FROM flow_sources WHERE expires <= $1', [now]);
      return r.rowCount ?? 0;
    });
  }
}
