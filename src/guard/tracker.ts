import { TrackerOptionsSchema, type OptionsInput, type TrackerOptions } from './options.js';
import type { CompiledBook, CompiledPredicate } from '../policy/compiled.js';
import { predicateApplies, type PredicateValue } from '../policy/evaluate.js';
import type { PredicateIndex } from '../retrieval/predicate-index.js';
import { SparsePredicateIndex } from '../retrieval/predicate-index.js';
import { retrievalText } from './retrieval-text.js';
import { evaluateScanningFirst } from './scan-first.js';
import type { Interaction, Truth } from '../core/types.js';

/**
 * The state tracker (QuadSentinel §4.1): for each interaction, the candidate set C = TopK ∪ MustCheck, evaluated
 * with the toolbox detectors (and, where configured, a model for semantic predicates). Only C is evaluated; the
 * frame assumption fills in the rest: event predicates not evaluated are false, sticky ones keep their value in Γ.
 */

/**
 * Evaluates semantic predicates (no detector) with a model. Returns a value and confidence per predicate it
 * decided; predicates it leaves out stay unknown. Throwing leaves them all unknown.
 */
export type SemanticEvaluator = (input: {
  predicates: CompiledPredicate[];
  interaction: Interaction;
  current: Record<string, Truth>;
  signal?: AbortSignal;
}) => Promise<{ values: Map<string, { value: Truth; confidence: number }>; usage?: Record<string, number> }>;

/**
 * Evaluates the candidates' detectors, in their order: on the event loop (`evaluateHere`), or, for an interaction
 * with long texts, in the worker pool (long-texts.ts), with the same values.
 */
export type EvaluatePredicates = (predicates: readonly CompiledPredicate[], i: Interaction) => Map<string, PredicateValue> | Promise<Map<string, PredicateValue>>;

/** Every predicate's detectors run here, on the event loop (a long text's scanning detector first: scan-first.ts). */
export function evaluateHere(predicates: readonly CompiledPredicate[], i: Interaction): Map<string, PredicateValue> {
  return evaluateScanningFirst(predicates, i);
}

/** What the tracker found for one interaction. */
export interface TrackResult {
  /** Names of the predicates evaluated (C, restricted to those whose scope applies). */
  candidates: string[];
  /** Their values on this interaction. */
  values: Map<string, PredicateValue>;
  /** Γ_t: evaluated value, else the sticky value, else false. */
  lookup: (name: string) => Truth;
  scoreOf: (name: string) => number | undefined;
  /** Predicates whose value in Γ_t is not false: only rules over these can differ from their baseline. */
  touched: Set<string>;
  /** Sticky predicates that became true here; committed to Γ only if the interaction is allowed. */
  newlySticky: string[];
  /** Model accounting of semantic evaluation, when a model was consulted. */
  usage?: Record<string, number>;
  /**
   * Γ_t with some predicates re-decided (state expansion, §4.3): a new result whose lookup, touched set and
   * newly-sticky list reflect `updates`; this one is left as it was.
   */
  revise(updates: ReadonlyMap<string, { value: Truth; confidence: number }>): TrackResult;
}

/** k for a book of `n` predicates at a threat level. */
export function candidateBudget(n: number, level: number, o: TrackerOptions): number {
  const share = o.k_fraction + o.k_fraction_per_level * level;
  return Math.min(n, Math.max(o.k_min, Math.min(o.k_max, Math.ceil(n * share))));
}

/**
 * Builds the tracker over a compiled book and its predicate index.
 *
 * @example
 * const track = createTracker(book, index);
 * const t = await track(interaction, 0, new Map());
 */
