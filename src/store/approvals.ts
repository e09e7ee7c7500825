import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { StoreError } from '../core/errors.js';
import type { AuditEntry, AuditLog } from './audit.js';
import { maskPrefix } from './redact.js';
import { jsonText } from './audit-schema.js';

/**
 * Approvals of held interactions (rules with `effect: approve`). A held call gets one row, bound to the agent,
 * the target (server and tool, or URI, or recipient) and the sha256 of the canonical JSON of its arguments. A
 * person approves or denies it; an approved row lets exactly one identical retry through before it expires.
 *
 *   pending ──approve──► approved ──retry matches──► used
 *      │  └────deny────► denied          │
 *      └──────── expires ──► expired ◄───┘
 *
 * Every transition is one IMMEDIATE transaction that also appends an `admin` audit row, so the audit log tells
 * who let which held call through and when. Other processes (the CLI, the standalone live view) may decide
 * approvals in the same file concurrently: the status checks are inside the write lock.
 */

import { ApprovalStatusSchema, type ApprovalStatus } from '../core/types.js';
export { ApprovalStatusSchema, type ApprovalStatus };

/** Approval ids: `ap_` and 20 hex digits (80 random bits). */
export const APPROVAL_ID = /^ap_[0-9a-f]{20}$/;

export const ApprovalSchema = z
  .object({
    id: z.string(),
    created: z.number().int(),
    expires: z.number().int(),
    agent: z.string(),
    session: z.string(),
    kind: z.string(),
    server: z.string().nullable(),
    tool: z.string().nullable(),
    args_hash: z.string(),
    preview: z.string().nullable(),
    rules: jsonText(z.array(z.string())),
    rationale: z.string(),
    status: ApprovalStatusSchema,
    decided_by: z.string().nullable(),
    decided_at: z.number().int().nullable(),
    updated_at: z.number().int(),
  })
  .transform((r) => ({
    id: r.id,
    created: r.created,
    expires: r.expires,
    agent: r.agent,
    session: r.session,
    kind: r.kind,
    server: r.server,
    /** The tool, the URI of a held resource request, the name of a held prompt request, or the recipient of a held message. */
    tool: r.tool,
    argsHash: r.args_hash,
    /** Masked preview of the held arguments, for the person deciding. */
    preview: r.preview,
    rules: r.rules,
    rationale: r.rationale,
    status: r.status,
    decidedBy: r.decided_by,
    decidedAt: r.decided_at,
    updatedAt: r.updated_at,
  }));
export type Approval = z.output<typeof ApprovalSchema>;

/** What binds an approval: a retry must match every field exactly. */
export interface ApprovalBinding {
  agent: string;
  kind: string;
  server?: string | undefined;
  tool?: string | undefined;
  argsHash: string;
}

/** A new held interaction. */
export interface ApprovalRequest extends ApprovalBinding {
  session: string;
  rules: string[];
  rationale: string;
  /** Preview text of the arguments (masked and capped here). */
  preview?: string;
  ttlMs: number;
  now?: number;
}

export const PREVIEW_CAP = 400;

export interface ApprovalApi {
  get(id: string): Promise<Approval | undefined>;
  request(req: ApprovalRequest): Promise<{ approval: Approval; created: boolean }>;
  consume(binding: ApprovalBinding, now?: number): Promise<Approval | undefined>;
  approve(id: string, by: string, source?: string, now?: number): Promise<Approval>;
  deny(id: string, by: string, source?: string, now?: number): Promise<Approval>;
  expireDue(now?: number): Promise<Approval[]>;
  list(opts?: { status?: ApprovalStatus; limit?: number; now?: number }): Promise<Approval[]>;
  changedAfter(updatedAt: number): Promise<Approval[]>;
}

export class ApprovalStore implements ApprovalApi {
  private readonly byId: Database.Statement<[string], unknown>;
  private readonly insert: Database.Statement;
  private readonly findLive: Database.Statement<[string, string, string | null, string | null, string, string, number], unknown>;
  private readonly setStatus: Database.Statement;
  private readonly due: Database.Statement<[number], unknown>;
  private readonly listAll: Database.Statement<[number], unknown>;
  private readonly listStatus: Database.Statement<[string, number], unknown>;
  private readonly changedSince: Database.Statement<[number], unknown>;
  private readonly run: <R>(fn: () => R) => R;

