import type { ServerConfig } from '../config/schema.js';
import { malformedPath, pathArguments } from '../detectors/path-args.js';
import { realPathOf } from '../detectors/path.js';
import type { RealPathAnswers } from '../detectors/real-paths.js';
import { formatPath, lexicalPath, resolveAgainst, type LexicalPath } from '../detectors/posix-path.js';

/**
 * Path arguments resolved once, and handed to the server as resolved (#27, class 9). The guard checks a path through
 * its symbolic links; a server that gets the path as the client wrote it resolves the links again when it acts, and
 * another local process can swap a link in between (check `box/link/x` while `link` points inside, act after it
 * points outside). So, for a local (stdio) server, every path-like argument (the one reader of path arguments,
 * `pathArguments`, with the tool's schema path keys) that goes through a symbolic link is replaced by the path it
 * resolves to now, before the guard checks the call: the guard checks, the audit records and the server gets the
 * same link-free path.
 *
 * Replaced: an absolute path, and a relative one when every directory the server may resolve it against gives the
 * same place (otherwise the path check already wants every resolution inside, and the path stays as written). Left
 * as written: a path without links (ordinary work is forwarded byte for byte), `~` paths (the server's home may not
 * be the proxy's), `file://` URIs, malformed paths (the path rule refuses those), a path whose resolution fails, and
 * every argument of a remote server or of one with `resolve_paths: false`.
 *
 * `memo` keeps the realpath answers (src/detectors/real-paths.ts): the proxy hands them to the guard's check of the
 * call, whose path detectors then read the resolution made here instead of resolving each path again.
 *
 * What stays racy (docs/inspection.md): a directory of the resolved path swapped for a link after this resolution (by
 * someone with write access to it), and a server that follows a link the resolved path ends in when the final
 * component is swapped; the server resolves again in both cases.
 */
export function resolvePathArguments(
  server: ServerConfig | undefined,
  args: Record<string, unknown> | undefined,
  pathKeys: readonly string[],
  roots: readonly string[] | undefined,
  memo: RealPathAnswers = new Map(),
): { args: Record<string, unknown> | undefined; resolved: Array<{ field: string; from: string; to: string }> } {
  if (args === undefined || server === undefined || server.command === undefined || !server.resolve_paths) return { args, resolved: [] };
  const bases = roots === undefined ? [] : absoluteBases(roots);
  let out: Record<string, unknown> | undefined;
  const resolved: Array<{ field: string; from: string; to: string }> = [];
  for (const f of pathArguments(args, pathKeys)) {
    const to = resolvedForm(f.text, bases, memo);
    if (to === undefined) continue;
    out ??= structuredClone(args);
    if (setAt(out, f.field.split('.').slice(1), f.text, to)) resolved.push({ field: f.field, from: f.text, to });
  }
  return out === undefined || resolved.length === 0 ? { args, resolved: [] } : { args: out, resolved };
}

/** The absolute directories among `roots`, parsed. */
function absoluteBases(roots: readonly string[]): LexicalPath[] {
  return roots.map(parsedRoot).filter((r): r is LexicalPath => r !== undefined && r.root === '/');
}

/**
 * `lexicalPath` of a root, kept: a server's directories and its client's roots come again on every call. Bounded
 * (roots a client sends are its own choice): the memo starts afresh when full.
 */
function parsedRoot(root: string): LexicalPath | undefined {
  if (parsedRoots.has(root)) return parsedRoots.get(root);
  if (parsedRoots.size >= MAX_PARSED_ROOTS) parsedRoots.clear();
  const parsed = lexicalPath(root);
  parsedRoots.set(root, parsed);
  return parsed;
}

const parsedRoots = new Map<string, LexicalPath | undefined>();
const MAX_PARSED_ROOTS = 1024;

const DOT_DOT = /(?:^|\/)\.\.(?:\/|$)/;

/** The link-free absolute path `text` names now, when it differs from `text`'s own absolute form; else undefined. */
function resolvedForm(text: string, bases: readonly LexicalPath[], memo: Map<string, string | null>): string | undefined {
  if (/^file:/i.test(text) || malformedPath(text) !== undefined) return undefined;
  const parsed = lexicalPath(text);
  if (parsed === undefined || parsed.escapes || (parsed.root !== '/' && parsed.root !== '.')) return undefined;
  const forms = parsed.root === '/' ? [parsed] : bases.map((b) => resolveAgainst(parsed, b));
  if (forms.length === 0) return undefined;
  const reals = new Set(forms.map((p) => realPathOf(formatPath(p), memo)));
  if (reals.size !== 1) return undefined;
  const [real] = [...reals];
  if (real === undefined) return undefined;
  // A `..` is walked by the kernel after the links before it (`box/link/../x`): the guard checked that walk and the
  // lexical form, so the lexical form, resolved, goes instead.
  if (DOT_DOT.test(text)) return real === text ? undefined : real;
  // No link on the way: the path stays as the client wrote it.
  if (forms.every((p) => formatPath(p) === real)) return undefined;
  return real;
}

/** Replaces the string `from` at `path` (keys and array indexes) in `root`; false when it is not there. */
function setAt(root: Record<string, unknown>, path: readonly string[], from: string, to: string): boolean {
  let node: unknown = root;
  for (let k = 0; k < path.length - 1; k++) {
    if (node === null || typeof node !== 'object') return false;
    node = (node as Record<string, unknown>)[path[k] as string];
  }
  const last = path[path.length - 1];
  if (last === undefined || node === null || typeof node !== 'object' || (node as Record<string, unknown>)[last] !== from) return false;
  (node as Record<string, unknown>)[last] = to;
  return true;
}
