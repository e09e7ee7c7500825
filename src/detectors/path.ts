import { existsSync, lstatSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { z } from 'zod';
import { defineDetector } from './registry.js';
import { clip, configError, FieldSelectorSchema, unknown } from './common.js';
import { atPath, selectFields } from '../core/fields.js';
import { formatPath, isUnder, lexicalPath, pathText, resolveAgainst, type LexicalPath } from './posix-path.js';
import type { DetectorResult } from './types.js';
import { malformedPath, pathArguments } from './path-args.js';
import { argumentsOf, type Interaction } from '../core/types.js';
import { realPathAnswersOf } from './real-paths.js';

/**
 * `path`: where the path(s) in a field lie, decided lexically (see `posix-path.ts`: POSIX normalisation, `..`
 * handled, `~` never expanded), then, for absolute paths on this machine, through symbolic links too.
 *
 * - `field` (required): `arguments` means every path-like argument, found by shape (see `path-args.ts`: keys named
 *   like paths at any depth, `source`/`destination`, arrays of paths, `file://` URIs, whole values shaped like a
 *   path); `arguments.path` one argument (a string or an array of strings); `uri` works too (`file://` decoded).
 * - `under` (required, ≥ 1): absolute (`/srv/data`) or home-relative (`~/projects`) directories.
 * - `outside` (default false): false → true when SOME path is under one of `under`; true → true when SOME path is
 *   outside all of them.
 * - `base`: absolute directory against which relative paths are resolved when the interaction names no `roots`.
 *   The proxy sets `roots` to the downstream server's working directory, the directories it was started with and
 *   the roots its client gave it; a relative path is resolved against each, and with `outside: true` it is outside
 *   when any resolution is (the evidence names the roots when there are several).
 * - `resolve_links` (default true): an absolute path is also resolved through symbolic links (the deepest part that
 *   exists is `realpath`ed, the rest appended; a dangling link is followed to where writing through it would
 *   create its target); a path holding `..` is also walked as written, each link before a `..` followed first (where
 *   a server that opens the path as given lands: `box/link/../x` is beside the link's target, not in `box`); with
 *   `outside: true` any form being outside is enough.
 *
 * A malformed path (NUL or control character, `C:\`, a backslash separator, percent-encoding outside a `file://`
 * URI, a `file://` URI naming another host) is outside everything: `true` with `outside: true`, `unknown` otherwise.
 * A `~` path only lies under `~` entries, so with `outside: true` it counts as outside unless listed. A relative
 * path climbing above its start (`../x`) lies under nothing.
 *
 * `unknown` when the field is missing, is not a string / array of strings, is empty, or holds a relative path with
 * neither `roots` nor `base` — unless another path already decides `true`. With `field: arguments`, a call with no
 * path-like argument is `false` (it names nothing on the file system). At most 1,000 paths are inspected; more,
 * undecided, is `unknown`.
 *
 * @example { type: path, field: arguments, under: ['/workspace'], outside: true }
 */
export const PathOptionsSchema = z.strictObject({
  field: FieldSelectorSchema,
  under: z.array(z.string().min(1)).min(1),
  outside: z.boolean().default(false),
  base: z.string().min(1).optional(),
  resolve_links: z.boolean().default(true),
});
export type PathOptions = z.infer<typeof PathOptionsSchema>;

const MAX_PATHS = 1000;

/** The raw path texts of the field, or a reason why they cannot be read. */
function readPaths(i: Interaction, field: string): string[] | string {
  if (field === 'arguments') {
    const args = argumentsOf(i);
    if (args === undefined) return 'no arguments';
    return pathArguments(args, i.kind === 'tool_call' ? (i.pathKeys ?? []) : []).map((f) => f.text);
  }
  if (field.startsWith('arguments.')) {
    const args = argumentsOf(i);
    if (args === undefined) return 'no arguments';
    const v = atPath(args, field.slice('arguments.'.length));
    if (v === undefined || v === null) return `${field} is missing`;
    if (typeof v === 'string') return [v];
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) return v as string[];
    return `${field} is not a path or a list of paths`;
  }
  const texts = selectFields(i, field).map((f) => f.text);
  return texts.length === 0 ? `${field} is missing` : texts;
}

