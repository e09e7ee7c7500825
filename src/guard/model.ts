import { contentText } from '../core/fields.js';
import { errorMessage } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/log.js';
import type { LlmClient } from '../llm/client.js';
import { evaluateSemanticPredicates, expandState, type SemanticPredicatesResult } from '../llm/evaluators/predicates.js';
import { hierarchicalReview } from '../llm/evaluators/review.js';
import { threatLevelUpdate } from '../llm/evaluators/threat.js';
import { LruCache } from '../llm/lru.js';
import { UsageMeter, type LlmUsage } from '../llm/usage.js';
import type { CompiledBook, CompiledPredicate } from '../policy/compiled.js';
import { createOpenAiEmbedder } from '../retrieval/openai-embedder.js';
import type { PredicateIndex } from '../retrieval/predicate-index.js';
import type { Embedder } from '../retrieval/types.js';
import { ModelOptionsSchema, type ModelOptions, type OptionsInput } from './options.js';
import type { RuleOutcome, SoftDenialReviewer } from './referee.js';
import type { SemanticEvaluator, TrackResult } from './tracker.js';
import type { Decision, Interaction, Truth } from '../core/types.js';

/**
 * The model layer wired into the guard (DESIGN §3, QuadSentinel §4.1–4.4): hooks the pipeline calls when an
 * `llm:` section is configured, all built from one `LlmClient`.
 *
 * - `semantic`: the tracker's semantic candidates (predicates without a detector) in ONE light-tier call, with the
 *   session's last few interaction summaries as observations and current values (false for event predicates,
 *   Γ for sticky ones). A failure leaves them all unknown, so each rule's `on_unknown` decides.
 * - `expand`: state expansion (§4.3), the same evaluation on the strong tier for the low-confidence semantic
 *   predicates of a witness; the pipeline calls it at most once per interaction.
 * - `reviewer`: the hierarchical referee for soft, enforced, violated rules only (the deterministic referee never
 *   passes hard rules or unknown outcomes). A clear light `allow` stands; otherwise the strong tier decides;
 *   strong `ambiguous` DENIES (fail closed), and so does any failure. The rationale cites the machine-checked witness.
 * - `threat` (only with `guard.model.watcher: complement`): a ±1 level step proposed by the light model, asked only
 *   when the interaction had violations or injection evidence.
 * - `observe`: records a short summary of each decided interaction in a bounded per-session history (memory only).
 *
 * No hook throws: each returns the usage of its calls (failed ones included), which the pipeline sums into
 * `Decision.detail.llm` as `{ calls, promptTokens, completionTokens, ms }`.
 */

/** Model accounting of one hook call, as it appears in `Decision.detail.llm`. */
export type ModelUsage = {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  ms: number;
};

/** Proposes a ±1 step of the agent's threat level from one interaction. */
export type ThreatAdvisor = (input: {
  interaction: Interaction;
  /** Level after the numeric update of this interaction. */
  level: number;
  violations: RuleOutcome[];
  signal?: AbortSignal;
}) => Promise<{ delta: -1 | 0 | 1; reason: string; usage: ModelUsage }>;

/** Everything the pipeline needs from the model layer. */
export interface GuardModelHooks {
  semantic: SemanticEvaluator;
  expand: SemanticEvaluator;
  reviewer: SoftDenialReviewer;
  threat?: ThreatAdvisor;
  observe(i: Interaction, d: Decision): void;
  options: ModelOptions;
}

/** Sessions whose observation history is kept (least recently used are forgotten first). */
export const HISTORY_SESSIONS = 10_000;
const SUMMARY_CHARS = 240;

