import type Database from 'better-sqlite3';
import { z } from 'zod';
import { StoreError } from '../core/errors.js';
import type { AuditLog } from './audit.js';
import type { AuditEntry } from './audit-schema.js';
import { toolDefinitionHash, toolDefinitionJson, type ToolDefinition } from './tool-hash.js';

export const PinStatusSchema = z.enum(['approved', 'pending']);
export type PinStatus = z.infer<typeof PinStatusSchema>;

/** A pinned downstream tool: the approved definition, and a changed one waiting for approval when `pending`. */
export const PinSchema = z
  .object({
    server: z.string(),
    tool: z.string(),
    status: PinStatusSchema,
    hash: z.string(),
    definition: z.string(),
    pending_hash: z.string().nullable(),
    pending_definition: z.string().nullable(),
    first_seen: z.number().int(),
    updated_at: z.number().int(),
    approved_by: z.string().nullable(),
  })
  .transform((r) => ({
    server: r.server,
    tool: r.tool,
    status: r.status,
    /** Hash and canonical JSON of the approved definition. */
    hash: r.hash,
    definition: r.definition,
    /** The changed definition, while `status` is `pending`. */
    pendingHash: r.pending_hash ?? undefined,
    pendingDefinition: r.pending_definition ?? undefined,
    firstSeen: r.first_seen,
    updatedAt: r.updated_at,
    approvedBy: r.approved_by ?? undefined,
  }));
export type Pin = z.output<typeof PinSchema>;

/** What `observeTool` found: a first sight (now pinned), the pinned definition, or a change (now pending). */
export type ObserveResult = { status: 'pinned' | 'unchanged' | 'changed'; pin: Pin };

export interface PinApi {
  getPin(server: string, tool: string): Promise<Pin | undefined>;
  pinTool(server: string, tool: string, hash: string, definition: string): Promise<Pin>;
  markChanged(server: string, tool: string, newHash: string, newDefinition: string): Promise<Pin>;
  approvePin(server: string, tool: string, hash?: string, by?: string, source?: string): Promise<Pin>;
  listPins(status?: PinStatus): Promise<Pin[]>;
  observeTool(server: string, tool: ToolDefinition): Promise<ObserveResult>;
}

/**
 * Tool pins: the first definition seen of each downstream tool is approved; a different one later (rug pull,
 * tool poisoning) is recorded as pending and must be approved before the tool is usable again.
 */
export class PinStore implements PinApi {
  private readonly getStmt: Database.Statement<[string, string], unknown>;
  private readonly listAll: Database.Statement<[], unknown>;
  private readonly listStatus: Database.Statement<[string], unknown>;
  private readonly insert: Database.Statement;
  private readonly change: Database.Statement;
  private readonly approve: Database.Statement;
  private readonly clearPending: Database.Statement;
  private readonly run: (fn: () => unknown) => unknown;

  constructor(db: Database.Database, private readonly audit: AuditLog) {
    this.getStmt = db.prepare('SELECT * FROM pins WHERE server = ? AND tool = ?');
    this.listAll = db.prepare('SELECT * FROM pins ORDER BY server, tool');
    this.listStatus = db.prepare('SELECT * FROM pins WHERE status = ? ORDER BY server, tool');
    this.insert = db.prepare(
      `INSERT INTO pins (server, tool, status, hash, definition, first_seen, updated_at) VALUES (?, ?, 'approved', ?, ?, ?, ?)
       ON CONFLICT (server, tool) DO NOTHING`,
    );
    this.change = db.prepare(
      `UPDATE pins SET status = 'pending', pending_hash = ?, pending_definition = ?, updated_at = ? WHERE server = ? AND tool = ?`,
    );
    this.approve = db.prepare(
      `UPDATE pins SET status = 'approved', hash = coalesce(pending_hash, hash), definition = coalesce(pending_definition, definition),
         pending_hash = NULL, pending_definition = NULL, updated_at = ?, approved_by = ? WHERE server = ? AND tool = ?`,
    );
    this.clearPending = db.prepare(
      `UPDATE pins SET status = 'approved', pending_hash = NULL, pending_definition = NULL, updated_at = ? WHERE server = ? AND tool = ?`,
    );
    const tx = db.transaction((fn: () => unknown) => fn());
    this.run = (fn) => tx.immediate(fn);
  }

  /** The pin of a tool, if it has one. */
  async getPin(server: string, tool: string): Promise<Pin | undefined> {
    return this.pinOf(server, tool);
  }

  /** Pins a tool seen for the first time, as approved; an existing pin is left untouched and returned. */
  async pinTool(server: string, tool: string, hash: string, definition: string): Promise<Pin> {
    return this.pinFirst(server, tool, hash, definition);
  }