  constructor(db: Database.Database, private readonly audit: AuditLog) {
    this.byId = db.prepare('SELECT * FROM approvals WHERE id = ?');
    this.insert = db.prepare(
      `INSERT INTO approvals (id, created, expires, agent, session, kind, server, tool, args_hash, preview, rules, rationale, status, updated_at)
       VALUES (@id, @created, @expires, @agent, @session, @kind, @server, @tool, @args_hash, @preview, @rules, @rationale, 'pending', @created)`,
    );
    this.findLive = db.prepare(
      `SELECT * FROM approvals WHERE agent = ? AND kind = ? AND server IS ? AND tool IS ? AND args_hash = ? AND status = ? AND expires > ?
       ORDER BY created, rowid LIMIT 1`,
    );
    this.setStatus = db.prepare('UPDATE approvals SET status = @status, decided_by = coalesce(@by, decided_by), decided_at = coalesce(@at, decided_at), updated_at = @now WHERE id = @id');
    this.due = db.prepare("SELECT * FROM approvals WHERE status IN ('pending', 'approved') AND expires <= ? ORDER BY created, rowid");
    this.listAll = db.prepare('SELECT * FROM approvals ORDER BY created DESC, rowid DESC LIMIT ?');
    this.listStatus = db.prepare('SELECT * FROM approvals WHERE status = ? ORDER BY created DESC, rowid DESC LIMIT ?');
    this.changedSince = db.prepare('SELECT * FROM approvals WHERE updated_at > ? ORDER BY updated_at, id');
    const tx = db.transaction((fn: () => unknown) => fn());
    this.run = <R>(fn: () => R) => tx.immediate(fn) as R;
  }

  /** One approval by id, or undefined. */
  async get(id: string): Promise<Approval | undefined> {
    return this.approvalOf(id);
  }

  /**
   * Records a held interaction as `pending`, or returns the pending, unexpired approval that already holds the
   * same binding (an agent retrying before anyone decided does not pile up requests). Audited on creation.
   */
  async request(req: ApprovalRequest): Promise<{ approval: Approval; created: boolean }> {
    const now = req.now ?? Date.now();
    return this.run(() => {
      const existing = this.live(req, 'pending', now);
      if (existing) return { approval: existing, created: false };
      const id = `ap_${randomBytes(10).toString('hex')}`;
      this.insert.run({
        id,
        created: now,
        expires: now + req.ttlMs,
        agent: req.agent,
        session: req.session,
        kind: req.kind,
        server: req.server ?? null,
        tool: req.tool ?? null,
        args_hash: req.argsHash,
        preview: req.preview === undefined ? null : maskPrefix(req.preview, PREVIEW_CAP),
        rules: JSON.stringify(req.rules),
        rationale: maskPrefix(req.rationale, 2000),
        status: 'pending',
      });
      const approval = this.approvalOf(id)!;
      this.record(approval, 'approval_request', 'deny', `held ${describeApproval(approval)} for approval ${id} (rules ${req.rules.join(', ')}); expires ${new Date(approval.expires).toISOString()}`, 'pipeline');
      return { approval, created: true };
    });
  }

  /**
   * Consumes the approved, unexpired, unused approval of this binding, if there is one: it becomes `used`
   * (single use) and the use is audited. Returns undefined when there is none.
   */
  async consume(binding: ApprovalBinding, now = Date.now()): Promise<Approval | undefined> {
    return this.run(() => {
      const a = this.live(binding, 'approved', now);
      if (!a) return undefined;
      this.setStatus.run({ id: a.id, status: 'used', by: null, at: null, now });
      const used = this.approvalOf(a.id)!;
      this.record(used, 'use_approval', 'allow', `retry of ${describeApproval(used)} let through once by approval ${a.id} (approved by ${a.decidedBy ?? 'unknown'})`, 'pipeline');
      return used;
    });
  }

  /** A person approves a pending approval (audited). Throws unless it is pending and unexpired. */
  async approve(id: string, by: string, source = 'cli', now = Date.now()): Promise<Approval> {
    return this.decide(id, 'approved', by, source, now);
  }

  /** A person denies a pending approval (audited); the held call stays denied and a retry is held again. */
  async deny(id: string, by: string, source = 'cli', now = Date.now()): Promise<Approval> {
    return this.decide(id, 'denied', by, source, now);
  }

  /** Marks every pending or approved approval past its expiry as `expired` (each audited); returns them. */
  async expireDue(now = Date.now()): Promise<Approval[]> {
    return this.expireNow(now);
  }