/** The hooks for `client` with `options` (the `guard.model` settings). */
export function createGuardModel(client: LlmClient, options: OptionsInput<ModelOptions> = {}, logger: Logger = silentLogger()): GuardModelHooks {
  const o = ModelOptionsSchema.parse(options);
  const log = logger.child({ mod: 'guard-model' });
  const history = new LruCache<string, string[]>(HISTORY_SESSIONS);
  const observations = (session: string): string[] => [...(history.get(session) ?? [])];

  const evaluator = (tier: 'light' | 'strong'): SemanticEvaluator =>
    async ({ predicates, interaction, current, signal }) => {
      const meter = new UsageMeter();
      const run = tier === 'light' ? evaluateSemanticPredicates : expandState;
      let r: SemanticPredicatesResult;
      try {
        r = await run(client, { predicates: predicates.map(semanticOf), interaction, observations: observations(interaction.session), current }, callOpts(meter, signal));
      } catch (err) {
        log.warn({ tier, err: errorMessage(err), predicates: predicates.map((p) => p.name) }, 'semantic predicates left unknown: the model did not answer properly');
        return { values: new Map(), usage: shortUsage(meter.total) };
      }
      const values = new Map<string, { value: Truth; confidence: number }>();
      for (const [name, v] of Object.entries(r.values)) if (v.value !== 'unknown') values.set(name, { value: v.value, confidence: v.confidence });
      return { values, usage: shortUsage(meter.total) };
    };

  const reviewer: SoftDenialReviewer = async ({ rules, threatLevel, signal, interaction }) => {
    const meter = new UsageMeter();
    if (interaction === undefined) return { ruling: 'deny', rationale: 'model review skipped: no interaction given; the denial stands' };
    try {
      const r = await hierarchicalReview(
        client,
        {
          interaction,
          violatedRules: rules.map((o) => ({ id: o.id, text: o.def.text, severity: o.def.severity, hard: o.def.hard })),
          witness: rules.map((o) => o.witness),
          threatLevel,
        },
        callOpts(meter, signal),
      );
      // `ambiguous` from the tier whose verdict stands denies: the verifier proved the violation, and the model
      // could not show it spurious (fail closed).
      const ruling = r.ruling === 'allow' ? 'allow' : 'deny';
      const how = r.ruling === 'ambiguous' ? 'could not decide (ambiguous), so the denial stands' : `ruled ${r.ruling}`;
      return { ruling, rationale: `${r.decidedBy} model ${how}${r.escalated ? ' after escalation' : ''}: ${r.rationale}`, usage: shortUsage(meter.total) };
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'model review of a soft denial failed; the denial stands');
      return { ruling: 'deny', rationale: `model review failed (${errorMessage(err).slice(0, 160)}); the denial stands`, usage: shortUsage(meter.total) };
    }
  };

  const threat: ThreatAdvisor = async ({ interaction, level, violations, signal }) => {
    const meter = new UsageMeter();
    try {
      const r = await threatLevelUpdate(
        client,
        {
          agent: interaction.agent,
          currentLevel: level,
          interaction,
          violations: violations.map((v) => ({ id: v.id, text: v.def.text, severity: v.def.severity })),
          observations: observations(interaction.session),
        },
        callOpts(meter, signal),
      );
      return { delta: r.delta, reason: r.reason, usage: shortUsage(meter.total) };
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'model threat update failed; the numeric level stands');
      return { delta: 0, reason: 'model failed', usage: shortUsage(meter.total) };
    }
  };

  return {
    semantic: evaluator('light'),
    expand: evaluator('strong'),
    reviewer,
    ...(o.watcher === 'complement' ? { threat } : {}),
    observe(i, d) {
      if (o.observations === 0) return;
      const list = history.get(i.session) ?? [];
      list.push(summarize(i, d));
      if (list.length > o.observations) list.splice(0, list.length - o.observations);
      history.set(i.session, list);
    },
    options: o,
  };
}

/** A one-line summary of a decided interaction, for the observations of later evaluations (untrusted text). */
export function summarize(i: Interaction, d: Pick<Decision, 'decision' | 'rules'>): string {
  const who =
    i.kind === 'message' ? `${i.sender ?? i.agent} → ${i.recipient ?? '?'}` : [i.server, i.tool ?? i.uri].filter((x) => x !== undefined).join('.');
  const body = i.arguments !== undefined ? JSON.stringify(i.arguments) : i.content !== undefined ? contentText(i.content) : '';
  const clipped = body.length > SUMMARY_CHARS ? `${body.slice(0, SUMMARY_CHARS)}…` : body;
  return `${i.kind} ${who}: ${clipped} → ${d.decision}${d.rules.length > 0 ? ` (${d.rules.join(', ')})` : ''}`;
}

/** Sums hook usages (absent ones skipped); `undefined` when none was given. */
export function addUsage(...items: Array<Record<string, number> | undefined>): ModelUsage | undefined {
  const present = items.filter((u): u is Record<string, number> => u !== undefined);
  if (present.length === 0) return undefined;
  const out: ModelUsage = { calls: 0, promptTokens: 0, completionTokens: 0, ms: 0 };
  for (const u of present) for (const k of ['calls', 'promptTokens', 'completionTokens', 'ms'] as const) out[k] += u[k] ?? 0;
  return out;
}

