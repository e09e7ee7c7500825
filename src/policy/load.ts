import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isScalar, LineCounter, parseDocument, Scalar, type Document } from 'yaml';
import { compileBook, type CompileResult } from './compile.js';
import { DiagnosticSink } from './errors.js';
import type { DocPath, Locator } from './location.js';

/**
 * Loading a book from disk: find the file, parse YAML (JSON is YAML too, so one parser gives positions for
 * both), map zod issue paths back to line:column, then compile.
 */

/** File names looked for, in order, when a book path is a directory. */
export const BOOK_FILES = ['book.yaml', 'book.yml', 'book.json'] as const;

/** Resolves a book path (a directory holding `book.yaml`/`book.json`, or a file) to the file and its directory. */
export async function resolveBookFile(path: string): Promise<{ file: string; dir: string }> {
  const sink = new DiagnosticSink(path);
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    sink.error('policy_read_error', `cannot read policy book: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    sink.throwIfErrors();
  }
  if (!st!.isDirectory()) return { file: path, dir: dirname(path) };
  for (const name of BOOK_FILES) {
    const file = join(path, name);
    if (await stat(file).then((s) => s.isFile(), () => false)) return { file, dir: path };
  }
  sink.error('policy_read_error', `no ${BOOK_FILES.join(' or ')} in this directory`);
  sink.throwIfErrors();
  throw new Error('unreachable');
}

/** A locator over a parsed YAML document: the node at a path, or its nearest existing ancestor. */
export function yamlLocator(doc: Document, text: string, lines: LineCounter): Locator {
  return (path: DocPath, innerColumn?: number) => {
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
      const range = (node as { range?: [number, number, number] } | undefined)?.range;
      if (!range) continue;
      const pos = lines.linePos(range[0]);
      let column = pos.col;
      if (n === path.length && innerColumn !== undefined && isScalar(node)) {
        const raw = text.slice(range[0], range[1]);
        const quoted = node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE;
        // Only single-line plain or quoted scalars map columns one-to-one (escapes aside).
        if (!raw.includes('\n') && (quoted || node.type === Scalar.PLAIN)) column += (quoted ? 1 : 0) + innerColumn - 1;
      }
      return { line: pos.line, column };
    }
    return undefined;
  };
}

/** Parses book text; YAML errors become `policy_yaml_error` with line:column (all of them, capped). */
export function parseBookText(text: string, file: string): { raw: unknown; locate: Locator } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true });
  if (doc.errors.length > 0) {
    const sink = new DiagnosticSink(file);
    for (const e of doc.errors) {
      const first = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      const pos = e.linePos?.[0];
      sink.error('policy_yaml_error', `${first} (${e.code})`, pos ? { line: pos.line, column: pos.col } : undefined);
    }
    sink.throwIfErrors();
  }
  return { raw: doc.toJS({ maxAliasCount: 100 }), locate: yamlLocator(doc, text, lines) };
}

/**
 * Loads, validates and compiles a book from a directory (`<dir>/book.yaml`, `book.yml` or `book.json`) or a
 * file. Throws `PolicyBookError` with every error found (`policy_read_error`, `policy_yaml_error`,
 * `policy_schema_error`, check errors), each with file and line:column where known.
 *
 * @example const { compiled, warnings } = await loadBook('policies/default');
 */
export async function loadBook(path: string): Promise<CompileResult & { file: string }> {
  const { file, dir } = await resolveBookFile(path);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const sink = new DiagnosticSink(file);
    sink.error('policy_read_error', `cannot read policy book: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    sink.throwIfErrors();
    throw e;
  }
  const { raw, locate } = parseBookText(text, file);
  return { ...compileBook(raw as never, { file, bookDir: dir, locate }), file };
}
