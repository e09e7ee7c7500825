import type Database from 'better-sqlite3';
import { z } from 'zod';
import { StoreError } from '../core/errors.js';
import { TruthSchema, type Truth } from '../core/types.js';
import type { Logger } from '../core/log.js';
import type { AuditLog } from './audit.js';
import { faultReason, reportStoreFault } from './faults.js';
import type { AuditEntry } from './audit-schema.js';

export { toolDefinitionHash } from './tool-hash.js';

/** An agent's threat state as the threat watcher keeps it: τ ∈ [0,1], its discrete level 0–4, and quarantine. */
export const ThreatStateSchema = z.object({
  agent: z.string(),
  tau: z.number().min(0).max(1),
  level: z.number().int().min(0).max(4),
  quarantined: z.boolean(),
  reason: z.string().optional(),
  /** Milliseconds since the epoch of the last change; null for an agent never seen. */
  updatedAt: z.number().int().nullable(),
});
export type ThreatState = z.infer<typeof ThreatStateSchema>;

const AgentRowSchema = z
  .object({
    agent: z.string(),
    tau: z.number(),
    level: z.number().int(),
    quarantined: z.union([z.literal(0), z.literal(1)]),
    reason: z.string().nullable(),
    updated_at: z.number().int(),
  })
  .transform((r) => ThreatStateSchema.parse({
    agent: r.agent,
    tau: r.tau,
    level: r.level,
    quarantined: r.quarantined === 1,
    ...(r.reason === null ? {} : { reason: r.reason }),
    updatedAt: r.updated_at,
  }));

const StickyRowSchema = z.object({ name: z.string(), value: TruthSchema });

/** An `agents` row (either engine) as a ThreatState. */
export function agentRow(raw: unknown): ThreatState {
  return AgentRowSchema.parse(raw);
}

export interface StateApi {
  getSticky(session: string): Promise<Map<string, Truth>>;
  setSticky(session: string, name: string, value: Truth): Promise<void>;
  setStickyMany(session: string, values: Iterable<[string, Truth]>): Promise<void>;
  resetSession(session: string): Promise<void>;
  getThreat(agent: string): Promise<ThreatState>;
  setThreat(agent: string, tau: number, level: number): Promise<ThreatState>;
  /**
   * Read-modify-write of τ. `update` is synchronous and may be called more than once under contention
   * (PostgreSQL retries a compare-and-set), so it must not count evidence twice for the same state. `known`: the
   * state the caller just read, which spares PostgreSQL a read (a stale one only costs the retry).
   */
  updateThreat(agent: string, update: (current: ThreatState) => { tau: number; level: number }, known?: ThreatState): Promise<ThreatState>;
  /**
   * The threat watcher's burst window, shared by every process on the store: records one request of `agent` at
   * `now` (unless `count` is false) and returns the agent's requests in the window, this one included. PostgreSQL:
   * one statement, atomic under concurrency; SQLite: written behind, other processes see a request up to 250 ms
   * later (`StateStore.countRequest`). Counted in buckets of a tenth of the window (`burstBuckets`): the window is
   * the current bucket and the ones before it back to `now - windowMs` (within one bucket of a sliding window).
   */
  countRequest(agent: string, now: number, windowMs: number, count: boolean): Promise<number>;
  quarantine(agent: string, reason: string, source?: string): Promise<ThreatState>;
  /** `source`: where the release was made, for its audit row (`cli` by default, `ui` from the live view). */
  release(agent: string, by?: string, source?: string): Promise<ThreatState>;
  listAgents(): Promise<ThreatState[]>;
}

/**
 * Guard state that outlives one interaction: Γ (sticky predicate values per session), and per agent the threat
 * score and quarantine, which survive restarts. Every method is one synchronous statement or transaction, so two
 * evaluations of the same agent running concurrently never interleave inside an update; use `updateThreat` for
 * read-modify-write.
 */