/**
 * `abs` through symbolic links: the deepest ancestor that exists is resolved with `realpath`, the rest appended; a
 * dangling link met on the way is replaced by its target. Undefined when nothing resolves (or the file system
 * refuses, or links loop), so the lexical form stands alone.
 *
 * `memo` (one interaction, never longer: the file system changes between calls; real-paths.ts) keeps each
 * `realpath` answer, so paths sharing an ancestor that does not exist yet (`source` and `destination` in one new
 * folder) resolve it once, and so do the proxy and every path detector reading the same interaction.
 */
export function realPathOf(abs: string, memo?: Map<string, string | null>): string | undefined {
  let head = abs;
  const rest: string[] = [];
  let hops = 0;
  let climbed = false;
  for (let k = 0; k < 256; k++) {
    const real = climbed ? folderRealOrNull(head, memo) : realOrNull(head, memo);
    if (real !== null) return rest.length === 0 ? real : `${real.replace(/\/$/, '')}/${rest.reverse().join('/')}`;
    // A dangling link: writing through it creates its target, wherever that is. Follow it (as the kernel would,
    // up to its own limit of hops) instead of taking the link's own name for where the data goes.
    const target = linkTargetOf(head, memo);
    if (target !== undefined) {
      if (++hops > MAX_LINK_HOPS) return undefined;
      head = target;
      climbed = false;
      continue;
    }
    const cut = head.lastIndexOf('/');
    if (cut <= 0) return undefined;
    rest.push(head.slice(cut + 1));
    head = head.slice(0, cut);
    climbed = true;
  }
  return undefined;
}

/** A `..` segment. */
const DOT_DOT = /(?:^|\/)\.\.(?:\/|$)/;
/** A path up to and including its last `..` segment. */
const LAST_DOT_DOT = /^.*(?:^|\/)\.\.(?=\/|$)/s;

/**
 * The absolute texts the kernel walks for `text` when it holds a `..` segment (none otherwise: without `..`, the
 * lexical form's real form is the walk): the text itself, or a relative one joined to each base, not normalised, so
 * `realPathOf` resolves each link before the `..` after it. `~` paths are never expanded.
 */
function kernelWalks(text: string, parsed: LexicalPath, bases: readonly LexicalPath[]): string[] {
  if (parsed.root !== '/' && parsed.root !== '.') return [];
  const t = pathText(text);
  if (t === undefined || !DOT_DOT.test(t)) return [];
  return parsed.root === '/' ? [t] : bases.map((b) => `${formatPath(b)}/${t}`);
}

/**
 * Where the kernel takes `abs` (which holds `..`): realpath(3) of the part up to its last `..` (every component of it
 * must exist, links resolved in order: else open(2) fails and there is no such place), then the rest resolved as
 * `realPathOf` does (a missing tail appended, dangling links followed).
 */
function walkedPathOf(abs: string, memo: Map<string, string | null>): string | undefined {
  const m = LAST_DOT_DOT.exec(abs);
  if (m === null) return realPathOf(abs, memo);
  const head = realOrNull(abs.slice(0, m.index + m[0].length), memo);
  if (head === null) return undefined;
  const rest = abs.slice(m.index + m[0].length).replace(/^\/+/, '');
  return rest === '' ? head : realPathOf(`${head.replace(/\/$/, '')}/${rest}`, memo);
}

/** Links followed at most in one resolution (Linux gives up with ELOOP after 40). */
const MAX_LINK_HOPS = 40;

/**
 * `danglingTarget(path)`, kept in `memo` beside the realpath answers of the interaction (under the path behind a NUL,
 * which no path holds): a path that does not resolve is asked whether it is a link by the proxy and by each path
 * detector reading it, with one `lstat` among them.
 */
function linkTargetOf(path: string, memo: Map<string, string | null> | undefined): string | undefined {
  if (memo === undefined) return danglingTarget(path, memo);
  const key = `\u0000${path}`;
  const known = memo.get(key);
  if (known !== undefined) return known ?? undefined;
  const target = danglingTarget(path, memo);
  memo.set(key, target ?? null);
  return target;
}

/**
 * Where the symbolic link `path` points, as an absolute path (a relative target is taken from the link's real
 * folder, as the kernel does), when `path` is a link; undefined otherwise or when it cannot be read.
 */
