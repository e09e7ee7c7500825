import { compileDetector } from '../detectors/index.js';
import { QuadGuardError } from '../core/errors.js';
import type { InteractionKind } from '../core/types.js';
import { baselineValue, classifyFormula } from './analysis.js';
import { formulaVars, type FormulaAst } from './ast.js';
import type { CompiledPredicate, CompiledRule } from './compiled.js';
import type { DiagnosticSink, PolicyCode } from './errors.js';
import { SCOPE_KINDS } from './evaluate.js';
import { compileGlob } from '../core/glob.js';
import { formatPath, locationOf, type DocPath, type Locator } from './location.js';
import { FormulaParseError, parseFormula } from './parse.js';
import type { PolicyBook } from './schema.js';
import { didYouMean } from './suggest.js';

/**
 * The checker: an ordered table of named stages (OPA's compiler) that turns a validated `PolicyBook` into
 * compiled predicates and rules, collecting errors (capped) and lint warnings into a `DiagnosticSink`.
 *
 * Decision: a rule whose formula is unsatisfiable (false under every assignment, so it denies every interaction
 * it applies to) is an ERROR, not a warning — a book that blocks everything is never what its author meant, and
 * DESIGN §5 asks that such rules be reported at load. A tautology (can never be violated) and a rule violated in
 * the all-false baseline (fires on every interaction where nothing was detected) are warnings: the first is dead
 * weight, the second is occasionally intended (e.g. `approved_by_human` obligations).
 */
export interface CheckContext {
  book: PolicyBook;
  sink: DiagnosticSink;
  locate?: Locator;
  bookDir?: string;
  predicates: CompiledPredicate[];
  byName: Map<string, CompiledPredicate>;
  /** Parsed formulas by rule index; undefined where parsing failed. */
  asts: Array<FormulaAst | undefined>;
  /** Rule indices whose formulas parsed and reference only defined predicates. */
  resolved: Set<number>;
  rules: CompiledRule[];
}

/** One named stage of the checker; it reads and extends the context and reports into its sink. */
export interface CheckStage {
  name: string;
  run(ctx: CheckContext): void;
}

function err(ctx: CheckContext, code: PolicyCode, message: string, path: DocPath, inner?: number): void {
  ctx.sink.error(code, message, locationOf(path, ctx.locate, inner));
}

function warn(ctx: CheckContext, code: PolicyCode, message: string, path: DocPath, inner?: number): void {
  ctx.sink.warn(code, message, locationOf(path, ctx.locate, inner));
}

function duplicatePredicates(ctx: CheckContext): void {
  const seen = new Map<string, number>();
  ctx.book.predicates.forEach((p, i) => {
    const first = seen.get(p.name);
    if (first !== undefined) {
      err(ctx, 'policy_duplicate_predicate', `predicate ${p.name} is defined twice (first at predicates[${first}])`, ['predicates', i, 'name']);
    } else seen.set(p.name, i);
  });
}

// Needs unique names (duplicatePredicates) only to decide which definition `byName` keeps: the first.
function compilePredicates(ctx: CheckContext): void {
  ctx.book.predicates.forEach((def, index) => {
    const detectors = def.detectors.flatMap((spec, j) => {
      const path: DocPath = ['predicates', index, 'detectors', j];
      try {
        return [compileDetector(spec, { path: formatPath(path), ...(ctx.bookDir ? { bookDir: ctx.bookDir } : {}) })];
      } catch (e) {
        // DetectorConfigError is the expected case; a factory that throws anything else is reported the same way.
        const msg = e instanceof QuadGuardError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);
        err(ctx, 'policy_detector_error', `predicate ${def.name}: ${msg}`, path);
        return [];
      }
    });
    let matchesTool: (t: string) => boolean = () => false;
    def.tools?.forEach((g, j) => {
      try {
        compileGlob(g);
      } catch (e) {
        err(ctx, 'policy_glob_error', `predicate ${def.name}: ${(e as Error).message}`, ['predicates', index, 'tools', j]);
      }
    });
    if (def.tools && def.tools.length > 0) {
      try {
        matchesTool = compileGlob(def.tools);
      } catch {
        // reported per glob above
      }
    }
    const p: CompiledPredicate = {
      name: def.name,
      def,
      detectors,
      semantic: def.detectors.length === 0,
      index,
      kinds: new Set<InteractionKind>(SCOPE_KINDS[def.scope]),
      matchesTool,
    };
    ctx.predicates.push(p);
    if (!ctx.byName.has(def.name)) ctx.byName.set(def.name, p);
  });
}

function parseFormulas(ctx: CheckContext): void {
  ctx.book.rules.forEach((r, i) => {
    try {
      ctx.asts[i] = parseFormula(r.formula);
    } catch (e) {
      if (!(e instanceof FormulaParseError)) throw e;
      ctx.asts[i] = undefined;
      err(ctx, 'policy_parse_error', `rule ${r.id}: ${e.message}`, ['rules', i, 'formula'], e.column);
    }
  });
}

function duplicateRules(ctx: CheckContext): void {
  const seen = new Map<string, number>();
  ctx.book.rules.forEach((r, i) => {
    const first = seen.get(r.id);
    if (first !== undefined) err(ctx, 'policy_duplicate_rule', `rule id ${r.id} is used twice (first at rules[${first}])`, ['rules', i, 'id']);
    else seen.set(r.id, i);
  });
}