export class StateStore implements StateApi {
  private readonly stickyAll: Database.Statement<[string], unknown>;
  private readonly stickyPut: Database.Statement;
  private readonly stickyReset: Database.Statement<[string]>;
  private readonly agentGet: Database.Statement<[string], unknown>;
  private readonly agentAll: Database.Statement<[], unknown>;
  private readonly threatPut: Database.Statement;
  private readonly quarantinePut: Database.Statement;
  private readonly releasePut: Database.Statement;
  private readonly tx: <A extends unknown[], R>(fn: (...args: A) => R) => (...args: A) => R;
  private readonly burstAddMany: Database.Statement<[string, number, number]>;
  /** Requests counted by this process and not written yet: agent → bucket → count, and the cutoff last seen. */
  private readonly burstPending = new Map<string, { buckets: Map<number, number>; cutoff: number }>();
  private burstTimer: NodeJS.Timeout | undefined;
  /** The file's count of an agent's window, read at most every BURST_READ_MS (others flush only every BURST_FLUSH_MS). */
  private readonly burstRead = new Map<string, { cutoff: number; rate: number; at: number }>();
  private readonly burstSum: Database.Statement<[string, number], { rate: number }>;
  private readonly burstSweep: Database.Statement<[string, number]>;
  /** `PRAGMA data_version`: changes exactly when another connection (any process) committed to the file. */
  private readonly dataVersion: Database.Statement<[], number>;
  /**
   * Threat states read from the file, valid while `dataVersion` stays at `threatVersion` (see `getThreat`); this
   * connection's own writes to `agents` (all in this class) drop the agent's entry.
   */
  private readonly threats = new Map<string, ThreatState>();
  private threatVersion: number | undefined;