function danglingTarget(path: string, memo: Map<string, string | null> | undefined): string | undefined {
  try {
    if (!lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) return undefined;
    const target = readlinkSync(path);
    if (target.startsWith('/')) return target;
    const cut = path.lastIndexOf('/');
    const folder = cut <= 0 ? '/' : path.slice(0, cut);
    const realFolder = realOrNull(folder, memo) ?? folder;
    return `${realFolder.replace(/\/$/, '')}/${target}`;
  } catch {
    return undefined;
  }
}

/**
 * realpath(3) of `path` (one call; the JS `realpathSync` lstats every component), or null where it fails. A path
 * that does not exist is answered without a thrown error (a throw costs more than the calls): `access` first, and
 * where it fails, `lstat`:
 * - nothing there (`lstat` answers "no such entry" without throwing: it follows every link but the last and
 *   realpath(3) follows them all, so realpath(3) fails too): null, and `path` is no link either, which is kept
 *   for `linkTargetOf` (a missing path takes `access` and one `lstat`, where it took `access`, `stat` and `lstat`);
 * - an entry that is not a link (`access` judged with the real user id): realpath(3);
 * - a link (its target may be missing) or an `lstat` that failed otherwise: `stat`'s ENOENT answers null, anything
 *   else asks realpath(3).
 * The answers are those of realpath(3) alone (test/detectors/path-resolution-exact.test.ts compares them, and what
 * the memo keeps, with the former `access`, `stat` code on a tree of files, links, dangling links and loops).
 */
function realOrNull(path: string, memo: Map<string, string | null> | undefined): string | null {
  const known = memo?.get(path);
  if (known !== undefined) return known;
  let real: string | null;
  if (existsSync(path)) real = realpathOrNull(path);
  else {
    const entry = lstatOrFailed(path);
    if (entry === undefined) {
      real = null;
      memo?.set(`\u0000${path}`, null);
    } else if (entry !== FAILED && !entry.isSymbolicLink()) real = realpathOrNull(path);
    else real = isMissing(path) ? null : realpathOrNull(path);
  }
  memo?.set(path, real);
  return real;
}

/**
 * `realOrNull` of a folder `realPathOf` climbed to from a path that does not resolve: such a folder is most often
 * there (a new file in an existing folder, a relative path against a root it is not in), so realpath(3) is asked
 * first, without the `access` before it; where it fails, `realOrNull` answers (and keeps) as it would have. The same
 * answer and the same memo: realpath(3)'s answer is what `realOrNull` gives too.
 */
function folderRealOrNull(path: string, memo: Map<string, string | null> | undefined): string | null {
  const known = memo?.get(path);
  if (known !== undefined) return known;
  const real = realpathOrNull(path);
  if (real === null) return realOrNull(path, memo);
  memo?.set(path, real);
  return real;
}

const FAILED = Symbol('lstat failed');

/** `lstat` of `path`: undefined when nothing is there (Node's `throwIfNoEntry: false`), FAILED on any error it throws. */
function lstatOrFailed(path: string): Stats | undefined | typeof FAILED {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return FAILED;
  }
}

function realpathOrNull(path: string): string | null {
  try {
    return realpathSync.native(path);
  } catch {
    return null;
  }
}

