/**
 * Lexical POSIX path handling for the `path` and `shell_risk` detectors: no file system access, no symlink
 * resolution, no `~` expansion. A path is a root plus normalised segments.
 *
 * - root `/` for absolute paths, `~` (or `~user`) for home-relative ones, `.` for relative ones;
 * - `.` and empty segments are dropped; `..` pops a segment, stays at `/` for absolute paths, and for relative or
 *   home paths that climb above their start marks the path `escapes` (it is then under no directory);
 * - `file://` URIs are accepted and percent-decoded. Empty text or a NUL byte is unreadable (`undefined`).
 */
export interface LexicalPath {
  root: string;
  parts: string[];
  /** A relative or `~` path that climbs above its start with `..`: lexically, we cannot say where it lands. */
  escapes: boolean;
}

/** Parses and normalises `raw`; `undefined` when it is not a readable path. */
export function lexicalPath(raw: string): LexicalPath | undefined {
  const text = pathText(raw);
  if (text === undefined) return undefined;
  let root = '.';
  let rest = text;
  if (text.startsWith('/')) {
    root = '/';
  } else if (text.startsWith('~')) {
    const slash = text.indexOf('/');
    root = slash < 0 ? text : text.slice(0, slash);
    rest = slash < 0 ? '' : text.slice(slash);
  }
  return normalised(root, rest.split('/'));
}

/** The path of `segments` after `root`: `.` and empty segments dropped, `..` popping one (see above). */
function normalised(root: string, segments: Iterable<string>): LexicalPath {
  const parts: string[] = [];
  let escapes = false;
  for (const seg of segments) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (root !== '/') {
        escapes = true;
        parts.push('..');
      }
      continue;
    }
    parts.push(seg);
  }
  return { root, parts, escapes };
}

/** The path `raw` names, as text (a `file://` URI decoded); `undefined` when it is not a readable path. */
export function pathText(raw: string): string | undefined {
  let text = raw;
  if (/^file:\/\//i.test(text)) {
    try {
      text = decodeURIComponent(text.replace(/^file:\/\/(localhost)?/i, ''));
    } catch {
      return undefined;
    }
  }
  return text.length === 0 || text.includes('\0') ? undefined : text;
}

/** Joins a relative path onto an absolute base, then normalises; other paths are returned as they are. */
export function resolveAgainst(p: LexicalPath, base: LexicalPath | undefined): LexicalPath {
  if (p.root !== '.' || base === undefined) return p;
  // The joined text read again is the base's root and its segments then the path's, normalised: so they are taken as
  // they are when the text would read back that way (each path of a call is resolved against every root, and the
  // text, its file:// test and its split cost more than the walk). test/detectors/resolve-against.test.ts.
  if (joinsPlainly(base, p)) return normalised(base.root, [...base.parts, ...p.parts]);
  const joined = `${formatPath(base)}/${p.parts.join('/')}`;
  return lexicalPath(joined) ?? p;
}

/**
 * Whether `${formatPath(base)}/${p.parts.join('/')}` reads back (`lexicalPath`) as the base's root followed by both
 * lists of segments: a root `/`, `.` (its first segment not starting with `~`) or `~name` (without a `/`), and
 * segments without a `/` or a NUL (an empty segment would make a `//`, which a `file://` text needs).
 */
function joinsPlainly(base: LexicalPath, p: LexicalPath): boolean {
  const { root } = base;
  if (root === '.') {
    if (base.parts.length > 0 && base.parts[0]!.startsWith('~')) return false;
  } else if (root !== '/' && !(root.startsWith('~') && !root.includes('/') && !root.includes('\0'))) return false;
  return plainSegments(base.parts) && plainSegments(p.parts);
}

function plainSegments(parts: readonly string[]): boolean {
  for (const seg of parts) if (seg === '' || seg.includes('/') || seg.includes('\0')) return false;
  return true;
}

/** True when `p` is `dir` or lies below it (segment-wise, so `/etc2` is not under `/etc`). */
export function isUnder(p: LexicalPath, dir: LexicalPath): boolean {
  if (p.escapes || dir.escapes || p.root !== dir.root) return false;
  if (dir.parts.length > p.parts.length) return false;
  return dir.parts.every((seg, k) => p.parts[k] === seg);
}

/** Text form of a normalised path (`/etc/passwd`, `~/x`, `a/b`, `.` ). */
export function formatPath(p: LexicalPath): string {
  if (p.root === '/') return `/${p.parts.join('/')}`;
  if (p.root === '.') return p.parts.length === 0 ? '.' : p.parts.join('/');
  return p.parts.length === 0 ? p.root : `${p.root}/${p.parts.join('/')}`;
}
