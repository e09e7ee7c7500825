import { z } from 'zod';
import { SEVERITY_RANK } from '../policy/schema.js';

/**
 * Options of the guard pipeline, in one place (config files embed them under `guard:`). Pure schemas: the config
 * loader can validate them without loading the pipeline.
 */

/** Severity rank at or above which an enforced soft violation is denied, by threat level 0–4. */
export const DEFAULT_DENY_AT_RANK: readonly number[] = [SEVERITY_RANK.medium, SEVERITY_RANK.medium, SEVERITY_RANK.low, SEVERITY_RANK.low, SEVERITY_RANK.low];

/** Every default of the guard's settings, in one place (the schemas below and `buildGuard` take them from here). */
export const GUARD_DEFAULTS = {
  tracker: { k_fraction: 0.1, k_min: 5, k_fraction_per_level: 0.05, k_max: 32 },
  watcher: {
    alpha: 0.6,
    level_bounds: [0.15, 0.35, 0.55, 0.8] as [number, number, number, number],
    burst_window_ms: 10_000,
    burst_threshold: 600,
    severity_risk: { low: 0.2, medium: 0.45, high: 0.75, critical: 1 },
    quarantine: true,
  },
  model: { expand_below: 0.6, watcher: 'off' as 'off' | 'complement', observations: 5, budget_ms: 20_000 },
  deny_at_rank: DEFAULT_DENY_AT_RANK,
  audit: true,
  session_cache: 10_000,
  approval_ttl_ms: 15 * 60_000,
  /** Where `buildGuard` keeps state when given no store: memory (fresh Γ, τ and quarantine; nothing persists). */
  store: ':memory:',
} as const;
const D = GUARD_DEFAULTS;

/** The state tracker's candidate budget. */
export const TrackerOptionsSchema = z.strictObject({
  /** Share of the book's predicates retrieved by similarity at threat level 0. */
  k_fraction: z.number().min(0).max(1).default(D.tracker.k_fraction),
  /** Never fewer than this many (or all, for smaller books). */
  k_min: z.number().int().min(0).default(D.tracker.k_min),
  /** Extra share per threat level: a suspicious agent gets more predicates checked. */
  k_fraction_per_level: z.number().min(0).max(1).default(D.tracker.k_fraction_per_level),
  /**
   * Never more than this many by similarity: with large books a share of 10% would make the cost grow with the
   * book, which the must-check set (always evaluated in full) does not need.
   */
  k_max: z.number().int().min(1).default(D.tracker.k_max),
});
export type TrackerOptions = z.infer<typeof TrackerOptionsSchema>;

/** The threat watcher. */
export const WatcherOptionsSchema = z.strictObject({
  /** Weight of the previous score: higher = slower to rise and to forgive. */
  alpha: z.number().min(0).max(0.99).default(D.watcher.alpha),
  /** Upper bounds of τ for levels 0..3; τ at or above the last is level 4. */
  level_bounds: z.tuple([z.number(), z.number(), z.number(), z.number()]).default([...D.watcher.level_bounds]),
  /** Sliding window of the burst analysis. */
  burst_window_ms: z.number().int().positive().default(D.watcher.burst_window_ms),
  /**
   * Requests (calls, messages, read requests; results are not counted again) in the window an agent may make; the
   * ones above it are refused with a retry-after (slowed, not scored: rate is not threat). 600 in 10 s: a scripted
   * client at 50 calls a second is not slowed, a runaway loop at 60+ a second is (docs/proxying.md).
   */
  burst_threshold: z.number().int().positive().default(D.watcher.burst_threshold),
  /** Risk of a violation of each severity (enforced or not: an attempt is evidence). */
  severity_risk: z
    .strictObject({ low: z.number(), medium: z.number(), high: z.number(), critical: z.number() })
    .default({ ...D.watcher.severity_risk }),
  /** Quarantine when the level reaches 4. Off: level 4 only tightens the referee. */
  quarantine: z.boolean().default(D.watcher.quarantine),
});
export type WatcherOptions = z.infer<typeof WatcherOptionsSchema>;

/**
 * How the guard uses the model of the `llm:` section (ignored without one). Semantic predicates and the review
 * of soft denials are always on when a model is configured; these settings tune the rest.
 */