/** True only when `stat` reports ENOENT for `path` (it throws, and we answer false, for any other error). */
function isMissing(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

export const pathDetector = defineDetector({
  type: 'path',
  summary: 'true when a path argument lies under (or, with outside, outside) given directories',
  options: PathOptionsSchema,
  create(opts, ctx) {
    const dirs = opts.under.map((d) => {
      const p = lexicalPath(d);
      if (p === undefined || p.root === '.' || p.escapes) {
        throw configError(ctx, `path: under entry "${d}" must be an absolute (/…) or home (~/…) directory`);
      }
      return { text: d, p };
    });
    let base: LexicalPath | undefined;
    if (opts.base !== undefined) {
      base = lexicalPath(opts.base);
      if (base === undefined || base.root !== '/') throw configError(ctx, `path: base "${opts.base}" must be absolute`);
    }
    // The directories as the file system sees them too (`/tmp` may itself be a link, e.g. to /private/tmp).
    if (opts.resolve_links) {
      for (const d of [...dirs]) {
        if (d.p.root !== '/') continue;
        const real = realPathOf(formatPath(d.p));
        const rp = real === undefined ? undefined : lexicalPath(real);
        if (rp && formatPath(rp) !== formatPath(d.p)) dirs.push({ text: d.text, p: rp });
      }
    }
    const { field, outside } = opts;
    /** The answer one form of a path gives on its own, or undefined when it leaves the path undecided. */
    const decide = (p: LexicalPath, text: string, parsed: LexicalPath, bases: LexicalPath[]): DetectorResult | undefined => {
      const hit = dirs.find((d) => isUnder(p, d.p));
      if (!outside && hit) {
        return { value: 'true', score: 1, evidence: `path: ${clip(formatPath(p), 120)} is under ${hit.text}` };
      }
      if (outside && !hit) {
        const shown = formatPath(p) === text ? '' : ` (from ${clip(text, 60)})`;
        // A relative path with several directories to resolve against is ambiguous: say so, and name them.
        const among = parsed.root === '.' && bases.length > 1 ? `; the relative path may resolve against any of ${bases.length} server roots (${clip(bases.map(formatPath).join(', '), 200)}), so each must be inside` : '';
        return { value: 'true', score: 1, evidence: `path: ${clip(formatPath(p), 120)}${shown} is outside ${opts.under.join(', ')}${among}` };
      }
      return undefined;
    };
    return function path(i): DetectorResult {
      const raw = readPaths(i, field);
      if (typeof raw === 'string') return unknown(`path: ${raw}`);
      const roots = (i.kind === 'tool_call' ? (i.roots ?? []) : []).map((r) => lexicalPath(r)).filter((r): r is LexicalPath => r !== undefined && r.root === '/');
      const bases = roots.length > 0 ? roots : base ? [base] : [];
      let undecided: string | undefined;
      /** realpath answers of this interaction (real-paths.ts), else of this run. */
      let memo = realPathAnswersOf(i);
      for (const text of raw.slice(0, MAX_PATHS)) {
        const bad = malformedPath(text);
        if (bad !== undefined) {
          if (outside) return { value: 'true', score: 1, evidence: `path: malformed path in ${field} (${bad}): ${clip(JSON.stringify(text), 80)}` };
          undecided ??= `malformed path in ${field} (${bad})`;
          continue;
        }
        const parsed = lexicalPath(text);
        if (parsed === undefined) {
          undecided ??= `unreadable path in ${field}`;
          continue;
        }
        let forms: LexicalPath[] = [parsed];
        if (parsed.root === '.') {
          if (bases.length === 0) {
            undecided ??= `relative path ${clip(text, 60)} and no root to resolve it against`;
            continue;
          }
          forms = bases.map((b) => resolveAgainst(parsed, b));
        }
        // The lexical forms first, then (resolve_links) each absolute one's real form where it differs, in that order.
        // A real form is computed only when every form before it left the path undecided: the answer and its
        // evidence are those of checking every form, with no realpath for a path its lexical form already decides.
        const lexical = forms.length;
        for (let j = 0; j < lexical; j++) {
          const decided = decide(forms[j] as LexicalPath, text, parsed, bases);
          if (decided) return decided;
        }
        if (opts.resolve_links) {
          for (let j = 0; j < lexical; j++) {
            const f = forms[j] as LexicalPath;
            if (f.root !== '/') continue;
            const real = realPathOf(formatPath(f), (memo ??= new Map()));
            const rp = real === undefined ? undefined : lexicalPath(real);
            if (!rp || formatPath(rp) === formatPath(f)) continue;
            const decided = decide(rp, text, parsed, bases);
            if (decided) return decided;
          }
          // A `..` after a link climbs from where the link points when the server opens the path as given (the
          // kernel resolves `box/link` before `..`), not from `box`: the text walked by realpath, as a last form.
          for (const walked of kernelWalks(text, parsed, bases)) {
            const real = walkedPathOf(walked, (memo ??= new Map()));
            const rp = real === undefined ? undefined : lexicalPath(real);
            if (!rp) continue;
            const decided = decide(rp, text, parsed, bases);
            if (decided) return decided;
          }
        }
      }
      if (raw.length > MAX_PATHS) undecided ??= `more than ${MAX_PATHS} paths`;
      return undecided === undefined ? { value: 'false' } : unknown(`path: ${undecided}`);
    };
  },
});
