import type { Truth } from '../core/types.js';
import type { Approval, ApprovalBinding, ApprovalRequest, ApprovalStatus } from './approvals.js';
import type { AuditEntry, AuditRow, RetentionAnchor, VerifyOptions, VerifyResult } from './audit.js';
import type { InteractionRecord } from './audit-interaction.js';
import type { ObserveResult, Pin, PinStatus } from './pins.js';
import type { ThreatState } from './state.js';
import type { ToolDefinition } from './tool-hash.js';
import type { FlowStore } from './flow.js';

/**
 * The one store interface of both engines (DESIGN §8, issue #15): the embedded SQLite file (src/store/db.ts) and
 * PostgreSQL for several replicas (src/store/pg/). Every method returns a Promise: PostgreSQL is a network hop; a
 * SQLite method runs its statements at once and answers with a resolved Promise (sqlite-calls.ts waits for a lock
 * held by another process off the event loop).
 *
 * Contract both engines keep (the shared test suite in test/store/ runs against both):
 * - every mutation that the audit log records (quarantine, release, pin approval, approval transitions) commits
 *   together with its audit row, in one transaction;
 * - the audit log is one hash chain: appends are serialised (SQLite: the write lock; PostgreSQL: `audit_head`
 *   row locked FOR UPDATE), so concurrent writers never fork it nor leave a gap;
 * - an approval is spent at most once, whatever the number of processes (status check and change in one
 *   transaction / conditional UPDATE);
 * - nothing that decides is cached by the engine: a change committed by another process is seen by the next call.
 *
 * Adding a table (e.g. data-flow fingerprints per identity): one step in migrations.ts with both dialects, a
 * sub-interface here, and one class per engine implementing it (db.ts wraps the SQLite one in `SqliteCalls`).
 * Adding columns to the audit chain: `auditFields`/`rowHash` and the verifier `ChainWalker` in audit.ts are shared
 * by both engines, so a new column needs its migration step and its place in each engine's INSERT. The keyed
 * chain (row MACs, signed head files; audit-key.ts) is the same on both; PostgreSQL also MACs its head row.
 */
export interface GuardStore {
  readonly engine: 'sqlite' | 'postgres';
  /** Where it is, for messages: the absolute file, or the URL without its password. */
  readonly location: string;
  /** True when other processes change the state between two calls (PostgreSQL): callers must not cache it. */
  readonly shared: boolean;
  readonly audit: AuditApi;
  readonly state: StateApi;
  readonly pins: PinApi;
  readonly approvals: ApprovalApi;
  /** Data-flow reads and fingerprints per identity (docs/data-flow.md). */
  readonly flow: FlowStore;
  close(): Promise<void>;
}

/** What a watcher of new audit rows is told. */
export interface AuditWatchHandlers {
  /** A row was appended (by any process on the store); its id when the notification carried it. */
  onRow(id: number | undefined): void;
  /** Listening started (`true`), or was lost (`false`, with why): the caller polls until it is back. */
  onState(listening: boolean, why?: string): void;
}

export interface AuditWatcher {
  close(): void;
}

export interface AuditApi {
  /**
   * Follows new rows as they are committed by any process (PostgreSQL: LISTEN/NOTIFY on a dedicated connection);
   * absent where the engine cannot (SQLite: readers poll).
   */
  watch?(handlers: AuditWatchHandlers): AuditWatcher;
  append(entry: AuditEntry): Promise<{ id?: number; auditId: string; hash?: string }>;
  get(id: number | string): Promise<AuditRow | undefined>;
  interaction(id: number): Promise<InteractionRecord | undefined>;
  tail(n: number): Promise<AuditRow[]>;
  iterate(fromId?: number): AsyncIterable<AuditRow>;
  verify(options?: VerifyOptions): Promise<VerifyResult>;
  exportNdjson(out: NodeJS.WritableStream, fromId?: number): Promise<number>;
  /**
   * Retention: drops the rows written before `before` (ms since the epoch) from the start of the log, after handing
   * each to `exportTo`, and records the last dropped row as the retention anchor `verify` walks from (docs/audit.md).
   * `limit`: at most this many rows in this call (one transaction; the background retention's batches). The bodies
   * no kept row names are dropped by the call that reaches the last row to drop.
   */
  prune(before: number, exportTo?: (row: AuditRow) => void, limit?: number): Promise<{ dropped: number; anchor: RetentionAnchor | undefined }>;
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

export interface PinApi {
  getPin(server: string, tool: string): Promise<Pin | undefined>;
  pinTool(server: string, tool: string, hash: string, definition: string): Promise<Pin>;
  markChanged(server: string, tool: string, newHash: string, newDefinition: string): Promise<Pin>;
  approvePin(server: string, tool: string, hash?: string, by?: string, source?: string): Promise<Pin>;
  listPins(status?: PinStatus): Promise<Pin[]>;
  observeTool(server: string, tool: ToolDefinition): Promise<ObserveResult>;
}

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