export const ModelOptionsSchema = z.strictObject({
  /**
   * State expansion (§4.3): when a violated or unknown rule's witness rests on a model-decided semantic predicate
   * whose confidence is below this, those predicates are re-decided once by the strong tier. 0 disables it.
   */
  expand_below: z.number().min(0).max(1).default(D.model.expand_below),
  /**
   * Threat watcher: `off` keeps the numeric τ alone; `complement` asks the light model for a ±1 level step, only
   * on interactions with violations or injection evidence, and sets τ to the lower bound of the new level.
   */
  watcher: z.enum(['off', 'complement']).default(D.model.watcher),
  /** Summaries of a session's recent interactions sent to the model as observations (kept in memory). */
  observations: z.number().int().min(0).max(10).default(D.model.observations),
  /** Wall-clock budget of all model calls of one interaction; past it they are aborted and count as failures. */
  budget_ms: z.number().int().positive().max(600_000).default(D.model.budget_ms),
});
export type ModelOptions = z.infer<typeof ModelOptionsSchema>;

/** Data-flow tracking (docs/data-flow.md): fingerprints of private data per identity. */
export const DataFlowOptionsSchema = z.strictObject({
  /** Off: no fingerprints are kept and data-flow predicates see no leaks (capability labels still apply). */
  enabled: z.boolean().default(true),
  /** How long a read's fingerprints are kept, per identity; default 24 h. */
  ttl_ms: z.number().int().positive().default(24 * 3_600_000),
  /** Distinct fingerprints an outgoing interaction must share with reads to count as carrying that data. */
  min_matches: z.number().int().min(1).default(3),
  /** Fingerprints kept per read at most (a consistent sample of longer reads). */
  max_per_read: z.number().int().positive().default(4096),
  /** k-gram length in normalised characters (letters and digits); shared runs shorter than this never match. */
  k: z.number().int().min(8).max(64).default(20),
  /** Winnowing window; any shared run of k + window - 1 characters yields at least one shared fingerprint. */
  window: z.number().int().min(1).max(64).default(12),
});
export type DataFlowOptions = z.infer<typeof DataFlowOptionsSchema>;

/**
 * The local embedder's cosine at or above which an untrusted sentence naming one of a tool's name words asks for it
 * (provenance-actions.ts). Calibrated on the dev trajectories: benign sentences that name a tool's word reach 0.20 at
 * most, requests the stems miss 0.25–0.31.
 */
export const DEFAULT_ACTION_SIMILARITY = 0.25;

/** Provenance (docs/provenance.md): values and requests from untrusted content, and the calls they steer. */
export const ProvenanceOptionsSchema = z.strictObject({
  /** Off: untrusted reads are not kept and no call is found steered. */
  enabled: z.boolean().default(true),
  /** `strict`: a steered consequential call is denied instead of held for a person's approval. */
  profile: z.enum(['default', 'strict']).default('default'),
  /** Opt-in lethal trifecta: untrusted content and private data in one session, then an external send, is held. */
  trifecta: z.boolean().default(false),
  /** Steering values kept per read at most; a read with more holds the identity's consequential calls (fail closed). */
  max_values_per_read: z.number().int().positive().default(2048),
  /** Tools of the catalogue matched against untrusted requests at most; a larger catalogue fails closed likewise. */
  max_tools: z.number().int().positive().default(500),
  /**
   * The local embedder's cosine at or above which an untrusted sentence that names the verb of a tool's name asks
   * for that tool, beside the stems (calibrated on the dev trajectories); above 1 turns this signal off.
   */
  action_similarity: z.number().min(0).max(2).default(DEFAULT_ACTION_SIMILARITY),
});
export type ProvenanceOptions = z.infer<typeof ProvenanceOptionsSchema>;

/**
 * The worker pool that reads long texts off the event loop (src/guard/text-pool.ts, docs/operations.md): the whole
 * detector pass of an interaction whose texts are long, and the fingerprints of a long private read.
 */