// Needs parseFormulas and compilePredicates.
function resolvePredicates(ctx: CheckContext): void {
  ctx.book.rules.forEach((r, i) => {
    const ast = ctx.asts[i];
    if (!ast) return;
    let ok = true;
    for (const [name, column] of formulaVars(ast)) {
      if (ctx.byName.has(name)) continue;
      ok = false;
      const hint = didYouMean(name, ctx.byName.keys());
      err(
        ctx,
        'policy_undefined_predicate',
        `rule ${r.id} uses undefined predicate ${name}${hint ? ` (did you mean ${hint}?)` : ''}`,
        ['rules', i, 'formula'],
        column,
      );
    }
    if (ok) ctx.resolved.add(i);
  });
}

function buildRules(ctx: CheckContext): void {
  ctx.book.rules.forEach((def, index) => {
    const ast = ctx.asts[index];
    if (!ast || !ctx.resolved.has(index)) return;
    ctx.rules.push({
      id: def.id,
      def,
      ast,
      predicates: [...formulaVars(ast).keys()],
      onUnknown: def.on_unknown ?? (def.hard ? 'deny' : 'flag'),
      index,
    });
  });
}

function checkSatisfiable(ctx: CheckContext): void {
  for (const r of ctx.rules) {
    const path = ['rules', r.index, 'formula'];
    const cls = classifyFormula(r.ast, r.predicates);
    if (cls === 'unsatisfiable') {
      err(ctx, 'policy_rule_always_violated', `rule ${r.id}: formula "${r.def.formula}" is false under every assignment, so every interaction violates it`, path);
    } else if (cls === 'tautology') {
      warn(ctx, 'policy_rule_never_violated', `rule ${r.id}: formula "${r.def.formula}" is true under every assignment, so the rule can never be violated`, path);
    } else if (!baselineValue(r.ast)) {
      warn(
        ctx,
        'policy_rule_fires_on_baseline',
        `rule ${r.id}: violated when every predicate is false, so it fires on every ${r.def.applies_to.join('/')} where nothing was detected`,
        path,
      );
    }
  }
}

function checkUnused(ctx: CheckContext): void {
  const used = new Set(ctx.rules.flatMap((r) => r.predicates));
  // Rules that failed to resolve still count their defined names as used, so one typo does not cascade.
  ctx.asts.forEach((ast) => ast && [...formulaVars(ast).keys()].forEach((n) => used.add(n)));
  for (const p of ctx.predicates) {
    if (!used.has(p.name)) warn(ctx, 'policy_unused_predicate', `predicate ${p.name} is not used by any rule`, ['predicates', p.index, 'name']);
  }
}

function checkSemantic(ctx: CheckContext): void {
  for (const p of ctx.predicates) {
    if (!p.semantic) continue;
    warn(
      ctx,
      'policy_semantic_predicate',
      `predicate ${p.name} has no detector: it stays unknown until a model is configured, and rules using it follow their on_unknown`,
      ['predicates', p.index, 'name'],
    );
  }
}

function checkScopes(ctx: CheckContext): void {
  for (const r of ctx.rules) {
    for (const name of r.predicates) {
      const p = ctx.byName.get(name)!;
      // A sticky predicate may have become true on an earlier interaction of another kind: that is how
      // trajectory rules work, so only event predicates are reported.
      if (p.def.persistence === 'sticky') continue;
      if (r.def.applies_to.some((k) => p.kinds.has(k))) continue;
      warn(
        ctx,
        'policy_scope_mismatch',
        `rule ${r.id} applies to ${r.def.applies_to.join(', ')} but predicate ${name} has scope ${p.def.scope}: it is never evaluated there and stays false (widen its scope or make it sticky)`,
        ['rules', r.index, 'applies_to'],
      );
    }
  }
}

/** `effect: approve` asks a person to let a call through; a hard rule can never be let through, so the pair is an error. */
function checkEffects(ctx: CheckContext): void {
  ctx.book.rules.forEach((r, i) => {
    if (r.effect === 'approve' && r.hard) {
      err(ctx, 'policy_schema_error', `rule ${r.id} is hard and has effect approve: a hard rule always denies and cannot be approved (make it soft, or use effect deny)`, ['rules', i, 'effect']);
    }
  });
}

/** The stages, in order. Order matters where noted: each stage reads what earlier ones filled in. */
export const CHECK_STAGES: readonly CheckStage[] = [
  { name: 'duplicatePredicates', run: duplicatePredicates },
  { name: 'compilePredicates', run: compilePredicates }, // detectors and tool globs
  { name: 'parseFormulas', run: parseFormulas },
  { name: 'duplicateRules', run: duplicateRules },
  { name: 'resolvePredicates', run: resolvePredicates }, // needs compilePredicates + parseFormulas
  { name: 'buildRules', run: buildRules }, // needs resolvePredicates
  { name: 'checkSatisfiable', run: checkSatisfiable }, // needs buildRules
  { name: 'checkUnused', run: checkUnused },
  { name: 'checkSemantic', run: checkSemantic },
  { name: 'checkScopes', run: checkScopes }, // needs buildRules
  { name: 'checkEffects', run: checkEffects },
];

/** Runs every stage over a fresh context. Errors and warnings land in `sink`; nothing throws for book faults. */
export function runChecks(book: PolicyBook, sink: DiagnosticSink, opts: { locate?: Locator; bookDir?: string } = {}): CheckContext {
  const ctx: CheckContext = {
    book,
    sink,
    ...(opts.locate ? { locate: opts.locate } : {}),
    ...(opts.bookDir ? { bookDir: opts.bookDir } : {}),
    predicates: [],
    byName: new Map(),
    asts: [],
    resolved: new Set(),
    rules: [],
  };
  for (const stage of CHECK_STAGES) stage.run(ctx);
  return ctx;
}
