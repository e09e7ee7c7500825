import { errorMessage } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/log.js';
import type { Approval } from '../store/approvals.js';
import type { AuditRow } from '../store/audit-schema.js';
import type { AuditWatcher, GuardStore } from '../store/engine.js';
import type { Pin } from '../store/pins.js';
import type { ThreatState } from '../store/state.js';

/**
 * The live feed behind `GET /ui/api/stream`: polls the store and tells subscribers what changed. Polling (not an
 * in-process bus) is deliberate: the standalone `quadguard ui` runs beside a stdio proxy in another process, and
 * SQLite in WAL mode lets it read the rows that process commits; on a PostgreSQL store the audit chain is shared,
 * so the same poll shows the decisions of every replica (a quarter second behind at most, by default). Each tick
 * reads audit rows with `id > cursor`, the agents' threat state, approvals changed since the last tick, and the
 * tools awaiting approval; a tick still running when the next is due is not overlapped.
 *
 * On PostgreSQL the feed also LISTENs for the NOTIFY every audit append sends (`store.audit.watch`, one dedicated
 * connection): a new row of any replica starts a tick at once, and the poll becomes a slow backstop
 * (`listeningPollMs`). When the LISTEN is lost (a backend terminated, the database restarted) the feed logs it and
 * polls at `pollMs` until it listens again.
 */

/** One event of the stream. `decision` carries an audit row and its id (the SSE `id:` used to resume). */
export type LiveEvent =
  | { event: 'decision'; id: number; data: AuditRow }
  | { event: 'agent'; data: ThreatState }
  | { event: 'approval'; data: Approval }
  | { event: 'pin'; data: Pin };

export interface LiveFeedOptions {
  /** Poll interval, ms (default 250); on PostgreSQL, while the LISTEN is lost. */
  pollMs?: number;
  /** Poll interval while new rows are notified (PostgreSQL LISTEN), ms: a backstop (default: 5000, or pollMs if longer). */
  listeningPollMs?: number;
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
  /** A notification came while a tick ran: run another when it ends. */
  private again = false;
  private readonly listeningPollMs: number;
  private watcher: AuditWatcher | undefined;
  private listening = false;

  constructor(private readonly store: GuardStore, opts: LiveFeedOptions = {}) {
    this.pollMs = Math.max(20, opts.pollMs ?? 250);
    this.listeningPollMs = Math.max(this.pollMs, opts.listeningPollMs ?? 5000);
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
    if (!this.timer) this.schedule();
    this.watcher ??= this.store.audit.watch?.({ onRow: () => this.wake(), onState: (on, why) => this.listenState(on, why) });
    queueMicrotask(() => void this.deliverRows().catch(() => {}));
    return () => {
      this.subs.delete(sub);
      if (this.subs.size === 0) this.stop();
    };
  }

  /** Whether new rows arrive by notification now (PostgreSQL LISTEN), rather than by the poll alone. */
  get notified(): boolean {
    return this.listening;
  }

  /** Stops polling and listening, and drops every subscriber. */
  close(): void {
    this.subs.clear();
    this.stop();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.watcher?.close();
    this.watcher = undefined;
    this.listening = false;
  }

  /** (Re)starts the poll at the interval the listening state asks for. */
  private schedule(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = setInterval(() => void this.tick(), this.listening ? this.listeningPollMs : this.pollMs);
    this.timer.unref?.();
  }

  private listenState(on: boolean, why?: string): void {
    if (this.subs.size === 0) return;
    this.listening = on;
    if (on) this.log.info({ backstopMs: this.listeningPollMs }, 'live view follows new audit rows by LISTEN/NOTIFY');
    else this.log.warn({ err: why, pollMs: this.pollMs }, 'live view lost its LISTEN connection: polling until it is back');
    this.schedule();
    // Rows committed while nobody listened were not notified: catch up now.
    this.wake();
  }

  /** Runs a tick now, or right after the one running. */
  private wake(): void {
    if (this.busy) this.again = true;
    else void this.tick();
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
    if (this.again && this.subs.size > 0) {
      this.again = false;
      void this.tick();
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