export function createTracker(
  book: CompiledBook,
  index: PredicateIndex,
  options: OptionsInput<TrackerOptions> = {},
  semantic?: SemanticEvaluator,
  evaluate: EvaluatePredicates = evaluateHere,
) {
  const o = TrackerOptionsSchema.parse(options);
  const sparse = index instanceof SparsePredicateIndex ? index : undefined;
  // How many predicates speak about each kind of interaction (scope depends on the kind alone). Must-check lists only
  // such predicates, each once: when it lists them all, top-k could add none, and the retrieval is not run.
  const applicable = new Map<Interaction['kind'], number>();
  const applicableTo = (i: Interaction): number => {
    let n = applicable.get(i.kind);
    if (n === undefined) applicable.set(i.kind, (n = new Set(book.predicates.filter((p) => predicateApplies(p, i)).map((p) => p.name)).size));
    return n;
  };

  async function topK(i: Interaction, k: number): Promise<CompiledPredicate[]> {
    if (k <= 0) return [];
    const text = retrievalText(i);
    // Ask for more than k, then keep the k best whose scope applies: a message should not spend its budget on
    // action-only predicates.
    const want = Math.min(book.predicates.length, k * 3);
    const hits = sparse ? sparse.topKSync(text, want) : await index.topK(text, want);
    const out: CompiledPredicate[] = [];
    for (const h of hits) {
      const p = book.byName.get(h.name);
      if (p && predicateApplies(p, i)) out.push(p);
      if (out.length >= k) break;
    }
    return out;
  }

  return async function tracker(i: Interaction, level: number, sticky: ReadonlyMap<string, Truth>, signal?: AbortSignal): Promise<TrackResult> {
    const chosen = new Map<string, CompiledPredicate>();
    for (const p of book.graph.mustCheck(i)) chosen.set(p.name, p);
    if (chosen.size < applicableTo(i)) for (const p of await topK(i, candidateBudget(book.predicates.length, level, o))) chosen.set(p.name, p);

    const values = await evaluate([...chosen.values()], i);
    const semanticCandidates: CompiledPredicate[] = [];
    for (const p of chosen.values()) if (p.semantic) semanticCandidates.push(p);

    let usage: Record<string, number> | undefined;
    if (semantic && semanticCandidates.length > 0) {
      const current: Record<string, Truth> = {};
      for (const p of semanticCandidates) current[p.name] = sticky.get(p.name) ?? 'false';
      try {
        const r = await semantic({ predicates: semanticCandidates, interaction: i, current, ...(signal ? { signal } : {}) });
        usage = r.usage;
        for (const [name, v] of r.values) {
          if (values.has(name)) values.set(name, { value: v.value, score: v.confidence, evidence: 'model', detectors: [] });
        }
      } catch {
        // The model failed: its predicates stay unknown and each rule's on_unknown decides.
      }
    }

    return finish(chosen, values, sticky, usage);
  };

  /** Derives Γ_t, the touched set and the newly sticky predicates from the evaluated values. */
  function finish(
    chosen: ReadonlyMap<string, CompiledPredicate>,
    values: Map<string, PredicateValue>,
    sticky: ReadonlyMap<string, Truth>,
    usage: Record<string, number> | undefined,
  ): TrackResult {
    const lookup = (name: string): Truth => {
      if (sticky.get(name) === 'true') return 'true';
      return values.get(name)?.value ?? 'false';
    };
    const touched = new Set<string>();
    for (const [name, v] of values) if (v.value !== 'false') touched.add(name);
    for (const [name, v] of sticky) if (v === 'true') touched.add(name);
    const newlySticky: string[] = [];
    for (const [name, v] of values) {
      if (v.value === 'true' && sticky.get(name) !== 'true' && book.byName.get(name)?.def.persistence === 'sticky') newlySticky.push(name);
    }
    return {
      candidates: [...chosen.keys()],
      values,
      lookup,
      scoreOf: (name) => values.get(name)?.score,
      touched,
      newlySticky,
      ...(usage ? { usage } : {}),
      revise(updates) {
        const next = new Map(values);
        for (const [name, v] of updates) {
          if (next.has(name)) next.set(name, { value: v.value, score: v.confidence, evidence: 'model', detectors: [] });
        }
        return finish(chosen, next, sticky, usage);
      },
    };
  }
}
export type Tracker = ReturnType<typeof createTracker>;
