import type { ApprovalApi } from './approvals.js';
import type { AuditApi } from './audit.js';
import type { PinApi } from './pins.js';
import type { StateApi } from './state.js';
import type { FlowStore } from './flow.js';

// Each engine's sub-interfaces are declared beside their SQLite class (which implements them); the PostgreSQL
// classes take them from here.
export type { ApprovalApi } from './approvals.js';
export type { AuditApi, AuditWatchHandlers, AuditWatcher } from './audit.js';
export type { PinApi } from './pins.js';
export type { StateApi } from './state.js';

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

