import type { ErrorLocation } from '../core/errors.js';
import type { z } from 'zod';

/** A path inside a book document, e.g. `['rules', 2, 'formula']`. */
export type DocPath = ReadonlyArray<string | number>;

/**
 * Maps a document path to a 1-based line and column in the source file. `innerColumn` (1-based, into the string
 * value) refines the column for single-line scalars, e.g. a parse error inside a formula.
 */
export type Locator = (path: DocPath, innerColumn?: number) => { line: number; column: number } | undefined;

/** `rules[2].formula` */
export function formatPath(path: DocPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** Location of a document path: dotted path plus line:column when a locator knows them. */
export function locationOf(path: DocPath, locate?: Locator, innerColumn?: number): ErrorLocation {
  const pos = locate?.(path, innerColumn);
  return pos ? { path: formatPath(path), line: pos.line, column: pos.column } : { path: formatPath(path) };
}

/** One line per zod issue: `rules[2].formula: message`. */
export function zodIssueLines(error: z.ZodError): Array<{ path: DocPath; message: string }> {
  return error.issues.map((issue) => ({
    path: issue.path.filter((p): p is string | number => typeof p !== 'symbol'),
    message: issue.message,
  }));
}
