import { qualifiedTool } from '../detectors/fields.js';
import type { Interaction, InteractionKind } from '../guard/types.js';
import type { CompiledPredicate, CompiledRule } from './compiled.js';
import { predicateApplies } from './evaluate.js';

/**
 * The static dependency graph (QuadSentinel §4.5 step 2): which rules govern which interaction kinds, which rules
 * use which predicate, and which predicates are must-check for a given tool.
 */
export interface DependencyGraph {
  /** Rules checked on this interaction kind, in book order. */
  rulesFor(kind: InteractionKind): readonly CompiledRule[];
  /** Rules whose formula references this predicate, in book order. */
  rulesUsing(predicateName: string): readonly CompiledRule[];
  /**
   * The must-check set M_t: predicates whose `tools` globs match `<server>__<tool>`, plus every predicate of the
   * rules applying to this interaction kind that reference such a tool-matched predicate ("all antecedent
   * predicates required by rules governing that API"), plus every predicate of the *general* rules of this kind
   * (rules none of whose predicates is bound to tools, e.g. "no injection in messages"): those govern every
   * interaction of the kind, messages included. Only predicates whose scope applies to the interaction are
   * returned: the others keep their value in Γ (sticky) or are false (event).
   * Memoized per (kind, phase, qualified tool), so the cost per call does not grow with the book.
   */
  mustCheck(interaction: Interaction): readonly CompiledPredicate[];
}

/** Bound on memoized (kind, tool) entries; a hostile stream of invented tool names cannot grow memory forever. */
export const MUST_CHECK_CACHE_LIMIT = 4096;

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** Builds the graph of a compiled book's predicates and rules. */
export function buildGraph(predicates: readonly CompiledPredicate[], rules: readonly CompiledRule[]): DependencyGraph {
  const byKind = new Map<InteractionKind, CompiledRule[]>();
  const byPredicate = new Map<string, CompiledRule[]>();
  for (const r of rules) {
    for (const k of new Set(r.def.applies_to)) push(byKind, k, r);
    for (const n of r.predicates) push(byPredicate, n, r);
  }
  const byName = new Map(predicates.map((p) => [p.name, p] as const));
  const withTools = predicates.filter((p) => (p.def.tools?.length ?? 0) > 0);
  const cache = new Map<string, readonly CompiledPredicate[]>();
  const none: readonly CompiledPredicate[] = Object.freeze([]);

  // Rules that reference no tool-bound predicate govern every interaction of their kinds.
  const toolBound = new Set(withTools.map((p) => p.name));
  const generalByKind = new Map<InteractionKind, string[]>();
  for (const [kind, rs] of byKind) {
    const names = new Set<string>();
    for (const r of rs) if (!r.predicates.some((n) => toolBound.has(n))) for (const n of r.predicates) names.add(n);
    generalByKind.set(kind, [...names]);
  }

  function compute(interaction: Interaction, tool: string | undefined): readonly CompiledPredicate[] {
    const matched = tool === undefined ? [] : withTools.filter((p) => p.matchesTool(tool));
    const names = new Set([...matched.map((p) => p.name), ...(generalByKind.get(interaction.kind) ?? [])]);
    if (names.size === 0) return none;
    const governing = new Set(byKind.get(interaction.kind) ?? []);
    for (const p of matched) {
      for (const r of byPredicate.get(p.name) ?? []) {
        if (governing.has(r)) for (const n of r.predicates) names.add(n);
      }
    }
    return Object.freeze(
      [...names]
        .map((n) => byName.get(n)!)
        .filter((p) => p !== undefined && predicateApplies(p, interaction))
        .sort((a, b) => a.index - b.index),
    );
  }

  return {
    rulesFor: (kind) => byKind.get(kind) ?? [],
    rulesUsing: (name) => byPredicate.get(name) ?? [],
    mustCheck(interaction) {
      const tool = qualifiedTool(interaction);
      const key = `${interaction.kind}\u0000${interaction.phase ?? ''}\u0000${tool ?? ''}`;
      let hit = cache.get(key);
      if (hit === undefined) {
        hit = compute(interaction, tool);
        if (cache.size >= MUST_CHECK_CACHE_LIMIT) cache.clear();
        cache.set(key, hit);
      }
      return hit;
    },
  };
}
