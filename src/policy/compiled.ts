import type { Detector } from '../detectors/types.js';
import type { Interaction, InteractionKind } from '../core/types.js';
import type { FormulaAst } from './ast.js';
import type { Predicate, PolicyBook, Rule } from './schema.js';

/**
 * The compiled policy book: what the guard evaluates against. Built once by `compileBook` (prepare once,
 * evaluate often); nothing here is re-parsed per interaction.
 */
/** A predicate with its detectors compiled and tool globs ready. */
export interface CompiledPredicate {
  name: string;
  def: Predicate;
  /** Compiled detectors, in book order. */
  detectors: Detector[];
  /** No detectors: only a model can decide it; `unknown` until one is configured. */
  semantic: boolean;
  /** Position in `book.predicates`. */
  index: number;
  /** Interaction kinds the predicate's scope lets it speak about. */
  kinds: ReadonlySet<InteractionKind>;
  /** Matches `<server>__<tool>` against the predicate's `tools` globs (always false without globs). */
  matchesTool: (qualifiedTool: string) => boolean;
}

/** What an undecided rule outcome does (DESIGN §3). */
export type OnUnknown = 'deny' | 'allow' | 'flag';

/** A rule with its parsed formula and defaults resolved. */
export interface CompiledRule {
  id: string;
  def: Rule;
  ast: FormulaAst;
  /** Referenced predicate names, in order of first appearance. */
  predicates: string[];
  /** `def.on_unknown`, defaulted: `deny` for hard rules, `flag` for soft ones. */
  onUnknown: OnUnknown;
  /** Position in `book.rules`. */
  index: number;
}

/** A validated, checked book ready for per-interaction evaluation (see `compileBook`). */
export interface CompiledBook {
  /** The book with schema defaults applied. */
  book: PolicyBook;
  /** sha256 hex of the canonical form (`canonicalBook`), what signatures cover. */
  hash: string;
  /** Directory of the book, when loaded from disk (detectors resolve side files against it). */
  dir?: string;
  predicates: CompiledPredicate[];
  byName: Map<string, CompiledPredicate>;
  rules: CompiledRule[];
  graph: DependencyGraph;
}

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
