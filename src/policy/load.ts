import { createRequire } from 'node:module';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Document, LineCounter } from 'yaml';
import { compileBook, type CompileResult } from './compile.js';
import { DiagnosticSink } from './errors.js';
import type { DocPath, Locator } from './location.js';
import { parseYamlSubset, subsetNodeAt } from './yaml-subset.js';

/**
 * Loading a book from disk: find the file, parse YAML (JSON is YAML too, so one parser gives positions for
 * both), map zod issue paths back to line:column, then compile. Books written in the plain subset of YAML that
 * `yaml-subset.ts` reads (every shipped book) are read by it, with the same result; the `yaml` library, which
 * costs more to load and run cold than the rest of `policy check`, is loaded only for the others.
 */

/** `yaml`, loaded on first use (it is CommonJS, so `require` gives the module every `import` of it gets). */
let yamlModule: typeof import('yaml') | undefined;
function yaml(): typeof import('yaml') {
  return (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));
}

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

/** What a locator needs of the node at a path: where it starts, and for a scalar its source and style. */
interface NodeSpan {
  start: number;
  end?: number;
  /** Single-line plain or quoted scalars map columns one-to-one (escapes aside). */
  style?: 'plain' | 'quoted' | 'other';
}

/** Line starts (offsets), and `yaml`'s LineCounter.linePos over them. */
function linePosition(text: string): (offset: number) => { line: number; col: number } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (offset < starts[mid]!) high = mid;
      else low = mid + 1;
    }
    if (starts[low - 1] === offset) return { line: low, col: 1 };
    if (low === 0) return { line: 0, col: offset };
    return { line: low, col: offset - starts[low - 1]! + 1 };
  };
}

/** A locator over a document's nodes: the node at a path, or its nearest existing ancestor. */
function spanLocator(spanAt: (path: DocPath) => NodeSpan | undefined, text: string, linePos: (offset: number) => { line: number; col: number }): Locator {
  return (path: DocPath, innerColumn?: number) => {
    for (let n = path.length; n >= 0; n--) {
      const span = spanAt(path.slice(0, n));
      if (!span) continue;
      const pos = linePos(span.start);
      let column = pos.col;
      if (n === path.length && innerColumn !== undefined && span.end !== undefined && (span.style === 'plain' || span.style === 'quoted')) {
        const raw = text.slice(span.start, span.end);
        if (!raw.includes('\n')) column += (span.style === 'quoted' ? 1 : 0) + innerColumn - 1;
      }
      return { line: pos.line, column };
    }
    return undefined;
  };
}

/** A locator over a parsed YAML document: the node at a path, or its nearest existing ancestor. */
export function yamlLocator(doc: Document, text: string, lines: LineCounter): Locator {
  const { isScalar, Scalar } = yaml();
  return spanLocator(
    (path) => {
      const node = path.length === 0 ? doc.contents : doc.getIn(path, true);
      const range = (node as { range?: [number, number, number] } | undefined)?.range;
      if (!range) return undefined;
      if (!isScalar(node)) return { start: range[0] };
      const quoted = node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE;
      return { start: range[0], end: range[1], style: quoted ? 'quoted' : node.type === Scalar.PLAIN ? 'plain' : 'other' };
    },
    text,
    (offset) => lines.linePos(offset),
  );
}

/** Parses book text; YAML errors become `policy_yaml_error` with line:column (all of them, capped). */
export function parseBookText(text: string, file: string): { raw: unknown; locate: Locator } {
  const fast = parseYamlSubset(text);
  if (fast) {
    const spanAt = (path: DocPath): NodeSpan | undefined => {
      const node = subsetNodeAt(fast.root, path);
      if (!node) return undefined;
      if (node.kind !== 'scalar') return { start: node.start };
      return { start: node.start, end: node.end, style: node.style === 'plain' ? 'plain' : node.style === 'block' ? 'other' : 'quoted' };
    };
    return { raw: fast.value, locate: spanLocator(spanAt, text, linePosition(text)) };
  }
  return parseBookTextWithYaml(text, file);
}

/** `parseBookText` by the `yaml` library, for any text (the reference the subset reader is tested against). */
export function parseBookTextWithYaml(text: string, file: string): { raw: unknown; locate: Locator } {
  const { LineCounter, parseDocument } = yaml();
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
