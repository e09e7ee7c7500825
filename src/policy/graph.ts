import { qualifiedTool } from '../core/fields.js';
import type { Interaction, InteractionKind } from '../core/types.js';
import type { CompiledPredicate, CompiledRule, DependencyGraph } from './compiled.js';
import { predicateApplies } from './evaluate.js';

export type { DependencyGraph } from './compiled.js';

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
