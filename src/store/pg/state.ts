import { z } from 'zod';
import { StoreError } from '../../core/errors.js';
import { TruthSchema, type Truth } from '../../core/types.js';
import type { StateApi } from '../engine.js';
import { agentRow, BURST_ADD, burstBuckets, checkThreat, releaseEntry, type ThreatState } from '../state.js';
import type { PgDb } from './connection.js';
import type { PgAuditLog } from './audit.js';

const PG_BURST_ADD = BURST_ADD.replace(/\$agent/g, '$1').replace(/\$bucket/g, '$2').replace(/\$cutoff/g, '$3');
const StickyRowSchema = z.object({ name: z.string(), value: TruthSchema });
const UPSERT_STICKY = `INSERT INTO sticky (session, name, value, updated_at)
  SELECT $1, n, v, $4 FROM unnest($2::text[], $3::text[]) AS t(n, v)
  ON CONFLICT (session, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`;

/**
 * Γ, τ and quarantine on PostgreSQL, shared by every replica. Nothing is cached: the pipeline reads the agent
 * and the session on each interaction, so a quarantine or release committed by any replica (or the CLI)
 * decides the next interaction everywhere.
 */
export class PgStateStore implements StateApi {
  constructor(private readonly db: PgDb, private readonly audit: PgAuditLog) {}

  async getSticky(session: string): Promise<Map<string, Truth>> {
    const out = new Map<string, Truth>();
    for (const raw of (await this.db.query('SELECT name, value FROM sticky WHERE session = $1', [session])).rows) {
      const r = StickyRowSchema.parse(raw);
      out.set(r.name, r.value);
    }
    return out;
  }

  async setSticky(session: string, name: string, value: Truth): Promise<void> {
    await this.setStickyMany(session, [[name, value]]);
  }

  /** One statement: all or none. */
  async setStickyMany(session: string, values: Iterable<[string, Truth]>): Promise<void> {
    const names: string[] = [];
    const vals: string[] = [];
    for (const [n, v] of values) {
      names.push(n);
      vals.push(TruthSchema.parse(v));
    }
    if (names.length === 0) return;
    await this.db.query(UPSERT_STICKY, [session, names, vals, Date.now()]);
  }

  async resetSession(session: string): Promise<void> {
    await this.db.query('DELETE FROM sticky WHERE session = $1', [session]);
  }

  async getThreat(agent: string): Promise<ThreatState> {
    const r = await this.db.query('SELECT * FROM agents WHERE agent = $1', [agent]);
    return r.rows.length === 0 ? { agent, tau: 0, level: 0, quarantined: false, updatedAt: null } : agentRow(r.rows[0]);
  }

  async setThreat(agent: string, tau: number, level: number): Promise<ThreatState> {
    checkThreat(tau, level);
    const r = await this.db.query(
      `INSERT INTO agents (agent, tau, level, quarantined, updated_at) VALUES ($1, $2, $3, 0, $4)
       ON CONFLICT (agent) DO UPDATE SET tau = excluded.tau, level = excluded.level, updated_at = excluded.updated_at RETURNING *`,
      [agent, tau, level, Date.now()],
    );
    return agentRow(r.rows[0]);
  }