  constructor(private readonly db: Database.Database, private readonly audit: AuditLog, private readonly log?: Logger) {
    this.stickyAll = db.prepare('SELECT name, value FROM sticky WHERE session = ?');
    this.stickyPut = db.prepare(
      `INSERT INTO sticky (session, name, value, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (session, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
    this.stickyReset = db.prepare('DELETE FROM sticky WHERE session = ?');
    this.agentGet = db.prepare('SELECT * FROM agents WHERE agent = ?');
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.burstAddMany = db.prepare('INSERT INTO burst (agent, bucket, n) VALUES (?, ?, ?) ON CONFLICT (agent, bucket) DO UPDATE SET n = burst.n + excluded.n');
    this.burstSum = db.prepare('SELECT coalesce(sum(n), 0) AS rate FROM burst WHERE agent = ? AND bucket > ?');
    this.burstSweep = db.prepare('DELETE FROM burst WHERE agent = ? AND bucket <= ?');
    this.agentAll = db.prepare('SELECT * FROM agents ORDER BY agent');
    this.threatPut = db.prepare(
      `INSERT INTO agents (agent, tau, level, quarantined, updated_at) VALUES (?, ?, ?, 0, ?)
       ON CONFLICT (agent) DO UPDATE SET tau = excluded.tau, level = excluded.level, updated_at = excluded.updated_at`,
    );
    this.quarantinePut = db.prepare(
      `INSERT INTO agents (agent, tau, level, quarantined, reason, updated_at) VALUES (?, 0, 0, 1, ?, ?)
       ON CONFLICT (agent) DO UPDATE SET quarantined = 1, reason = excluded.reason, updated_at = excluded.updated_at`,
    );
    this.releasePut = db.prepare(
      'UPDATE agents SET tau = 0, level = 0, quarantined = 0, reason = NULL, updated_at = ? WHERE agent = ?',
    );
    const run = db.transaction((fn: () => unknown) => fn());
    this.tx = (fn) => (...args) => run.immediate(() => fn(...args)) as ReturnType<typeof fn>;
  }

  /** Γ of a session: the sticky predicates that have a value (absent ones are simply not there). */
  async getSticky(session: string): Promise<Map<string, Truth>> {
    const out = new Map<string, Truth>();
    for (const raw of this.stickyAll.all(session)) {
      const r = StickyRowSchema.parse(raw);
      out.set(r.name, r.value);
    }
    return out;
  }

  /** Sets one sticky predicate of a session. */
  async setSticky(session: string, name: string, value: Truth): Promise<void> {
    this.stickyPut.run(session, name, TruthSchema.parse(value), Date.now());
  }

  /** Sets several sticky predicates of a session in one transaction (all or none). */
  async setStickyMany(session: string, values: Iterable<[string, Truth]>): Promise<void> {
    const now = Date.now();
    this.tx(() => {
      for (const [name, value] of values) this.stickyPut.run(session, name, TruthSchema.parse(value), now);
    })();
  }

  /** Forgets Γ of a session (session end, or an explicit reset). */
  async resetSession(session: string): Promise<void> {
    this.stickyReset.run(session);
  }

  /**
   * Threat state of an agent; an agent never seen is trusted (τ 0, level 0) with `updatedAt: null`.
   *
   * Served from memory while nothing was committed to the file since it was read: `PRAGMA data_version` (one
   * statement without a table read) changes whenever another connection — another proxy, the CLI releasing an
   * agent, the live view of another process — commits anything, and then every cached state is dropped before
   * this read. This connection's own writes to `agents` are all made here and drop the agent's entry. Inside a
   * transaction (the read-modify-write of `updateThreat`, `quarantine`, `release`) the row is always read.
   */
  async getThreat(agent: string): Promise<ThreatState> {
    return this.threatOf(agent);
  }

  /** `getThreat`, synchronous (inside this class's transactions). */
  private threatOf(agent: string): ThreatState {
    if (this.db.inTransaction) return this.readThreat(agent);
    const version = this.dataVersion.get();
    if (version !== this.threatVersion) {
      this.threats.clear();
      this.threatVersion = version;
    }
    let state = this.threats.get(agent);
    if (state === undefined) {
      state = this.readThreat(agent);
      if (this.threats.size >= THREAT_CACHE_MAX) this.threats.clear();
      this.threats.set(agent, state);
    }
    // A copy: a caller that changes what it got cannot change what the next check reads.
    return { ...state };
  }

  private readThreat(agent: string): ThreatState {
    const raw = this.agentGet.get(agent);
    return raw === undefined ? { agent, tau: 0, level: 0, quarantined: false, updatedAt: null } : AgentRowSchema.parse(raw);
  }

  /** Stores τ and level; leaves quarantine as it is. */
  async setThreat(agent: string, tau: number, level: number): Promise<ThreatState> {
    return this.putThreat(agent, tau, level);
  }

  private putThreat(agent: string, tau: number, level: number): ThreatState {
    checkThreat(tau, level);
    this.threats.delete(agent);
    this.threatPut.run(agent, tau, level, Date.now());
    return this.threatOf(agent);
  }

  /**
   * Atomic read-modify-write of τ: `update` gets the current state and returns the new τ and level, inside one
   * IMMEDIATE transaction (so neither a concurrent evaluation nor another process can slip in between).
   */
  async updateThreat(agent: string, update: (current: ThreatState) => { tau: number; level: number }, known?: ThreatState): Promise<ThreatState> {
    // Nothing changes in the common case (a trusted agent behaving): that is decided from the state the caller just
    // read (or a plain read), without the write lock or a commit. A concurrent rise of τ missed that way is only a
    // decay step skipped. `update` is pure, so it runs again inside the transaction when τ moved meanwhile.
    const seen = known ?? this.threatOf(agent);
    const guess = update(seen);
    if (guess.tau === seen.tau && guess.level === seen.level) return seen;
    return this.tx(() => {
      const current = this.threatOf(agent);
      const next = current.tau === seen.tau && current.level === seen.level && current.quarantined === seen.quarantined ? guess : update(current);
      if (next.tau === current.tau && next.level === current.level) return current;
      return this.putThreat(agent, next.tau, next.level);
    })();
  }

  /** Quarantines an agent (kept across restarts) and audits it. */
  async quarantine(agent: string, reason: string, source = 'watcher'): Promise<ThreatState> {
    return this.tx(() => {
      this.threats.delete(agent);
      this.quarantinePut.run(agent, reason, Date.now());
      this.audit.appendNow({ agent, kind: 'admin', tool: 'quarantine', decision: 'deny', rationale: reason, source });
      return this.threatOf(agent);
    })();
  }

  /**
   * Lifts an agent's quarantine and resets τ and level to 0 and its burst window, audited with who did it and where
   * (`source`: `cli`, `ui`). Throws
   * `store_agent_not_found` for an agent the store has never seen.
   */
  async release(agent: string, by = 'unknown', source = 'cli'): Promise<ThreatState> {
    return this.tx(() => {
      const before = this.threatOf(agent);
      if (before.updatedAt === null) throw new StoreError('store_agent_not_found', `no agent ${agent} in the store (see \`quadguard agents list\`)`);
      this.threats.delete(agent);
      this.releasePut.run(Date.now(), agent);
      // A clean slate: the requests that made the burst do not quarantine the agent again the moment it is released.
      this.burstSweep.run(agent, Number.MAX_SAFE_INTEGER);
      this.burstPending.delete(agent);
      this.burstRead.delete(agent);
      this.audit.appendNow(releaseEntry(before, by, source));
      return this.threatOf(agent);
    })();
  }

  /**
   * The shared burst window (see StateApi.countRequest). On SQLite the count is written behind: a request is added
   * to this process's pending buckets and the window is what the file holds (every process's flushed requests) plus
   * what is pending here, so a decision reads and never commits. Pending counts are written every
   * `BURST_FLUSH_MS` and at close; other processes see them that much later, and a crash forgets at most that
   * much of the rate (never a decision: the audit log is written before every answer).
   */
  async countRequest(agent: string, now: number, windowMs: number, count: boolean): Promise<number> {
    const { bucket, cutoff } = burstBuckets(now, windowMs);
    let mine = this.burstPending.get(agent);
    if (count) {
      if (!mine) this.burstPending.set(agent, (mine = { buckets: new Map(), cutoff }));
      mine.buckets.set(bucket, (mine.buckets.get(bucket) ?? 0) + 1);
      mine.cutoff = cutoff;
      this.armBurstFlush(BURST_FLUSH_MS);
    }
    let pending = 0;
    for (const [b, n] of mine?.buckets ?? []) if (b > cutoff) pending += n;
    let read = this.burstRead.get(agent);
    if (!read || read.cutoff !== cutoff || now - read.at >= BURST_READ_MS || now < read.at) {
      read = { cutoff, rate: this.burstSum.get(agent, cutoff)?.rate ?? 0, at: now };
      this.burstRead.set(agent, read);
    }
    return read.rate + pending;
  }

  /**
   * The write-behind timer. Its write may fail (the file locked by another process past the busy timeout, a full
   * disk): the counts stay pending, the fault is logged and reported, and the write is tried again later. Nothing
   * thrown from a timer may end the proxy.
   */
  private armBurstFlush(ms: number): void {
    if (this.burstTimer) return;
    this.burstTimer = setTimeout(() => {
      this.burstTimer = undefined;
      try {
        this.flushBurst();
      } catch (err) {
        const reason = faultReason(err) ?? 'error';
        reportStoreFault({ engine: 'sqlite', op: 'state.flushBurst', reason, err });
        this.log?.warn({ err: (err as Error).message, reason }, 'writing the burst counts failed; kept in memory, trying again');
        this.armBurstFlush(BURST_RETRY_MS);
      }
    }, ms);
    this.burstTimer.unref();
  }

  /**
   * Writes the pending burst counts in one transaction and sweeps buckets that left the window. On failure the
   * counts stay pending (merged with any counted meanwhile) and the error is thrown.
   */
  flushBurst(): void {
    if (this.burstTimer) clearTimeout(this.burstTimer);
    this.burstTimer = undefined;
    if (this.burstPending.size === 0) return;
    const pending = [...this.burstPending];
    this.burstPending.clear();
    try {
      this.tx(() => {
        for (const [agent, { buckets, cutoff }] of pending) {
          for (const [bucket, n] of buckets) if (bucket > cutoff) this.burstAddMany.run(agent, bucket, n);
          this.burstSweep.run(agent, cutoff);
        }
      })();
    } catch (err) {
      for (const [agent, was] of pending) {
        const now = this.burstPending.get(agent);
        if (!now) {
          this.burstPending.set(agent, was);
          continue;
        }
        for (const [b, n] of was.buckets) now.buckets.set(b, (now.buckets.get(b) ?? 0) + n);
      }
      throw err;
    }
    // What was pending is in the file now: the next count reads it there.
    this.burstRead.clear();
  }

  /** Every agent with a threat record, by name. */
  async listAgents(): Promise<ThreatState[]> {
    return this.agentAll.all().map((raw) => AgentRowSchema.parse(raw));
  }
}

