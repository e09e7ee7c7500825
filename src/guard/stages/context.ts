import type { Logger } from '../../core/log.js';
import type { Decision, DecisionDetail, Interaction, Truth } from '../../core/types.js';
import type { CompiledBook } from '../../policy/compiled.js';
import type { Severity } from '../../policy/schema.js';
import type { GuardStore } from '../../store/engine.js';
import type { ThreatState } from '../../store/state.js';
import type { GuardModelHooks } from '../model/index.js';
import { addUsage, type UsagePart } from '../model/usage.js';
import type { PipelineOptions } from '../options.js';
import type { RefereeVerdict, RuleOutcome } from '../referee.js';
import type { Tracker, TrackResult } from '../tracker.js';
import type { Verifier } from '../verifier.js';
import type { ThreatWatcher } from '../watcher.js';
import type { DataFlowStage } from '../dataflow.js';
import type { ProvenanceStage } from '../provenance.js';
import type { LongTextReader } from '../long-texts.js';

/**
 * What the stages of the pipeline share. `GuardEnv` is built once per pipeline (the book, the store, the four
 * parts, the settings); `GuardContext` is built once per interaction and filled in by the stages in order.
 */

/** The pipeline's parts and settings, the same for every interaction. */
export interface GuardEnv {
  book: CompiledBook;
  store: GuardStore;
  options: PipelineOptions;
  tracker: Tracker;
  verifier: Verifier;
  watcher: ThreatWatcher;
  /** The model hooks, when an `llm:` section is configured. */
  model: GuardModelHooks | undefined;
  log: Logger;
  /** Clock (ms since the epoch): the burst window and approval lifetimes. */
  now: () => number;
  /** The session's sticky values Γ (cached in memory, loaded from the store on first use). */
  stickyOf(session: string): Promise<Map<string, Truth>>;
  /** Where Γ of an interaction is kept: its session, or its agent (option sticky_scope). */
  stickyKey(i: Interaction): string;
  /** Stamped on every decision. */
  policy: NonNullable<Decision['policy']>;
  /** Predicates with an injection detector: their score is the watcher's injection evidence. */
  injectionPredicates: ReadonlySet<string>;
  /** Data flow: capability labels and leaks before tracking, fingerprints of reads after the audit. */
  dataflow: DataFlowStage;
  provenance: ProvenanceStage;
  /** Long texts read and recorded off the event loop (the worker pool), short ones in place. */
  long: LongTextReader;
  /** Predicates with a `data_flow` detector: a violation through them names the source read. */
  flowPredicates: ReadonlySet<string>;
  /** Predicates with a `provenance` detector: a hold through them names the untrusted read. */
  provenancePredicates: ReadonlySet<string>;
  /** The book's rate windows (`rate` detectors), each counted per identity by the rate stages. */
  rateWindows: readonly RateWindow[];
  /** Rules whose predicates are all `rate` predicates: rate limits, not threat evidence (their windows). */
  rateRules: ReadonlyMap<string, readonly RateWindow[]>;
}

/** One sliding count the book asks for: the calls of some tools per identity in a minute, an hour or a day. */
export interface RateWindow {
  key: string;
  windowMs: number;
  per: string;
  max: number;
  matches(qualifiedTool: string): boolean;
}

/** The threat watcher's result for this interaction. */
export interface ThreatAfter {
  tau: number;
  level: number;
  burst: boolean;
  rate: number;
}

/** One interaction on its way through the stages. Each field is filled by the stage named beside it. */
export interface GuardContext {
  /** The interaction; flowInspect adds its data-flow facts (`flow`) before anything else reads it. */
  interaction: Interaction;
  /** `performance.now()` when the check started (for `elapsedMs`). */
  readonly started: number;
  /** The caller's signal, combined with the model time budget when a model is configured. */
  readonly signal: AbortSignal | undefined;
  /** quarantineGate: the agent's threat state before this interaction. */
  before?: ThreatState;
  /** tracking: the session's Γ. */
  sticky?: Map<string, Truth>;
  /** tracking (revised by modelExpansion): the candidates and their values. */
  track?: TrackResult;
  /** tracking (revised by modelExpansion): the rules not shown satisfied. */
  outcomes?: RuleOutcome[];
  /** Model usage of every stage that called a model (summed into `detail.llm`). */
  usages: Array<UsagePart | undefined>;
  /** modelExpansion: the predicates the strong model re-decided. */
  expanded?: string[];
  /** watcher: the evidence it scored. */
  evidence?: { violations: Severity[]; injectionScore: number };
  /** watcher (moved by threatStep): τ and level after this interaction. */
  threat?: ThreatAfter;
  /** threatStep: the model's proposed step. */
  modelThreat?: { delta: number; reason: string };
  /** referee: the verdict (rules to redact, rules that hold the call). */
  verdict?: RefereeVerdict;
  /** The decision so far; the recording stages (observe, stamp, audit) see the final one. */
  decision?: Decision;
  /** True once a stage decided for good: the deciding stages after it are skipped. */
  final: boolean;
}

/** A named step of the pipeline. */
export interface Stage {
  readonly name: string;
  /** Runs even when an earlier stage decided for good (the recording stages). */
  readonly always?: boolean;
  /** A failure of this stage is logged and does not change the decision (nothing depends on it). */
  readonly tolerant?: boolean;
  run(ctx: GuardContext, env: GuardEnv): void | Promise<void>;
  /**
   * The decision when this stage throws, if not the generic error denial (the audit stage: an unrecorded allow
   * becomes a denial, a denial stands).
   */
  failClosed?(ctx: GuardContext, env: GuardEnv, err: unknown): Decision;
}

/** A fresh context for one interaction. */
export function newContext(interaction: Interaction, signal?: AbortSignal, started = performance.now()): GuardContext {
  return { interaction, started, signal, usages: [], final: false };
}

/** The value an earlier stage should have set; its absence is a bug in the stage order (the check fails closed). */
export function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`pipeline stage order: ${what} is not set`);
  return value;
}

/**
 * τ to four decimals, as the detail shows it: `Number(tau.toFixed(4))`, whose text costs ~1 µs a check in the proxy,
 * except τ = 0 (a well-behaved agent's, most checks), which it gives as 0 (-0 too). test/guard/stages/pipeline-detail.test.ts.
 */
export function roundedTau(tau: number): number {
  return tau === 0 ? 0 : Number(tau.toFixed(4));
}

/** The pipeline's part of `Decision.detail`: candidates, threat, model usage, expansion, model threat step. */
export function pipelineDetail(ctx: GuardContext): DecisionDetail {
  const track = need(ctx.track, 'the track');
  const threat = need(ctx.threat, 'the threat update');
  const detail: DecisionDetail = {
    candidates: track.candidates.length,
    threat: { tau: roundedTau(threat.tau), level: threat.level, burst: threat.burst, rate: threat.rate },
  };
  const llm = addUsage(...ctx.usages);
  if (llm) detail.llm = llm;
  if (ctx.expanded) detail.expanded = ctx.expanded;
  if (ctx.modelThreat) detail.modelThreat = ctx.modelThreat;
  return detail;
}
