import type { Store } from './db.js';
import type { ApprovalApi, AuditApi, GuardStore, PinApi, StateApi } from './engine.js';

/**
 * The SQLite store behind the async `GuardStore` interface. Each method is the synchronous statement of
 * db.ts wrapped in a resolved Promise: no thread hop, no queue, so the hot path costs one await more than before.
 * A synchronous throw becomes a rejected Promise, as PostgreSQL's errors are.
 */
export function sqliteGuardStore(store: Store): GuardStore {
  const { audit, state, pins, approvals } = store;
  const a: AuditApi = {
    append: async (e) => audit.append(e),
    get: async (id) => audit.get(id),
    interaction: async (id) => audit.interaction(id),
    tail: async (n) => audit.tail(n),
    async *iterate(fromId) {
      yield* audit.iterate(fromId);
    },
    verify: async (o) => audit.verify(o),
    exportNdjson: (out, fromId) => audit.exportNdjson(out, fromId),
  };
  const s: StateApi = {
    getSticky: async (session) => state.getSticky(session),
    setSticky: async (session, name, value) => state.setSticky(session, name, value),
    setStickyMany: async (session, values) => state.setStickyMany(session, values),
    resetSession: async (session) => state.resetSession(session),
    getThreat: async (agent) => state.getThreat(agent),
    setThreat: async (agent, tau, level) => state.setThreat(agent, tau, level),
    updateThreat: async (agent, update, known) => state.updateThreat(agent, update, known),
    countRequest: async (agent, now, windowMs, count) => state.countRequest(agent, now, windowMs, count),
    quarantine: async (agent, reason, source) => state.quarantine(agent, reason, source),
    release: async (agent, by, source) => state.release(agent, by, source),
    listAgents: async () => state.listAgents(),
  };
  const p: PinApi = {
    getPin: async (server, tool) => pins.getPin(server, tool),
    pinTool: async (server, tool, hash, def) => pins.pinTool(server, tool, hash, def),
    markChanged: async (server, tool, hash, def) => pins.markChanged(server, tool, hash, def),
    approvePin: async (server, tool, hash, by, source) => pins.approvePin(server, tool, hash, by, source),
    listPins: async (status) => pins.listPins(status),
    observeTool: async (server, tool) => pins.observeTool(server, tool),
  };
  const ap: ApprovalApi = {
    get: async (id) => approvals.get(id),
    request: async (req) => approvals.request(req),
    consume: async (b, now) => approvals.consume(b, now),
    approve: async (id, by, source, now) => approvals.approve(id, by, source, now),
    deny: async (id, by, source, now) => approvals.deny(id, by, source, now),
    expireDue: async (now) => approvals.expireDue(now),
    list: async (o) => approvals.list(o),
    changedAfter: async (u) => approvals.changedAfter(u),
  };
  return {
    engine: 'sqlite',
    location: store.path,
    shared: false,
    audit: a,
    state: s,
    pins: p,
    approvals: ap,
    flow: store.flow,
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