  /** Newest first; `status` filters. Expired ones are marked first. */
  async list(opts: { status?: ApprovalStatus; limit?: number; now?: number } = {}): Promise<Approval[]> {
    this.expireNow(opts.now ?? Date.now());
    const limit = Math.max(1, Math.min(opts.limit ?? 500, 10_000));
    const rows = opts.status === undefined ? this.listAll.all(limit) : this.listStatus.all(ApprovalStatusSchema.parse(opts.status), limit);
    return rows.map((raw) => ApprovalSchema.parse(raw));
  }

  /** Approvals changed after `updatedAt` (ms), oldest change first: how the live view notices transitions. */
  async changedAfter(updatedAt: number): Promise<Approval[]> {
    return this.changedSince.all(updatedAt).map((raw) => ApprovalSchema.parse(raw));
  }

  // The statements themselves, synchronous: the methods above and their transactions share them.

  private approvalOf(id: string): Approval | undefined {
    const raw = this.byId.get(id);
    return raw === undefined ? undefined : ApprovalSchema.parse(raw);
  }

  private expireNow(now: number): Approval[] {
    // The cheap read first: the live view calls this often, and most calls find nothing to write.
    if (this.due.all(now).length === 0) return [];
    return this.run(() => {
      const out: Approval[] = [];
      for (const raw of this.due.all(now)) {
        const a = ApprovalSchema.parse(raw);
        this.setStatus.run({ id: a.id, status: 'expired', by: null, at: null, now });
        const e = this.approvalOf(a.id)!;
        this.record(e, 'expire_approval', 'deny', `approval ${a.id} of ${describeApproval(a)} expired while ${a.status}`, 'store');
        out.push(e);
      }
      return out;
    });
  }

  private decide(id: string, status: 'approved' | 'denied', by: string, source: string, now: number): Approval {
    if (!APPROVAL_ID.test(id)) throw new StoreError('store_invalid_id', `not an approval id: ${id} (expected ap_ and 20 hex digits)`);
    this.expireNow(now);
    return this.run(() => {
      const a = this.approvalOf(id);
      if (!a) throw new StoreError('store_approval_not_found', `no approval ${id} (see \`quadguard approvals list\`)`);
      if (a.status !== 'pending') {
        const when = a.decidedAt ? ` at ${new Date(a.decidedAt).toISOString()}` : '';
        throw new StoreError('store_approval_not_pending', `approval ${id} is ${a.status}${a.decidedBy ? ` (by ${a.decidedBy}${when})` : ''}; only a pending approval can be decided`);
      }
      this.setStatus.run({ id, status, by, at: now, now });
      const d = this.approvalOf(id)!;
      const verb = status === 'approved' ? 'approved' : 'denied';
      const next = status === 'approved' ? `; the next identical call of ${a.agent} passes once, until ${new Date(a.expires).toISOString()}` : '';
      this.record(d, status === 'approved' ? 'approve_call' : 'deny_call', status === 'approved' ? 'allow' : 'deny', `${verb} ${describeApproval(a)} (approval ${id}) by ${by}${next}`, source);
      return d;
    });
  }

  private live(b: ApprovalBinding, status: ApprovalStatus, now: number): Approval | undefined {
    const raw = this.findLive.get(b.agent, b.kind, b.server ?? null, b.tool ?? null, b.argsHash, status, now);
    return raw === undefined ? undefined : ApprovalSchema.parse(raw);
  }

  private record(a: Approval, action: string, decision: 'allow' | 'deny', rationale: string, source: string): void {
    this.audit.appendNow(approvalAuditEntry(a, action, decision, rationale, source));
  }
}

export function describeApproval(a: Pick<Approval, 'kind' | 'server' | 'tool' | 'argsHash'>): string {
  const target = a.server && a.tool ? `${a.server}__${a.tool}` : (a.tool ?? a.server ?? '-');
  return `${a.kind.replace('_', ' ')} ${target} (arguments sha256 ${a.argsHash.slice(0, 12)})`;
}

/** The audit row of an approval's transition (requested, approved, denied, used, expired), the same on both engines. */
export function approvalAuditEntry(a: Approval, action: string, decision: 'allow' | 'deny', rationale: string, source: string): AuditEntry {
  return {
    agent: a.agent,
    session: a.session,
    kind: 'admin',
    ...(a.server === null ? {} : { server: a.server }),
    tool: action,
    decision,
    rules: a.rules,
    rationale,
    source,
  };
}
