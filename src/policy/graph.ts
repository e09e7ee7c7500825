import { qualifiedTool } from '../core/fields.js';
import type { Interaction, InteractionKind, Truth } from '../core/types.js';
import type { CompiledPredicate, CompiledRule, DependencyGraph } from './compiled.js';
import { predicateApplies } from './evaluate.js';
import { evalFormula } from './kleene.js';

export type { DependencyGraph } from './compiled.js';

/** Bound on memoized (kind, tool) entries; a hostile stream of invented tool names cannot grow memory forever. */
export const MUST_CHECK_CACHE_LIMIT = 4096;

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** Rules with more free predicates than this are taken as violable without their tool-bound ones (not enumerated). */
const MAX_ENUMERATED = 12;

/**
 * Whether some values of `r`'s predicates that are not in `bound`, with those in `bound` false, violate the rule
 * (its formula false). A rule without bound predicates is violable unless it always holds; every assignment is
 * tried, and a rule past MAX_ENUMERATED free predicates counts as violable (more must-check, never less).
 */
export function violableWithout(r: CompiledRule, bound: ReadonlySet<string>): boolean {
  const free = r.predicates.filter((n) => !bound.has(n));
  if (free.length > MAX_ENUMERATED) return true;
  if (free.length === r.predicates.length) return true;
  const value = new Map<string, Truth>();
  for (let bits = 0; bits < 1 << free.length; bits++) {
    free.forEach((n, k) => value.set(n, (bits >> k) & 1 ? 'true' : 'false'));
    if (evalFormula(r.ast, (n) => value.get(n) ?? 'false') === 'false') return true;
  }
  return false;
}

/** Builds the graph of a compiled book's predicates and rules. */
export function buildGraph(predicates: readonly CompiledPredicate[], rules: readonly CompiledRule[]): DependencyGraph {
  const byKind = new Map<InteractionKind, CompiledRule[]>();
  const byPredicate = new Map<string, CompiledRule[]>();
  for (const r of rules) {
    for (const k of r.kinds) push(byKind, k, r);
    for (const n of r.predicates) push(byPredicate, n, r);
  }
  const byName = new Map(predicates.map((p) => [p.name, p] as const));
  const withTools = predicates.filter((p) => (p.def.tools?.length ?? 0) > 0);
  const cache = new Map<string, readonly CompiledPredicate[]>();
  const none: readonly CompiledPredicate[] = Object.freeze([]);

  // A rule that can be violated while its tool-bound predicates are false (it references none, or a disjunction
  // such as `!(sent_by_tool | secret_in_text)`) governs every interaction of its kinds: its other predicates are
  // must-check whatever the tool. An interaction with no tool (a resource or prompt read, a message, a sampling or
  // elicitation request) matches no `tools` glob, so nothing narrows the rules of its kind: each is governed by all
  // of them (`injection_in_result`, bound to every tool, is checked on resource and prompt results too).
  const toolBound = new Set(withTools.map((p) => p.name));
  const generalByKind = new Map<InteractionKind, string[]>();
  const allByKind = new Map<InteractionKind, string[]>();
  for (const [kind, rs] of byKind) {
    const general = new Set<string>();
    const all = new Set<string>();
    for (const r of rs) {
      for (const n of r.predicates) all.add(n);
      if (violableWithout(r, toolBound)) for (const n of r.predicates) if (!toolBound.has(n)) general.add(n);
    }
    generalByKind.set(kind, [...general]);
    allByKind.set(kind, [...all]);
  }

  function compute(interaction: Interaction, tool: string | undefined): readonly CompiledPredicate[] {
    const matched = tool === undefined ? [] : withTools.filter((p) => p.matchesTool(tool));
    const names = new Set([...matched.map((p) => p.name), ...((tool === undefined ? allByKind : generalByKind).get(interaction.kind) ?? [])]);
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
      const key = `${interaction.kind}\u0000${tool ?? ''}`;
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
