import type { Detector } from '../detectors/types.js';
import type { InteractionKind } from '../guard/types.js';
import type { FormulaAst } from './ast.js';
import type { DependencyGraph } from './graph.js';
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
