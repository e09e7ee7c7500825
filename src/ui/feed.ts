import { errorMessage } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/log.js';
import type { Approval } from '../store/approvals.js';
import type { AuditRow } from '../store/audit-schema.js';
import type { GuardStore } from '../store/engine.js';
import type { Pin } from '../store/pins.js';
import type { ThreatState } from '../store/state.js';

/**
 * The live feed behind `GET /ui/api/stream`: polls the store and tells subscribers what changed. Polling (not an
 * in-process bus) is deliberate: the standalone `quadguard ui` runs beside a stdio proxy in another process, and
 * SQLite in WAL mode lets it read the rows that process commits; on a PostgreSQL store the audit chain is shared,
 * so the same poll shows the decisions of every replica (a quarter second behind at most, by default). Each tick
 * reads audit rows with `id > cursor`, the agents' threat state, approvals changed since the last tick, and the
 * tools awaiting approval; a tick still running when the next is due is not overlapped.
 */

/** One event of the stream. `decision` carries an audit row and its id (the SSE `id:` used to resume). */
export type LiveEvent =
  | { event: 'decision'; id: number; data: AuditRow }
  | { event: 'agent'; data: ThreatState }
  | { event: 'approval'; data: Approval }
  | { event: 'pin'; data: Pin };

export interface LiveFeedOptions {
  /** Poll interval, ms (default 250). */
  pollMs?: number;
  /** Rows sent per tick per subscriber at most (default 500); the rest follow on the next ticks. */
  batch?: number;
  logger?: Logger;
}

interface Subscriber {
  cursor: number;
  send: (e: LiveEvent) => void;
}

/** Polls one store for all subscribers; runs only while someone listens. */
export class LiveFeed {
  private readonly subs = new Set<Subscriber>();
  private readonly pollMs: number;
  private readonly batch: number;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private agents = new Map<string, string>();
  private pins = new Map<string, string>();
  private approvalsSeen = new Set<string>();
  private approvalsSince = 0;
  private lastExpiry = 0;
  /** The baseline of the current listening period, read before the first diff. */
  private ready: Promise<void> = Promise.resolve();
  private busy = false;

  constructor(private readonly store: GuardStore, opts: LiveFeedOptions = {}) {
    this.pollMs = Math.max(20, opts.pollMs ?? 250);
    this.batch = Math.max(1, opts.batch ?? 500);
    this.log = (opts.logger ?? silentLogger()).child({ mod: 'ui' });
  }

  /** Highest audit row id now (0 for an empty log). */
  async lastId(): Promise<number> {
    return (await this.store.audit.tail(1))[0]?.id ?? 0;
  }

  /**
   * Subscribes from audit row `afterId` on (rows after it arrive as `decision` events, oldest first), plus every
   * later change of agents, approvals and pending tools. Returns the unsubscribe function.
   */
  subscribe(afterId: number, send: (e: LiveEvent) => void): () => void {
    if (this.subs.size === 0) this.ready = this.baseline().catch((err: unknown) => this.log.warn({ err: errorMessage(err) }, 'live view baseline failed'));
    const sub: Subscriber = { cursor: Math.max(0, afterId), send };
    this.subs.add(sub);
    this.timer ??= setInterval(() => void this.tick(), this.pollMs);
    this.timer.unref?.();
    queueMicrotask(() => void this.deliverRows().catch(() => {}));
    return () => {
      this.subs.delete(sub);
      if (this.subs.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  /** Stops polling and drops every subscriber. */
  close(): void {
    this.subs.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Remembers the current agents, pins and approvals, so only later changes become events. */
  private async baseline(): Promise<void> {
    const [agents, pins, recent] = await Promise.all([
      this.store.state.listAgents(),
      this.store.pins.listPins('pending'),
      this.store.approvals.list({ limit: 1000 }),
    ]);
    this.agents = new Map(agents.map((a) => [a.agent, JSON.stringify(a)]));
    this.pins = new Map(pins.map((p) => [pinKey(p), JSON.stringify(p)]));
    this.approvalsSince = Math.max(0, ...recent.map((a) => a.updatedAt));
    this.approvalsSeen = new Set(recent.map(approvalKey));
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.ready;
      await this.deliverRows();
      await this.diffAgents();
      await this.diffApprovals();
      await this.diffPins();
    } catch (err) {
      // A busy file or an unreachable database is retried on the next tick; the stream stays open.
      this.log.warn({ err: errorMessage(err) }, 'live view poll failed');
    } finally {
      this.busy = false;
    }
  }

  private emit(e: LiveEvent): void {
    for (const s of this.subs) this.safeSend(s, e);
  }

  private safeSend(s: Subscriber, e: LiveEvent): void {
    try {
      s.send(e);
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'live view subscriber failed; dropping it');
      this.subs.delete(s);
    }
  }

  private async deliverRows(): Promise<void> {
    if (this.subs.size === 0) return;
    const from = Math.min(...[...this.subs].map((s) => s.cursor));
    const rows: AuditRow[] = [];
    for await (const row of this.store.audit.iterate(from + 1)) {
      rows.push(row);
      if (rows.length >= this.batch * 2) break;
    }
    for (const s of this.subs) {
      let n = 0;
      for (const row of rows) {
        if (row.id <= s.cursor) continue;
        if (n++ >= this.batch) break;
        s.cursor = row.id;
        this.safeSend(s, { event: 'decision', id: row.id, data: row });
      }
    }
  }

  private async diffAgents(): Promise<void> {
    for (const a of await this.store.state.listAgents()) {
      const json = JSON.stringify(a);
      if (this.agents.get(a.agent) === json) continue;
      this.agents.set(a.agent, json);
      this.emit({ event: 'agent', data: a });
    }
  }

  private async diffApprovals(): Promise<void> {
    const now = Date.now();
    if (now - this.lastExpiry >= 1000) {
      this.lastExpiry = now;
      await this.store.approvals.expireDue(now);
    }
    // Same-millisecond changes: re-read the last millisecond and skip what was already sent.
    for (const a of await this.store.approvals.changedAfter(this.approvalsSince - 1)) {
      const key = approvalKey(a);
      this.approvalsSince = Math.max(this.approvalsSince, a.updatedAt);
      if (this.approvalsSeen.has(key)) continue;
      this.approvalsSeen.add(key);
      this.emit({ event: 'approval', data: a });
    }
    if (this.approvalsSeen.size > 10_000) this.approvalsSeen = new Set([...this.approvalsSeen].slice(-1000));
  }

  private async diffPins(): Promise<void> {
    const now = new Map((await this.store.pins.listPins('pending')).map((p) => [pinKey(p), p]));
    for (const [key, p] of now) {
      const json = JSON.stringify(p);
      if (this.pins.get(key) === json) continue;
      this.pins.set(key, json);
      this.emit({ event: 'pin', data: p });
    }
    for (const key of [...this.pins.keys()]) {
      if (now.has(key)) continue;
      this.pins.delete(key);
      const [server, tool] = key.split('\u0000') as [string, string];
      const p = await this.store.pins.getPin(server, tool);
      if (p) this.emit({ event: 'pin', data: p });
    }
  }
}

function pinKey(p: Pin): string {
  return `${p.server}\u0000${p.tool}`;
}

function approvalKey(a: Approval): string {
  return `${a.id}:${a.status}:${a.updatedAt}`;
}