/** A signal that aborts when `signal` does or after `ms` (the per-interaction model budget). */
export function budgetSignal(signal: AbortSignal | undefined, ms: number): AbortSignal {
  const deadline = AbortSignal.timeout(ms);
  return signal ? AbortSignal.any([signal, deadline]) : deadline;
}

/**
 * The dense embedder of `llm.models.embedding` (probed once), or `undefined` with a warning when no embedding
 * model is configured or the endpoint fails at start-up: the guard then ranks with the local hashing embedder.
 */
export async function createModelEmbedder(client: LlmClient, logger: Logger = silentLogger()): Promise<Embedder | undefined> {
  if (client.config.models.embedding === undefined) return undefined;
  try {
    return await createOpenAiEmbedder(client);
  } catch (err) {
    logger.warn({ mod: 'guard-model', err: errorMessage(err) }, 'embedding model unavailable at start-up; falling back to the local embedder for top-k');
    return undefined;
  }
}

/**
 * Wraps a predicate index so that a failed query (embedding endpoint down or slow) returns no hits, with a
 * warning: the tracker then evaluates the must-check set only, and the interaction is still decided.
 */
export function resilientIndex(index: PredicateIndex, logger: Logger = silentLogger()): PredicateIndex {
  return {
    embedderId: index.embedderId,
    async topK(text, k, only) {
      try {
        return await index.topK(text, k, only);
      } catch (err) {
        logger.warn({ mod: 'guard-model', err: errorMessage(err) }, 'top-k retrieval failed; evaluating the must-check predicates only');
        return [];
      }
    },
  };
}

function semanticOf(p: CompiledPredicate): { name: string; description: string; keywords?: string[] } {
  return { name: p.name, description: p.def.description, ...(p.def.keywords ? { keywords: p.def.keywords } : {}) };
}

function callOpts(meter: UsageMeter, signal: AbortSignal | undefined): { meter: UsageMeter; signal?: AbortSignal } {
  return signal ? { meter, signal } : { meter };
}

function shortUsage(u: LlmUsage): ModelUsage {
  return { calls: u.calls, promptTokens: u.promptTokens, completionTokens: u.completionTokens, ms: u.ms };
}

/**
 * State expansion (QuadSentinel §4.3), run by the pipeline once per interaction after verification: the
 * semantic predicates in the witness of a violated or unknown rule that the light model decided with confidence
 * below `expand_below` are re-decided by the strong tier, and the track is revised with its answer. Predicates
 * the light model failed on are not expanded (the endpoint is failing: a second wait would only delay the
 * decision; they stay unknown). Returns `undefined` when nothing qualifies.
 */
export async function expandLowConfidence(
  hooks: GuardModelHooks,
  input: {
    book: CompiledBook;
    interaction: Interaction;
    track: TrackResult;
    outcomes: RuleOutcome[];
    sticky: ReadonlyMap<string, Truth>;
    signal?: AbortSignal;
  },
): Promise<{ track: TrackResult; usage: ModelUsage; predicates: string[] } | undefined> {
  const threshold = hooks.options.expand_below;
  if (threshold <= 0) return undefined;
  const weak = new Map<string, CompiledPredicate>();
  for (const o of input.outcomes) {
    for (const name of Object.keys(o.witness.predicates)) {
      const p = input.book.byName.get(name);
      const v = input.track.values.get(name);
      if (p?.semantic && v?.evidence === 'model' && (v.score ?? 0) < threshold) weak.set(name, p);
    }
  }
  if (weak.size === 0) return undefined;
  const current: Record<string, Truth> = {};
  for (const name of weak.keys()) current[name] = input.sticky.get(name) ?? 'false';
  const r = await hooks.expand({ predicates: [...weak.values()], interaction: input.interaction, current, ...(input.signal ? { signal: input.signal } : {}) });
  return { track: input.track.revise(r.values), usage: addUsage(r.usage) ?? { calls: 0, promptTokens: 0, completionTokens: 0, ms: 0 }, predicates: [...weak.keys()] };
}

/** τ at the lower bound of `level`'s band, so that τ and the level a model step set stay consistent. */
export function tauForLevel(level: number, bounds: readonly number[]): number {
  return level <= 0 ? 0 : (bounds[Math.min(level, bounds.length) - 1] ?? 1);
}
