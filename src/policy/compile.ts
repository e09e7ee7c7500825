import { bookHash } from './book-hash.js';
import { runChecks } from './check.js';
import type { CompiledBook } from './compiled.js';
import { DiagnosticSink, type PolicyDiagnostic } from './errors.js';
import { buildGraph } from './graph.js';
import { locationOf, zodIssueLines, type Locator } from './location.js';
import { PolicyBookSchema, type PolicyBook, type PolicyBookInput } from './schema.js';

/** Options of `compileBook`. */
export interface CompileOptions {
  /** Directory of the book, for detectors that load side files. */
  bookDir?: string;
  /** File name used in diagnostics. */
  file?: string;
  /** Maps document paths to line:column (set by `loadBook`). */
  locate?: Locator;
}

/** A compiled book plus the lint warnings found on the way. */
export interface CompileResult {
  compiled: CompiledBook;
  warnings: PolicyDiagnostic[];
}

/**
 * Validates (zod), checks (every stage of `CHECK_STAGES`) and compiles a policy book. Throws `PolicyBookError`
 * (a `PolicyError`) carrying every error found, capped at 10; returns the warnings otherwise.
 *
 * @example
 * const { compiled, warnings } = compileBook(book, { bookDir: 'policies/default' });
 */
export function compileBook(book: PolicyBook | PolicyBookInput, opts: CompileOptions = {}): CompileResult {
  const sink = new DiagnosticSink(opts.file);
  const parsed = PolicyBookSchema.safeParse(book);
  if (!parsed.success) {
    for (const { path, message } of zodIssueLines(parsed.error)) {
      sink.error('policy_schema_error', `${path.length ? `${locationOf(path).path}: ` : ''}${message}`, locationOf(path, opts.locate));
    }
    sink.throwIfErrors();
  }
  const valid = parsed.data!;
  const ctx = runChecks(valid, sink, {
    ...(opts.locate ? { locate: opts.locate } : {}),
    ...(opts.bookDir ? { bookDir: opts.bookDir } : {}),
  });
  sink.throwIfErrors();
  const compiled: CompiledBook = {
    book: valid,
    hash: bookHash(valid),
    ...(opts.bookDir ? { dir: opts.bookDir } : {}),
    predicates: ctx.predicates,
    byName: ctx.byName,
    rules: ctx.rules,
    graph: buildGraph(ctx.predicates, ctx.rules),
  };
  return { compiled, warnings: sink.warnings };
}
