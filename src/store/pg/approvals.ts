import { randomBytes } from 'node:crypto';
import { StoreError } from '../../core/errors.js';
import {
  APPROVAL_ID,
  approvalAuditEntry,
  ApprovalSchema,
  ApprovalStatusSchema,
  describeApproval as describe,
  PREVIEW_CAP,
  type Approval,
  type ApprovalBinding,
  type ApprovalRequest,
  type ApprovalStatus,
} from '../approvals.js';
import type { ApprovalApi } from '../engine.js';
import { maskPrefix } from '../redact.js';
import type { PgDb, Query } from './connection.js';
import type { PgAuditLog } from './audit.js';

/** Serialises approval requests across replicas (one pending row per binding). */
const LOCK = "SELECT pg_advisory_xact_lock(hashtext('quadguard:approvals'))";
const LIVE = `SELECT * FROM approvals WHERE agent = $1 AND kind = $2 AND server IS NOT DISTINCT FROM $3 AND tool IS NOT DISTINCT FROM $4
  AND args_hash = $5 AND status = $6 AND expires > $7 ORDER BY created, id LIMIT 1`;

/**
 * Approvals on PostgreSQL, with the state machine of approvals.ts. Single use across replicas: `consume` is one
 * conditional UPDATE (status must still be `approved`) on a row locked FOR UPDATE SKIP LOCKED, in the same
 * transaction as its audit row, so two replicas retrying the same approved call at once let exactly one through.
 */
export class PgApprovalStore implements ApprovalApi {
  constructor(private readonly db: PgDb, private readonly audit: PgAuditLog) {}

  async get(id: string): Promise<Approval | undefined> {
    return byId(this.db.query, id);
  }

  async request(req: ApprovalRequest): Promise<{ approval: Approval; created: boolean }> {
    const now = req.now ?? Date.now();
    return this.db.tx(async (q) => {
      const existing = await live(q, req, 'pending', now);
      if (existing) return { approval: existing, created: false };
      const id = `ap_${randomBytes(10).toString('hex')}`;
      const r = await q(
        `INSERT INTO approvals (id, created, expires, agent, session, kind, server, tool, args_hash, preview, rules, rationale, status, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'pending', $2) RETURNING *`,
        [id, now, now + req.ttlMs, req.agent, req.session, req.kind, req.server ?? null, req.tool ?? null, req.argsHash,
          req.preview === undefined ? null : maskPrefix(req.preview, PREVIEW_CAP), JSON.stringify(req.rules), maskPrefix(req.rationale, 2000)],
      );
      const approval = ApprovalSchema.parse(r.rows[0]);
      await this.record(q, approval, 'approval_request', 'deny', `held ${describe(approval)} for approval ${id} (rules ${req.rules.join(', ')}); expires ${new Date(approval.expires).toISOString()}`, 'pipeline');
      return { approval, created: true };
    }, LOCK);
  }

  async consume(binding: ApprovalBinding, now = Date.now()): Promise<Approval | undefined> {
    return this.db.tx(async (q) => {
      const r = await q(
        `UPDATE approvals SET status = 'used', updated_at = $8
         WHERE id = (SELECT id FROM approvals WHERE agent = $1 AND kind = $2 AND server IS NOT DISTINCT FROM $3 AND tool IS NOT DISTINCT FROM $4
                     AND args_hash = $5 AND status = $6 AND expires > $7 ORDER BY created, id LIMIT 1 FOR UPDATE SKIP LOCKED)
           AND status = 'approved' RETURNING *`,
        [binding.agent, binding.kind, binding.server ?? null, binding.tool ?? null, binding.argsHash, 'approved', now, now],
      );
      if (r.rows.length === 0) return undefined;
      const used = ApprovalSchema.parse(r.rows[0]);
      await this.record(q, used, 'use_approval', 'allow', `retry of ${describe(used)} let through once by approval ${used.id} (approved by ${used.decidedBy ?? 'unknown'})`, 'pipeline');
      return used;
    });
  }

  async approve(id: string, by: string, source = 'cli', now = Date.now()): Promise<Approval> {
    return this.decide(id, 'approved', by, source, now);
  }

  async deny(id: string, by: string, source = 'cli', now = Date.now()): Promise<Approval> {
    return this.decide(id, 'denied', by, source, now);
  }

