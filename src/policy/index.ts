/**
 * The policy layer: load → parse → check → evaluate, plus signing and the dependency graph. Imports neither the
 * proxy nor the MCP SDK.
 */
export * from './schema.js';
export type { FormulaAst } from './ast.js';
export { formulaVars, formulaToString } from './ast.js';
export { parseFormula, FormulaParseError, type ParseErrorReason } from './parse.js';
export { compileGlob, globToRegexSource, type GlobMatcher } from '../core/glob.js';
export { PolicyBookError, DiagnosticSink, formatDiagnostic, ERROR_LIMIT, type PolicyDiagnostic, type PolicyCode } from './errors.js';
export type { CompiledBook, CompiledPredicate, CompiledRule, OnUnknown } from './compiled.js';
export { compileBook, type CompileOptions, type CompileResult } from './compile.js';
export { CHECK_STAGES, runChecks, type CheckStage, type CheckContext } from './check.js';
export { loadBook, resolveBookFile, parseBookText, BOOK_FILES } from './load.js';
export { formatPath, type DocPath, type Locator } from './location.js';
export { not3, and3, or3, implies3 } from './kleene.js';
export {
  evalFormula,
  evaluatePredicate,
  predicateApplies,
  checkRule,
  SCOPE_KINDS,
  type PredicateValue,
  type RuleCheck,
} from './evaluate.js';
export { buildWitness, minimalWitness, EXACT_WITNESS_BOUND, UNKNOWN_CONFIDENCE } from './witness.js';
export { buildGraph, MUST_CHECK_CACHE_LIMIT, type DependencyGraph } from './graph.js';
export { classifyFormula, baselineValue, TRUTH_TABLE_BOUND, type FormulaClass } from './analysis.js';
export { didYouMean, editDistance } from './suggest.js';
export { canonicalBook, bookHash } from './book-hash.js';
export {
  signBook,
  verifyBook,
  signCompiled,
  verifyCompiled,
  generateSigningKeys,
  signaturePath,
  keyId,
  BookSignatureSchema,
  type BookSignature,
} from './sign.js';
export { evaluateBook, type BookReport, type PredicateReport, type RuleReport, type EvaluationSet } from './explain.js';
