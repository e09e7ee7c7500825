import type { Interaction } from '../core/types.js';
import type { CompiledPredicate } from '../policy/compiled.js';
import { evaluatePredicate, type PredicateValue } from '../policy/evaluate.js';

/**
 * The detector that makes a long text's one scan (detectors/scan.ts `scanOf`): the injection scorer. The secrets
 * prefilters and the audit masker ask a scan only when one was made, since their own passes cost less than making it.
 */
const SCANNING_DETECTOR = 'injection';

/** Whether a predicate has a detector that scans the long texts it reads. */
function scans(p: CompiledPredicate): boolean {
  return p.def.detectors.some((d) => d.type === SCANNING_DETECTOR);
}

/**
 * Each predicate's value on `i`, keyed in the order of `predicates`, the predicates with a scanning detector evaluated
 * first. Evaluation is pure (detectors keep only caches of what they computed), so the order changes no value; it
 * changes which detector reads a long text first. In the default book the secrets predicates come before the
 * injection one, so the secrets prefilter read a 200 KB result through twice (its literals and its token runs) just
 * before the scorer scanned it; now it asks the scorer's scan (test/guard/scan-first.test.ts).
 */
export function evaluateScanningFirst(predicates: readonly CompiledPredicate[], i: Interaction): Map<string, PredicateValue> {
  const values = new Map<string, PredicateValue>();
  const first = predicates.findIndex(scans);
  if (first <= 0) {
    for (const p of predicates) values.set(p.name, evaluatePredicate(p, i));
    return values;
  }
  const early = new Map<string, PredicateValue>();
  for (let k = first; k < predicates.length; k++) if (scans(predicates[k]!)) early.set(predicates[k]!.name, evaluatePredicate(predicates[k]!, i));
  for (const p of predicates) values.set(p.name, early.get(p.name) ?? evaluatePredicate(p, i));
  return values;
}