  async expireDue(now = Date.now()): Promise<Approval[]> {
    const due = await this.db.query("SELECT 1 FROM approvals WHERE status IN ('pending', 'approved') AND expires <= $1 LIMIT 1", [now]);
    if (due.rows.length === 0) return [];
    return this.db.tx(async (q) => {
      const out: Approval[] = [];
      const before = await q("SELECT * FROM approvals WHERE status IN ('pending', 'approved') AND expires <= $1 ORDER BY created, id FOR UPDATE SKIP LOCKED", [now]);
      for (const raw of before.rows) {
        const a = ApprovalSchema.parse(raw);
        const r = await q("UPDATE approvals SET status = 'expired', updated_at = $2 WHERE id = $1 RETURNING *", [a.id, now]);
        const e = ApprovalSchema.parse(r.rows[0]);
        await this.record(q, e, 'expire_approval', 'deny', `approval ${a.id} of ${describe(a)} expired while ${a.status}`, 'store');
        out.push(e);
      }
      return out;
    });
  }

  async list(opts: { status?: ApprovalStatus; limit?: number; now?: number } = {}): Promise<Approval[]> {
    await this.expireDue(opts.now);
    const limit = Math.max(1, Math.min(opts.limit ?? 500, 10_000));
    const r = opts.status === undefined
      ? await this.db.query('SELECT * FROM approvals ORDER BY created DESC, id DESC LIMIT $1', [limit])
      : await this.db.query('SELECT * FROM approvals WHERE status = $1 ORDER BY created DESC, id DESC LIMIT $2', [ApprovalStatusSchema.parse(opts.status), limit]);
    return r.rows.map((raw) => ApprovalSchema.parse(raw));
  }

  async changedAfter(updatedAt: number): Promise<Approval[]> {
    const r = await this.db.query('SELECT * FROM approvals WHERE updated_at > $1 ORDER BY updated_at, id', [updatedAt]);
    return r.rows.map((raw) => ApprovalSchema.parse(raw));
  }

  private async decide(id: string, status: 'approved' | 'denied', by: string, source: string, now: number): Promise<Approval> {
    if (!APPROVAL_ID.test(id)) throw new StoreError('store_invalid_id', `not an approval id: ${id} (expected ap_ and 20 hex digits)`);
    await this.expireDue(now);
    return this.db.tx(async (q) => {
      const found = await q('SELECT * FROM approvals WHERE id = $1 FOR UPDATE', [id]);
      if (found.rows.length === 0) throw new StoreError('store_approval_not_found', `no approval ${id} (see \`quadguard approvals list\`)`);
      const a = ApprovalSchema.parse(found.rows[0]);
      if (a.status !== 'pending') {
        const when = a.decidedAt ? ` at ${new Date(a.decidedAt).toISOString()}` : '';
        throw new StoreError('store_approval_not_pending', `approval ${id} is ${a.status}${a.decidedBy ? ` (by ${a.decidedBy}${when})` : ''}; only a pending approval can be decided`);
      }
      const r = await q('UPDATE approvals SET status = $2, decided_by = $3, decided_at = $4, updated_at = $4 WHERE id = $1 RETURNING *', [id, status, by, now]);
      const d = ApprovalSchema.parse(r.rows[0]);
      const verb = status === 'approved' ? 'approved' : 'denied';
      const next = status === 'approved' ? `; the next identical call of ${a.agent} passes once, until ${new Date(a.expires).toISOString()}` : '';
      await this.record(q, d, status === 'approved' ? 'approve_call' : 'deny_call', status === 'approved' ? 'allow' : 'deny', `${verb} ${describe(a)} (approval ${id}) by ${by}${next}`, source);
      return d;
    });
  }

  private async record(q: Query, a: Approval, action: string, decision: 'allow' | 'deny', rationale: string, source: string): Promise<void> {
    await this.audit.appendIn(q, approvalAuditEntry(a, action, decision, rationale, source));
  }
}

async function byId(q: Query, id: string): Promise<Approval | undefined> {
  const r = await q('SELECT * FROM approvals WHERE id = $1', [id]);
  return r.rows.length === 0 ? undefined : ApprovalSchema.parse(r.rows[0]);
}

async function live(q: Query, b: ApprovalBinding, status: ApprovalStatus, now: number): Promise<Approval | undefined> {
  const r = await q(LIVE, [b.agent, b.kind, b.server ?? null, b.tool ?? null, b.argsHash, status, now]);
  return r.rows.length === 0 ? undefined : ApprovalSchema.parse(r.rows[0]);
}
