import { setTimeout as sleep } from 'node:timers/promises';
import { StoreError } from '../core/errors.js';
import type { Store } from './db.js';
import type { ApprovalApi, AuditApi, GuardStore, PinApi, StateApi } from './engine.js';
import { faultReason, isSqliteBusy, reportStoreFault } from './faults.js';
import type { FlowStore } from './flow.js';

/** The longest pause between two tries of a locked write, ms. */
const MAX_PAUSE_MS = 50;
/** After a call gave up on a lock, how long other calls try it once only, ms (renewed by each that fails). */
const LOCKED_OUT_MS = 2000;
/** When a call of each store last gave up on a lock. */
const lockedOut = new WeakMap<Store, number>();

/**
 * Runs one synchronous store call. A lock held by another process (SQLITE_BUSY) is waited for off the event loop:
 * each try blocks at most the connection's short busy timeout (`Store.lockSliceMs`), then the call sleeps
 * asynchronously and tries again, for at most `Store.lockWaitMs` in all, so other sessions keep being answered
 * while one waits. A failure is reported as a fault (counted, `/readyz`) and names the store.
 */
async function call<R>(store: Store, op: string, fn: () => R | Promise<R>): Promise<R> {
  const started = Date.now();
  // While the lock is known to be held past the wait (a call gave up on it moments ago), the others do not queue
  // up behind it for the whole wait again: one interaction's reads and writes would add up to several waits.
  const budget = Date.now() - (lockedOut.get(store) ?? 0) < LOCKED_OUT_MS ? 0 : store.lockWaitMs;
  for (let pause = 2; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    try {
      const out = await fn();
      if (budget === 0) lockedOut.delete(store);
      return out;
    } catch (err) {
      if (isSqliteBusy(err) && Date.now() - started + pause < budget) {
        await sleep(pause);
        continue;
      }
      if (isSqliteBusy(err)) lockedOut.set(store, Date.now());
      const reason = faultReason(err);
      if (reason === undefined) throw err;
      reportStoreFault({ engine: 'sqlite', op, reason, err });
      const waited = reason === 'busy' ? ` (another process holds its write lock; waited ${Date.now() - started} ms, at most ${store.lockWaitMs})` : '';
      const code = err instanceof StoreError ? err.code : 'store_write_failed';
      throw new StoreError(code, `the SQLite store ${store.path} failed${waited}: ${(err as Error).message}`, { cause: err });
    }
  }
}

/**
 * The SQLite store behind the async `GuardStore` interface. Each method is the synchronous statement of
 * db.ts, run by `call` (a resolved Promise when nothing is locked: no thread hop, no queue, one await more than a
 * direct call). A synchronous throw becomes a rejected Promise, as PostgreSQL's errors are.
 */
export function sqliteGuardStore(store: Store): GuardStore {
  const { audit, state, pins, approvals } = store;
  const c = <R>(op: string, fn: () => R | Promise<R>) => call(store, op, fn);
  const { flow } = store;
  const f: FlowStore = {
    key: () => c('flow.key', () => flow.key()),
    recordRead: (agent, source, fingerprints, expires, digest) => c('flow.recordRead', () => flow.recordRead(agent, source, fingerprints, expires, digest)),
    refresh: (agent, source, digest, expires, now) => c('flow.refresh', () => flow.refresh(agent, source, digest, expires, now)),
    match: (agent, fingerprints, now) => c('flow.match', () => flow.match(agent, fingerprints, now)),
    sweep: (now, budget) => c('flow.sweep', () => flow.sweep(now, budget)),
  };
  const a: AuditApi = {
    append: (e) => c('audit.append', () => audit.appendDecision(e)),
    get: (id) => c('audit.get', () => audit.get(id)),
    interaction: (id) => c('audit.interaction', () => audit.interaction(id)),
    tail: (n) => c('audit.tail', () => audit.tail(n)),
    async *iterate(fromId) {
      yield* audit.iterate(fromId);
    },
    verify: (o) => c('audit.verify', () => audit.verify(o)),
    exportNdjson: (out, fromId) => audit.exportNdjson(out, fromId),
    prune: (before, exportTo, limit) => c('audit.prune', () => audit.prune(before, exportTo, limit)),
  };
  const s: StateApi = {
    getSticky: (session) => c('state.getSticky', () => state.getSticky(session)),
    setSticky: (session, name, value) => c('state.setSticky', () => state.setSticky(session, name, value)),
    setStickyMany: (session, values) => c('state.setStickyMany', () => state.setStickyMany(session, values)),
    resetSession: (session) => c('state.resetSession', () => state.resetSession(session)),
    getThreat: (agent) => c('state.getThreat', () => state.getThreat(agent)),
    setThreat: (agent, tau, level) => c('state.setThreat', () => state.setThreat(agent, tau, level)),
    updateThreat: (agent, update, known) => c('state.updateThreat', () => state.updateThreat(agent, update, known)),
    countRequest: (agent, now, windowMs, count) => c('state.countRequest', () => state.countRequest(agent, now, windowMs, count)),
    quarantine: (agent, reason, source) => c('state.quarantine', () => state.quarantine(agent, reason, source)),
    release: (agent, by, source) => c('state.release', () => state.release(agent, by, source)),
    listAgents: () => c('state.listAgents', () => state.listAgents()),
  };
  const p: PinApi = {
    getPin: (server, tool) => c('pins.getPin', () => pins.getPin(server, tool)),
    pinTool: (server, tool, hash, def) => c('pins.pinTool', () => pins.pinTool(server, tool, hash, def)),
    markChanged: (server, tool, hash, def) => c('pins.markChanged', () => pins.markChanged(server, tool, hash, def)),
    approvePin: (server, tool, hash, by, source) => c('pins.approvePin', () => pins.approvePin(server, tool, hash, by, source)),
    listPins: (status) => c('pins.listPins', () => pins.listPins(status)),
    observeTool: (server, tool) => c('pins.observeTool', () => pins.observeTool(server, tool)),
  };
  const ap: ApprovalApi = {
    get: (id) => c('approvals.get', () => approvals.get(id)),
    request: (req) => c('approvals.request', () => approvals.request(req)),
    consume: (b, now) => c('approvals.consume', () => approvals.consume(b, now)),
    approve: (id, by, source, now) => c('approvals.approve', () => approvals.approve(id, by, source, now)),
    deny: (id, by, source, now) => c('approvals.deny', () => approvals.deny(id, by, source, now)),
    expireDue: (now) => c('approvals.expireDue', () => approvals.expireDue(now)),
    list: (o) => c('approvals.list', () => approvals.list(o)),
    changedAfter: (u) => c('approvals.changedAfter', () => approvals.changedAfter(u)),
  };
  return {
    engine: 'sqlite',
    location: store.path,
    shared: false,
    audit: a,
    state: s,
    pins: p,
    approvals: ap,
    flow: f,
    sqlite: store,
    close: async () => store.close(),
  } as GuardStore & { sqlite: Store };
}

/** The synchronous SQLite store under a `GuardStore`, for the parts that still need it (the live view, replay). */
export function sqliteOf(store: GuardStore): Store | undefined {
  return (store as GuardStore & { sqlite?: Store }).sqlite;
}

/** A `GuardStore` as is, or a synchronous SQLite `Store` wrapped (evaluation, replay and tests open `:memory:` stores). */
export function toGuardStore(store: GuardStore | Store): GuardStore {
  return 'engine' in store ? store : sqliteGuardStore(store);
}