  /**
   * Read-modify-write. First optimistic: read, compute, write only if τ, level and quarantine are still what was
   * read (compare-and-set); the common case (nothing changed) is one read and no write. If another replica wrote
   * in between, once more under a row lock (SELECT … FOR UPDATE), which cannot lose.
   */
  async updateThreat(agent: string, update: (current: ThreatState) => { tau: number; level: number }, known?: ThreatState): Promise<ThreatState> {
    const current = known ?? (await this.getThreat(agent));
    const next = update(current);
    if (next.tau === current.tau && next.level === current.level) return current;
    checkThreat(next.tau, next.level);
    const now = Date.now();
    const r = current.updatedAt === null
      ? await this.db.query(
        `INSERT INTO agents (agent, tau, level, quarantined, updated_at) VALUES ($1, $2, $3, 0, $4)
         ON CONFLICT (agent) DO NOTHING RETURNING *`,
        [agent, next.tau, next.level, now],
      )
      : await this.db.query(
        'UPDATE agents SET tau = $2, level = $3, updated_at = $4 WHERE agent = $1 AND tau = $5 AND level = $6 AND quarantined = $7 RETURNING *',
        [agent, next.tau, next.level, now, current.tau, current.level, current.quarantined ? 1 : 0],
      );
    if (r.rows.length > 0) return agentRow(r.rows[0]);
    return this.db.tx(async (q) => {
      await q('INSERT INTO agents (agent, tau, level, quarantined, updated_at) VALUES ($1, 0, 0, 0, $2) ON CONFLICT (agent) DO NOTHING', [agent, Date.now()]);
      const locked = agentRow((await q('SELECT * FROM agents WHERE agent = $1 FOR UPDATE', [agent])).rows[0]);
      const again = update(locked);
      if (again.tau === locked.tau && again.level === locked.level) return locked;
      checkThreat(again.tau, again.level);
      const w = await q('UPDATE agents SET tau = $2, level = $3, updated_at = $4 WHERE agent = $1 RETURNING *', [agent, again.tau, again.level, Date.now()]);
      return agentRow(w.rows[0]);
    });
  }

  /** The shared burst window (StateApi.countRequest): one statement, the upsert of the current bucket. */
  async countRequest(agent: string, now: number, windowMs: number, count: boolean): Promise<number> {
    const { bucket, cutoff } = burstBuckets(now, windowMs);
    if (!count) {
      const r = await this.db.query('SELECT coalesce(sum(n), 0)::int AS rate FROM burst WHERE agent = $1 AND bucket > $2', [agent, cutoff]);
      return Number(r.rows[0].rate);
    }
    const r = await this.db.query(PG_BURST_ADD, [agent, bucket, cutoff]);
    const row = r.rows[0] as { n: number; rate: string | number };
    // A new bucket: sweep this agent's buckets that left the window (once per bucket, off the answer's path).
    if (row.n === 1) void this.db.query('DELETE FROM burst WHERE agent = $1 AND bucket <= $2', [agent, cutoff]).catch(() => {});
    return Number(row.rate);
  }

  async quarantine(agent: string, reason: string, source = 'watcher'): Promise<ThreatState> {
    return this.db.tx(async (q) => {
      const r = await q(
        `INSERT INTO agents (agent, tau, level, quarantined, reason, updated_at) VALUES ($1, 0, 0, 1, $2, $3)
         ON CONFLICT (agent) DO UPDATE SET quarantined = 1, reason = excluded.reason, updated_at = excluded.updated_at RETURNING *`,
        [agent, reason, Date.now()],
      );
      await this.audit.appendIn(q, { agent, kind: 'admin', tool: 'quarantine', decision: 'deny', rationale: reason, source });
      return agentRow(r.rows[0]);
    });
  }

  async release(agent: string, by = 'unknown', source = 'cli'): Promise<ThreatState> {
    return this.db.tx(async (q) => {
      const found = await q('SELECT * FROM agents WHERE agent = $1 FOR UPDATE', [agent]);
      if (found.rows.length === 0) throw new StoreError('store_agent_not_found', `no agent ${agent} in the store (see \`quadguard agents list\`)`);
      const before = agentRow(found.rows[0]);
      const r = await q('UPDATE agents SET tau = 0, level = 0, quarantined = 0, reason = NULL, updated_at = $2 WHERE agent = $1 RETURNING *', [agent, Date.now()]);
      // A clean slate: the requests that made the burst do not quarantine the agent again the moment it is released.
      await q('DELETE FROM burst WHERE agent = $1', [agent]);
      await this.audit.appendIn(q, releaseEntry(before, by, source));
      return agentRow(r.rows[0]);
    });
  }

  async listAgents(): Promise<ThreatState[]> {
    return (await this.db.query('SELECT * FROM agents ORDER BY agent COLLATE "C"')).rows.map(agentRow);
  }
}