  /** Records a changed definition: the pin becomes `pending` until approved; the approved one is kept for diffing. */
  async markChanged(server: string, tool: string, newHash: string, newDefinition: string): Promise<Pin> {
    return this.pinChanged(server, tool, newHash, newDefinition);
  }

  /**
   * Approves the pending definition (audited). With `hash`, approves only if it is the definition the reviewer
   * saw (`store_pin_hash_mismatch` otherwise: it changed again since). Approving an approved pin is a no-op.
   */
  async approvePin(server: string, tool: string, hash?: string, by = 'unknown', source = 'cli'): Promise<Pin> {
    return this.run(() => {
      const pin = pinToApprove(this.pinOf(server, tool), server, tool, hash);
      if (pin.status === 'approved') return pin;
      this.approve.run(Date.now(), by, server, tool);
      this.audit.appendNow(pinApprovalEntry(pin, by, source));
      return this.pinOf(server, tool)!;
    }) as Pin;
  }

  /** Every pin, or those with one status, by server and tool. */
  async listPins(status?: PinStatus): Promise<Pin[]> {
    const rows = status === undefined ? this.listAll.all() : this.listStatus.all(PinStatusSchema.parse(status));
    return rows.map((raw) => PinSchema.parse(raw));
  }

  /**
   * The proxy's one call per listed tool: hashes the definition and pins it (first sight), recognises it, or
   * marks it changed. A tool whose server reverted to the approved definition is approved again (what is
   * served is what was approved). Callers block a tool while its pin is `pending`.
   */
  async observeTool(server: string, tool: ToolDefinition): Promise<ObserveResult> {
    const hash = toolDefinitionHash(tool);
    return this.run(() => {
      const pin = this.pinOf(server, tool.name);
      if (!pin) return { status: 'pinned', pin: this.pinFirst(server, tool.name, hash, toolDefinitionJson(tool)) };
      if (pin.hash === hash) {
        if (pin.status === 'approved') return { status: 'unchanged', pin };
        this.clearPending.run(Date.now(), server, tool.name);
        return { status: 'unchanged', pin: this.pinOf(server, tool.name)! };
      }
      if (pin.pendingHash === hash) return { status: 'changed', pin };
      return { status: 'changed', pin: this.pinChanged(server, tool.name, hash, toolDefinitionJson(tool)) };
    }) as ObserveResult;
  }

  // The statements themselves, synchronous: the methods above and their transactions share them.

  private pinOf(server: string, tool: string): Pin | undefined {
    const raw = this.getStmt.get(server, tool);
    return raw === undefined ? undefined : PinSchema.parse(raw);
  }

  private pinFirst(server: string, tool: string, hash: string, definition: string): Pin {
    const now = Date.now();
    this.insert.run(server, tool, hash, definition, now, now);
    return this.pinOf(server, tool)!;
  }

  private pinChanged(server: string, tool: string, newHash: string, newDefinition: string): Pin {
    const r = this.change.run(newHash, newDefinition, Date.now(), server, tool);
    if (r.changes === 0) throw notFound(server, tool);
    return this.pinOf(server, tool)!;
  }
}

/**
 * The pin an approval is about: throws when there is none, or when `hash` (a prefix the reviewer saw) names another
 * definition than the one it would approve (the pending one, or the approved one when nothing is pending). Shared
 * by both engines.
 */
export function pinToApprove(pin: Pin | undefined, server: string, tool: string, hash: string | undefined): Pin {
  if (!pin) throw notFound(server, tool);
  const current = pin.status === 'approved' ? pin.hash : pin.pendingHash!;
  if (hash !== undefined && !current.startsWith(hash)) throw mismatch(server, tool, hash, current);
  return pin;
}

/** The audit entry of an approved pin change: shared by both engines. */
export function pinApprovalEntry(pin: Pin, by: string, source: string): AuditEntry {
  return {
    agent: by,
    kind: 'admin',
    server: pin.server,
    tool: 'approve_pin',
    decision: 'allow',
    rationale: `approved changed definition of ${pin.server}__${pin.tool}: ${pin.hash.slice(0, 12)} → ${pin.pendingHash!.slice(0, 12)}`,
    source,
  };
}

export function notFound(server: string, tool: string): StoreError {
  return new StoreError('store_pin_not_found', `no pin for ${server}__${tool} (see \`quadguard tools list\`)`);
}

export function mismatch(server: string, tool: string, given: string, actual: string): StoreError {
  return new StoreError(
    'store_pin_hash_mismatch',
    `${server}__${tool} is now ${actual.slice(0, 12)}, not ${given}: the definition changed since it was reviewed; review it again`,
  );
}
