import type { z } from 'zod';
import { silentLogger, type Logger } from '../core/log.js';
import type { Decision, Guard, Interaction, Truth } from '../core/types.js';
import type { CompiledBook } from '../policy/compiled.js';
import type { PredicateIndex } from '../retrieval/predicate-index.js';
import { auditEntryFor } from '../store/audit-schema.js';
import type { GuardStore } from '../store/engine.js';
import { RATE_WINDOW_MS, RateOptionsSchema, rateWindowKey } from '../detectors/rate.js';
import { compileGlob } from '../core/glob.js';
import type { GuardModelHooks } from './model/index.js';
import { budgetSignal } from './model/usage.js';
import { DataFlowOptionsSchema, PipelineOptionsSchema, PoolOptionsSchema, ProvenanceOptionsSchema } from './options.js';
import { longTextReader } from './long-texts.js';
import { poolSize, readsAhead, sharedPool, spareThread, type TextPool } from './text-pool.js';
import { ProvenanceStage } from './provenance.js';
import { GUARD_STAGES, newContext, runStages, type GuardEnv, type Stage } from './stages/index.js';
import type { RateWindow } from './stages/context.js';
import { CapabilityMap } from './capabilities.js';
import { Principals } from './principals.js';
import { DataFlowStage } from './dataflow.js';
import { createTracker } from './tracker.js';
import { createVerifier } from './verifier.js';
import { ThreatWatcher } from './watcher.js';

/**
 * The four-part guard (QuadSentinel Algorithm 1) on one interaction, as the ordered stages of src/guard/stages/
 * (quarantine gate → tracker → verifier → watcher → referee → audit row). Build it with `buildGuard`
 * (src/guard/build.ts); this class only holds the parts and runs the stages.
 */

export interface PipelineDeps {
  book: CompiledBook;
  index: PredicateIndex;
  /** Either engine (src/store/engine.ts). */
  store: GuardStore;
  logger?: Logger;
  options?: z.input<typeof PipelineOptionsSchema>;
  /** The model hooks (src/guard/model/): semantic predicates, state expansion, review, threat complement, observations. */
  model?: GuardModelHooks;
  /** Clock, for tests of the burst window and replays on recorded timestamps. */
  now?: () => number;
  /** The stages to run (default GUARD_STAGES). */
  stages?: readonly Stage[];
  /** Capability labels of tools (config overrides, annotations from listings); default: the book's alone. */
  capabilities?: CapabilityMap;
  /** Whom each agent acts for (messages to and from it are no data passed on); default: every agent's is `user`. */
  principals?: Principals;
  /**
   * The worker pool that reads long texts (default: the process's pool for `guard.pool`; null: none, everything on
   * the event loop), for tests of its bounds and failures.
   */
  pool?: TextPool | null;
  /**
   * The pool's spare thread for a long private read's hashes, started beside the detector pass (default: the
   * process's, when there is a pool and `guard.pool.read_ahead` holds; null: none, the hashes wait for the decision).
   */
  spare?: TextPool | null;
}

/** The guard pipeline; `check` never throws and never allows on its own failure. */
export class GuardPipeline implements Guard {
  readonly book: CompiledBook;
  readonly store: GuardStore;
  readonly watcher: ThreatWatcher;
  private readonly env: GuardEnv;
  private readonly stages: readonly Stage[];

  constructor(deps: PipelineDeps) {
    this.env = createGuardEnv(deps);
    this.book = deps.book;
    this.store = this.env.store;
    this.watcher = this.env.watcher;
    this.stages = deps.stages ?? GUARD_STAGES;
  }

  /** The data-flow stage's state (labels, fingerprints), for benches and tests. */
  get dataflow(): DataFlowStage {
    return this.env.dataflow;
  }

  async check(i: Interaction, signal?: AbortSignal): Promise<Decision> {
    const started = performance.now();
    // Every model call of this interaction shares one deadline (guard.model.budget_ms) and the caller's signal.
    const modelSignal = this.env.model ? budgetSignal(signal, this.env.model.options.budget_ms) : signal;
    return runStages(this.stages, newContext(i, modelSignal, started), this.env);
  }

  /**
   * Records a decision made outside the pipeline (a refusal by the proxy: unknown or hidden tool, tool filter,
   * limits, spoofed sender) in the same audit chain, stamped with this policy; sets its `auditId`. Throws when
   * the store cannot write (the caller denies anyway). The proxy awaits it, so on either engine the row is written
   * (and its id known) before the refusal is answered, as for the pipeline's own decisions.
   */
  async record(i: Interaction, decision: Decision): Promise<void> {
    decision.policy ??= this.env.policy;
    decision.auditId = (await this.store.audit.append(await this.env.long.auditEntry(auditEntryFor(i, decision)))).auditId;
  }
}