export const PoolOptionsSchema = z.strictObject({
  /** Worker threads: `auto` = the machine's available parallelism − 1, at least 1; 0 reads long texts on the event loop. */
  workers: z.union([z.literal('auto'), z.number().int().min(0).max(256)]).default('auto'),
  /**
   * Checks waiting for a worker beyond those running; one more is refused as busy (a tool error with a retry-after,
   * recorded in the audit), never read on the event loop instead.
   */
  queue: z.number().int().min(0).max(100_000).default(32),
  /** An interaction whose string values hold at least this many characters in all is read in the pool. */
  min_chars: z.number().int().min(1).default(256 * 1024),
  /**
   * The same for a send (a tool call's arguments, a message, a request's or reply's text: what data flow reads for
   * leaks). Reading a send costs several times what reading a result of the same length does (every encoding, nested;
   * its fingerprints and short values): on the loop a 64 KB `write_file` held it ~140–290 ms, 200 KB ~450–970 ms
   * (2 cores, loaded).
   */
  min_send_chars: z.number().int().min(1).default(32 * 1024),
  /**
   * A spare thread beside the pool for what a long check's audit row and a long private read's data-flow hashes take
   * from the text alone, started while a worker runs the detectors: the long check answers sooner where a core is
   * free for it, and takes a core from the event loop (other sessions) where none is. `auto`: on with 4 or more
   * cores (measured on 2 cores: a 10 MB check ~85 ms sooner, another session's calls ~3 ms slower meanwhile; with
   * the threads at nice 10 still 1.4–3.3× their idle median during an 8 MB read, against 1.2–1.7× without it).
   */
  read_ahead: z.union([z.literal('auto'), z.boolean()]).default('auto'),
  /**
   * The nice value the pool's workers and the spare thread give their own threads (Linux; elsewhere ignored): the
   * event loop (other sessions' calls), the client and the servers get a busy core first, a long check what is left.
   * 0: the process's priority.
   */
  nice: z.number().int().min(0).max(19).default(10),
});
export type PoolOptions = z.infer<typeof PoolOptionsSchema>;

export const PipelineOptionsSchema = z.strictObject({
  /** Data-flow tracking: time to live, match threshold, fingerprint sizes. */
  flow: DataFlowOptionsSchema.partial().default({}),
  /** The worker pool for long texts: its size, its queue, what counts as long. */
  pool: PoolOptionsSchema.partial().default({}),
  /** Provenance: untrusted values and requests, and the consequential calls they steer. */
  provenance: ProvenanceOptionsSchema.partial().default({}),
  /** Model use (with `llm:` configured): state expansion, threat watcher mode, observations, time budget. */
  model: ModelOptionsSchema.partial().default({}),
  /** The state tracker's candidate budget (top-k predicate retrieval). */
  tracker: TrackerOptionsSchema.partial().default({}),
  /** The threat watcher: per-agent threat score, levels and quarantine. */
  watcher: WatcherOptionsSchema.partial().default({}),
  /** Severity rank (1 low … 4 critical) at or above which a soft violation is denied, per threat level 0–4. */
  deny_at_rank: z.array(z.number().int().min(1).max(5)).length(5).default([...D.deny_at_rank]),
  /** Record every decision in the audit log. */
  audit: z.boolean().default(D.audit),
  /** Sessions whose Γ is kept in memory (their sticky values stay in the store either way). */
  session_cache: z.number().int().positive().default(D.session_cache),
  /**
   * What sticky facts (Γ) belong to: the MCP `session`, or the `agent` identity across all its sessions. `auto`
   * (default): the session with a store of one process (SQLite), the agent with a shared store (PostgreSQL),
   * because an MCP session never spans replicas: a read through one replica and a send through another are two
   * sessions of one agent.
   */
  sticky_scope: z.enum(['auto', 'session', 'agent']).default('auto'),
  /** Lifetime of an approval request of a held call (effect: approve), from when it is first held; default 15 min. */
  approval_ttl_ms: z.number().int().positive().default(D.approval_ttl_ms),
});
export type PipelineOptions = z.infer<typeof PipelineOptionsSchema>;

/** Settings as callers pass them: any key may be absent or undefined; the schema fills defaults. */
export type OptionsInput<T> = { [K in keyof T]?: T[K] | undefined };