/**
 * Records one request in the agent's current bucket and returns the requests in the window (the buckets after
 * `cutoff` up to the current one), in one statement: PostgreSQL's count (SQLite writes behind, see countRequest).
 * The increment of the current bucket is atomic (the upsert locks its row); past buckets no longer change.
 */
export const BURST_ADD = `INSERT INTO burst (agent, bucket, n) VALUES ($agent, $bucket, 1)
  ON CONFLICT (agent, bucket) DO UPDATE SET n = burst.n + 1
  RETURNING n AS n, n + (SELECT coalesce(sum(b.n), 0) FROM burst b WHERE b.agent = $agent AND b.bucket > $cutoff AND b.bucket < $bucket) AS rate`;

/** Agents whose threat state a SQLite connection keeps in memory at most (all are dropped when it is full). */
const THREAT_CACHE_MAX = 10_000;

/** How long a SQLite process keeps burst counts before writing them (see StateStore.countRequest). */
export const BURST_FLUSH_MS = 250;
/** How long the write-behind waits before it tries a failed write again. */
const BURST_RETRY_MS = 1000;
/** How long a process reuses its read of the file's burst count (a fraction of the flush interval). */
export const BURST_READ_MS = 100;

/** The bucket of `now` and the last bucket outside the window: ten buckets per window. */
export function burstBuckets(now: number, windowMs: number): { bucket: number; cutoff: number } {
  const size = Math.max(1, Math.floor(windowMs / 10));
  const bucket = Math.floor(now / size);
  return { bucket, cutoff: bucket - Math.ceil(windowMs / size) };
}

/** The audit entry of a release, naming what the agent's state was: shared by both engines. */
export function releaseEntry(before: ThreatState, by: string, source: string): AuditEntry {
  const was = before.quarantined ? `quarantined (${before.reason ?? 'no reason'})` : 'not quarantined';
  return {
    agent: before.agent,
    kind: 'admin',
    tool: 'release',
    decision: 'allow',
    rationale: `released by ${by}; was ${was}, tau ${before.tau.toFixed(3)}, level ${before.level}; tau reset to 0`,
    source,
  };
}

export function checkThreat(tau: number, level: number): void {
  if (!(tau >= 0 && tau <= 1)) throw new StoreError('store_invalid_input', `tau must be in [0, 1], got ${tau}`);
  if (!Number.isInteger(level) || level < 0 || level > 4) {
    throw new StoreError('store_invalid_input', `threat level must be an integer 0–4, got ${level}`);
  }
}
