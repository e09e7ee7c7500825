import type { PinApi } from '../engine.js';
import { notFound, pinApprovalEntry, pinToApprove, PinSchema, PinStatusSchema, type ObserveResult, type Pin, type PinStatus } from '../pins.js';
import { toolDefinitionHash, toolDefinitionJson, type ToolDefinition } from '../tool-hash.js';
import type { PgDb, Query } from './connection.js';
import type { PgAuditLog } from './audit.js';

/** Serialises pin changes across replicas (two replicas seeing the same new tool pin it once). */
const LOCK = "SELECT pg_advisory_xact_lock(hashtext('quadguard:pins'))";

/** Tool pins on PostgreSQL: the same rules as pins.ts; an approval on one replica is seen by the next re-check of every replica. */
export class PgPinStore implements PinApi {
  constructor(private readonly db: PgDb, private readonly audit: PgAuditLog) {}

  async getPin(server: string, tool: string): Promise<Pin | undefined> {
    return pinOf(this.db.query, server, tool);
  }

  async pinTool(server: string, tool: string, hash: string, definition: string): Promise<Pin> {
    return this.db.tx(async (q) => insert(q, server, tool, hash, definition), LOCK);
  }

  async markChanged(server: string, tool: string, newHash: string, newDefinition: string): Promise<Pin> {
    return this.db.tx(async (q) => change(q, server, tool, newHash, newDefinition), LOCK);
  }

  async approvePin(server: string, tool: string, hash?: string, by = 'unknown', source = 'cli'): Promise<Pin> {
    return this.db.tx(async (q) => {
      const pin = pinToApprove(await pinOf(q, server, tool), server, tool, hash);
      if (pin.status === 'approved') return pin;
      await q(
        `UPDATE pins SET status = 'approved', hash = coalesce(pending_hash, hash), definition = coalesce(pending_definition, definition),
           pending_hash = NULL, pending_definition = NULL, updated_at = $1, approved_by = $2 WHERE server = $3 AND tool = $4`,
        [Date.now(), by, server, tool],
      );
      await this.audit.appendIn(q, pinApprovalEntry(pin, by, source));
      return (await pinOf(q, server, tool))!;
    }, LOCK);
  }

  async listPins(status?: PinStatus): Promise<Pin[]> {
    const r = status === undefined
      ? await this.db.query('SELECT * FROM pins ORDER BY server COLLATE "C", tool COLLATE "C"')
      : await this.db.query('SELECT * FROM pins WHERE status = $1 ORDER BY server COLLATE "C", tool COLLATE "C"', [PinStatusSchema.parse(status)]);
    return r.rows.map((raw) => PinSchema.parse(raw));
  }

  /** The proxy re-checks every listed tool each second: an unchanged, approved pin costs one read and no lock. */
  async observeTool(server: string, tool: ToolDefinition): Promise<ObserveResult> {
    const hash = toolDefinitionHash(tool);
    const seen = await this.getPin(server, tool.name);
    if (seen && seen.hash === hash && seen.status === 'approved') return { status: 'unchanged', pin: seen };
    if (seen && seen.status === 'pending' && seen.pendingHash === hash) return { status: 'changed', pin: seen };
    return this.db.tx(async (q) => {
      const pin = await pinOf(q, server, tool.name);
      if (!pin) return { status: 'pinned', pin: await insert(q, server, tool.name, hash, toolDefinitionJson(tool)) };
      if (pin.hash === hash) {
        if (pin.status === 'approved') return { status: 'unchanged', pin };
        await q(`UPDATE pins SET status = 'approved', pending_hash = NULL, pending_definition = NULL, updated_at = $1 WHERE server = $2 AND tool = $3`, [Date.now(), server, tool.name]);
        return { status: 'unchanged', pin: (await pinOf(q, server, tool.name))! };
      }
      if (pin.pendingHash === hash) return { status: 'changed', pin };
      return { status: 'changed', pin: await change(q, server, tool.name, hash, toolDefinitionJson(tool)) };
    }, LOCK);
  }
}

async function pinOf(q: Query, server: string, tool: string): Promise<Pin | undefined> {
  const r = await q('SELECT * FROM pins WHERE server = $1 AND tool = $2', [server, tool]);
  return r.rows.length === 0 ? undefined : PinSchema.parse(r.rows[0]);
}

async function insert(q: Query, server: string, tool: string, hash: string, definition: string): Promise<Pin> {
  const now = Date.now();
  await q(
    `INSERT INTO pins (server, tool, status, hash, definition, first_seen, updated_at) VALUES ($1, $2, 'approved', $3, $4, $5, $5)
     ON CONFLICT (server, tool) DO NOTHING`,
    [server, tool, hash, definition, now],
  );
  return (await pinOf(q, server, tool))!;
}

async function change(q: Query, server: string, tool: string, newHash: string, newDefinition: string): Promise<Pin> {
  const r = await q(
    `UPDATE pins SET status = 'pending', pending_hash = $1, pending_definition = $2, updated_at = $3 WHERE server = $4 AND tool = $5 RETURNING *`,
    [newHash, newDefinition, Date.now(), server, tool],
  );
  if (r.rows.length === 0) throw notFound(server, tool);
  return PinSchema.parse(r.rows[0]);
}