/** The parts and settings the stages share, built once per pipeline (exported for the stages' unit tests). */
export function createGuardEnv(deps: Omit<PipelineDeps, 'stages'>): GuardEnv {
  const options = PipelineOptionsSchema.parse(deps.options ?? {});
  const sticky = new Map<string, Map<string, Truth>>();
  const { store } = deps;
  // Γ belongs to the session, or (sticky_scope; `auto`: with a shared store) to the agent identity.
  const byAgent = options.sticky_scope === 'agent' || (options.sticky_scope === 'auto' && store.shared);
  const log = (deps.logger ?? silentLogger()).child({ mod: 'guard' });
  const poolOptions = PoolOptionsSchema.parse(options.pool);
  const pool = deps.pool !== undefined ? (deps.pool ?? undefined) : poolSize(poolOptions.workers) > 0 ? sharedPool(poolOptions.workers, poolOptions.queue, deps.logger, poolOptions.nice) : undefined;
  const spare = deps.spare !== undefined ? (deps.spare ?? undefined) : pool && deps.pool === undefined && readsAhead(poolOptions.read_ahead) ? spareThread(deps.logger, poolOptions.nice) : undefined;
  const long = longTextReader(deps.book, pool, poolOptions.min_chars, log, spare, poolOptions.min_send_chars);
  const now = deps.now ?? Date.now;
  const capabilities = deps.capabilities ?? new CapabilityMap(deps.book.book.capabilities);
  return {
    book: deps.book,
    store,
    options,
    tracker: createTracker(deps.book, deps.index, options.tracker, deps.model?.semantic, long.evaluate),
    verifier: createVerifier(deps.book),
    watcher: new ThreatWatcher(options.watcher),
    model: deps.model,
    log,
    now,
    stickyKey: (i) => (byAgent ? `agent:${i.agent}` : i.session),
    async stickyOf(session) {
      // Read on every interaction, never cached, wherever another process may learn facts for the same key: a shared
      // store (PostgreSQL replicas), and Γ kept per agent (every proxy on one SQLite file serves that agent too).
      if (store.shared || byAgent) return store.state.getSticky(session);
      let s = sticky.get(session);
      if (!s) {
        if (sticky.size >= options.session_cache) sticky.clear();
        s = await store.state.getSticky(session);
        sticky.set(session, s);
      }
      return s;
    },
    policy: { name: deps.book.book.name, version: deps.book.book.version, hash: deps.book.hash },
    injectionPredicates: new Set(deps.book.predicates.filter((p) => p.def.detectors.some((d) => d.type === 'injection')).map((p) => p.name)),
    dataflow: new DataFlowStage({ store: store.flow, capabilities, ...(deps.principals ? { principals: deps.principals } : {}), options: options.flow, now, logger: log, ...(spare ? { readAhead: long.readAhead } : {}), readHashesOf: long.readHashesOf, readDigestOf: long.readDigestOf, outgoingOf: long.outgoingOf }),
    provenance: new ProvenanceStage({
      store: store.flow,
      capabilities,
      principals: deps.principals ?? new Principals(),
      options: ProvenanceOptionsSchema.parse(options.provenance),
      ttlMs: DataFlowOptionsSchema.parse(options.flow).ttl_ms,
      now,
      logger: log,
      untrustedHashesOf: long.untrustedHashesOf,
    }),
    long,
    flowPredicates: new Set(deps.book.predicates.filter((p) => p.def.detectors.some((d) => d.type === 'data_flow')).map((p) => p.name)),
    provenancePredicates: new Set(deps.book.predicates.filter((p) => p.def.detectors.some((d) => d.type === 'provenance')).map((p) => p.name)),
    ...rateSetup(deps.book),
  };
}

/** The book's rate windows (one per distinct tools and `per`) and its rate rules (every predicate a `rate` one). */
function rateSetup(book: CompiledBook): Pick<GuardEnv, 'rateWindows' | 'rateRules'> {
  const windows = new Map<string, RateWindow>();
  const byPredicate = new Map<string, RateWindow[]>();
  for (const p of book.predicates) {
    const specs = p.def.detectors.filter((d) => d.type === 'rate');
    if (specs.length === 0 || specs.length !== p.def.detectors.length) continue;
    byPredicate.set(p.name, specs.map((d) => {
      const o = RateOptionsSchema.parse((({ type: _t, ...rest }) => rest)(d));
      const key = rateWindowKey(o);
      const w = windows.get(key) ?? { key, windowMs: RATE_WINDOW_MS[o.per], per: o.per, max: o.max, matches: compileGlob(o.tools) };
      windows.set(key, w);
      return { ...w, max: o.max };
    }));
  }
  const rules = new Map<string, RateWindow[]>();
  for (const r of book.rules) {
    if (r.predicates.length > 0 && r.predicates.every((n) => byPredicate.has(n))) rules.set(r.id, r.predicates.flatMap((n) => byPredicate.get(n)!));
  }
  return { rateWindows: [...windows.values()], rateRules: rules };
}
