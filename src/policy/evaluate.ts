import type { DetectorResult } from '../detectors/types.js';
import { scopeCovers } from '../core/kinds.js';
import type { Interaction, Truth, Witness } from '../core/types.js';
import type { CompiledPredicate, CompiledRule } from './compiled.js';
import { and3, evalFormula, or3 } from './kleene.js';
import type { Predicate } from './schema.js';
import { buildWitness } from './witness.js';

/**
 * Per-interaction evaluation of a compiled book: predicates by their detectors, rules in three-valued logic.
 * Takes only compiled objects; nothing is parsed or compiled here.
 */
export { evalFormula } from './kleene.js';

/** The value of one predicate on one interaction, with what the detectors saw. */
export interface PredicateValue {
  value: Truth;
  /** Strength of the evidence behind a `true` value, in [0, 1]. */
  score?: number;
  evidence?: string;
  spans?: DetectorResult['spans'];
  /** Each detector's own answer, in book order (for `policy explain`). */
  detectors: Array<DetectorResult & { type: string }>;
}

/** Interaction kinds each predicate scope can speak about: the table of core/kinds.ts. */
export { SCOPE_KINDS } from '../core/kinds.js';

/**
 * Whether a predicate speaks about this interaction: its scope covers the interaction's kind in the table of
 * core/kinds.ts (`action`: tool calls, resource and prompt requests; `result`: their results; `message`:
 * messages; `any`: all).
 */
export function predicateApplies(p: CompiledPredicate | Predicate, i: Interaction): boolean {
  return scopeCovers('def' in p ? p.def.scope : p.scope, i.kind);
}

function detectorName(d: (i: Interaction) => DetectorResult): string {
  return d.name || 'detector';
}

function runDetector(d: CompiledPredicate['detectors'][number], i: Interaction): DetectorResult & { type: string } {
  const type = detectorName(d);
  try {
    // Object.assign copies the same own properties, in the same order, as `{ ...r, type }`, without the spread's
    // megamorphic object-clone path (one result shape per detector type reaches this one site).
    const out = Object.assign({}, d(i)) as DetectorResult & { type: string };
    out.type = type;
    return out;
  } catch (err) {
    // Fail closed at the rule level: a broken detector makes the predicate unknown, never a silent false.
    const msg = err instanceof Error ? err.message : String(err);
    return { value: 'unknown', evidence: `detector ${type} failed: ${msg.slice(0, 200)}`, type };
  }
}

/**
 * Runs a predicate's detectors on an interaction and combines them per `combine` (`any`: three-valued OR,
 * `all`: three-valued AND). A semantic predicate (no detectors) is `unknown`; a throwing detector counts as
 * `unknown`. Does not check scope: see `predicateApplies`.
 */
export function evaluatePredicate(p: CompiledPredicate, interaction: Interaction): PredicateValue {
  if (p.detectors.length === 0) {
    return { value: 'unknown', evidence: 'semantic predicate: stays unknown until a model is configured', detectors: [] };
  }
  const all = p.def.combine === 'all';
  const results: PredicateValue['detectors'] = [];
  let value: Truth = all ? 'true' : 'false';
  for (const d of p.detectors) {
    const r = runDetector(d, interaction);
    results.push(r);
    value = all ? and3(value, r.value) : or3(value, r.value);
  }
  // Hot path: nothing found and no detector has anything to say.
  if (value === 'false' && results.every((r) => r.evidence === undefined)) return { value, detectors: results };
  // The detectors that decided the outcome: the true ones for a true OR, the false ones for a false AND, etc.
  const deciding = results.filter((r) => r.value === value);
  const out: PredicateValue = { value, detectors: results };
  if (value === 'true') {
    const scores = deciding.map((r) => r.score ?? 1);
    out.score = all ? Math.min(...scores) : Math.max(...scores);
    const spans = deciding.flatMap((r) => r.spans ?? []);
    if (spans.length > 0) out.spans = spans;
  }
  const evidence = deciding.map((r) => r.evidence).filter((e): e is string => !!e);
  if (evidence.length > 0) out.evidence = evidence.join('; ');
  return out;
}

/** Outcome of one rule under the current predicate values. */
export interface RuleCheck {
  status: 'satisfied' | 'violated' | 'unknown';
  /** Present for `violated` and `unknown`: the minimal predicate set behind the outcome. */
  witness?: Witness;
}

/**
 * Checks one rule: its formula is the safety obligation, so `false` = violated, `unknown` = undecided (the
 * rule's `onUnknown` then decides), `true` = satisfied. `scoreOf` gives detector scores for the witness
 * confidence (default 1 per decided predicate).
 */
export function checkRule(
  rule: CompiledRule,
  lookup: (name: string) => Truth,
  scoreOf?: (name: string) => number | undefined,
): RuleCheck {
  const v = evalFormula(rule.ast, lookup);
  if (v === 'true') return { status: 'satisfied' };
  const witness = buildWitness(rule.id, rule.ast, rule.predicates, lookup, scoreOf);
  return witness ? { status: v === 'false' ? 'violated' : 'unknown', witness } : { status: v === 'false' ? 'violated' : 'unknown' };
}
