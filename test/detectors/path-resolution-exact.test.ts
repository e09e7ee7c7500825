import { existsSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { realPathOf } from '../../src/detectors/path.js';
import { malformedPath, pathArguments } from '../../src/detectors/path-args.js';
import { formatPath, isUnder, lexicalPath, resolveAgainst, type LexicalPath } from '../../src/detectors/posix-path.js';
import { clip, unknown } from '../../src/detectors/common.js';
import type { DetectorResult } from '../../src/detectors/types.js';
import type { Interaction } from '../../src/core/types.js';
import { compile, interaction } from './helpers.js';

/**
 * The path detector's short cuts against the computation they replace, on a real directory tree with symbolic
 * links: `realPathOf` answers a missing path without a thrown error (access, then stat's ENOENT), asks realpath(3)
 * first for a folder it climbs to from a missing path, and keeps answers in a memo for one run; the detector resolves links only when the lexical forms leave a path undecided. Below, the
 * former code, written out: realpath(3) tried on every candidate (a throw per missing one), every form resolved
 * before any is checked. Same value, same evidence, for every path, root list and option.
 */

/**
 * Where a path leads, by definition: walk it component by component as the kernel does (`lstat` each; a link is
 * replaced by its target, read from the folder it sits in; `..` goes up from where the walk physically is), and at
 * the first component that does not exist, append the rest as written. A dangling link is followed to where
 * writing through it would create its target. Undefined for a path whose first component is missing (nothing
 * resolves) and past 40 links (ELOOP).
 */
function realPathByDefinition(abs: string): string | undefined {
  let done = '/';
  const todo = abs.split('/').filter((c) => c !== '');
  let hops = 0;
  let first = true;
  while (todo.length > 0) {
    const c = todo.shift()!;
    if (c === '.') continue;
    if (c === '..') {
      done = dirname(done);
      continue;
    }
    const next = done === '/' ? `/${c}` : `${done}/${c}`;
    let st;
    try {
      st = lstatSync(next, { throwIfNoEntry: false });
    } catch {
      st = undefined; // ENOTDIR: a file used as a folder
    }
    if (st === undefined) return first ? undefined : [next, ...todo].join('/');
    first = false;
    if (st.isSymbolicLink()) {
      if (++hops > 40) return undefined;
      const target = readlinkSync(next);
      todo.unshift(...target.split('/').filter((x) => x !== ''));
      if (target.startsWith('/')) done = '/';
      continue;
    }
    done = next;
  }
  return done;
}

/**
 * The former `realPathOf` (before its `lstat` first), written out: `access`, then `stat`'s ENOENT, before realpath(3);
 * a path that does not resolve is asked whether it is a link with an `lstat` of its own. With its memo, as it kept it.
 */
function formerRealPathOf(abs: string, memo: Map<string, string | null>): string | undefined {
  const realOrNull = (path: string): string | null => {
    const known = memo.get(path);
    if (known !== undefined) return known;
    let missing: boolean;
    try {
      missing = statSync(path, { throwIfNoEntry: false }) === undefined;
    } catch {
      missing = false;
    }
    let real: string | null = null;
    if (existsSync(path) || !missing) {
      try {
        real = realpathSync.native(path);
      } catch {
        real = null;
      }
    }
    memo.set(path, real);
    return real;
  };
  const linkTargetOf = (path: string): string | undefined => {
    const key = `\u0000${path}`;
    const known = memo.get(key);
    if (known !== undefined) return known ?? undefined;
    let target: string | undefined;
    try {
      if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) {
        const t = readlinkSync(path);
        const cut = path.lastIndexOf('/');
        const folder = cut <= 0 ? '/' : path.slice(0, cut);
        target = t.startsWith('/') ? t : `${(realOrNull(folder) ?? folder).replace(/\/$/, '')}/${t}`;
      }
    } catch {
      target = undefined;
    }
    memo.set(key, target ?? null);
    return target;
  };
  let head = abs;
  const rest: string[] = [];
  let hops = 0;
  for (let k = 0; k < 256; k++) {
    const real = realOrNull(head);
    if (real !== null) return rest.length === 0 ? real : `${real.replace(/\/$/, '')}/${rest.reverse().join('/')}`;
    const target = linkTargetOf(head);
    if (target !== undefined) {
      if (++hops > 40) return undefined;
      head = target;
      continue;
    }
    const cut = head.lastIndexOf('/');
    if (cut <= 0) return undefined;
    rest.push(head.slice(cut + 1));
    head = head.slice(0, cut);
  }
  return undefined;
}

/** The former detector (field `arguments`), every form computed first, then checked in order. */
function detectorByDefinition(opts: { under: string[]; outside: boolean; resolve_links: boolean; base?: string }): (i: Interaction) => DetectorResult {
  const dirs = opts.under.map((d) => ({ text: d, p: lexicalPath(d)! }));
  const base = opts.base === undefined ? undefined : lexicalPath(opts.base);
  if (opts.resolve_links) {
    for (const d of [...dirs]) {
      if (d.p.root !== '/') continue;
      const real = realPathByDefinition(formatPath(d.p));
      const rp = real === undefined ? undefined : lexicalPath(real);
      if (rp && formatPath(rp) !== formatPath(d.p)) dirs.push({ text: d.text, p: rp });
    }
  }
  const { outside } = opts;
  const field = 'arguments';
  return (i) => {
    if (i.kind !== 'tool_call' || i.arguments === undefined) return unknown('path: no arguments');
    const raw = pathArguments(i.arguments, i.pathKeys ?? []).map((f) => f.text);
    const roots = (i.roots ?? []).map((r) => lexicalPath(r)).filter((r): r is LexicalPath => r !== undefined && r.root === '/');
    const bases = roots.length > 0 ? roots : base ? [base] : [];
    let undecided: string | undefined;
    for (const text of raw.slice(0, 1000)) {
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
      if (opts.resolve_links) {
        for (const f of [...forms]) {
          if (f.root !== '/') continue;
          const real = realPathByDefinition(formatPath(f));
          const rp = real === undefined ? undefined : lexicalPath(real);
          if (rp && formatPath(rp) !== formatPath(f)) forms.push(rp);
        }
        // A text with a `..` segment, walked as written (a link before the `..` is followed first), absolute or
        // joined to each base.
        const t = text.startsWith('file://') ? decodeURIComponent(text.replace(/^file:\/\/(localhost)?/i, '')) : text;
        if ((parsed.root === '/' || parsed.root === '.') && t.split('/').includes('..')) {
          for (const walked of parsed.root === '/' ? [t] : bases.map((b) => `${formatPath(b)}/${t}`)) {
            // Up to the last `..` the kernel must walk every component (else open(2) fails: no form); then the rest.
            const cut = walked.lastIndexOf('/..') + 3;
            let head: string | undefined;
            try {
              head = realpathSync.native(walked.slice(0, cut));
            } catch {
              head = undefined;
            }
            const rest = walked.slice(cut).split('/').filter((c) => c !== '').join('/');
            const real = head === undefined ? undefined : rest === '' ? head : realPathByDefinition(`${head.replace(/\/$/, '')}/${rest}`);
            const rp = real === undefined ? undefined : lexicalPath(real);
            if (rp) forms.push(rp);
          }
        }
      }
      for (const p of forms) {
        const hit = dirs.find((d) => isUnder(p, d.p));
        if (!outside && hit) return { value: 'true', score: 1, evidence: `path: ${clip(formatPath(p), 120)} is under ${hit.text}` };
        if (outside && !hit) {
          const shown = formatPath(p) === text ? '' : ` (from ${clip(text, 60)})`;
          const among = parsed.root === '.' && bases.length > 1 ? `; the relative path may resolve against any of ${bases.length} server roots (${clip(bases.map(formatPath).join(', '), 200)}), so each must be inside` : '';
          return { value: 'true', score: 1, evidence: `path: ${clip(formatPath(p), 120)}${shown} is outside ${opts.under.join(', ')}${among}` };
        }
      }
    }
    if (raw.length > 1000) undecided ??= 'more than 1000 paths';
    return undecided === undefined ? { value: 'false' } : unknown(`path: ${undecided}`);
  };
}

// A tree with every kind of entry: directories, files, links into and out of the box, a link to a link, a dangling
// link, a link loop, a file where a directory is expected, and a box reached through a linked parent.
const top = realpathSync(mkdtempSync(join(tmpdir(), 'qg-path-exact-')));
const box = join(top, 'box');
const out = join(top, 'out');
mkdirSync(join(box, 'sub', 'deep'), { recursive: true });
mkdirSync(join(out, 'sub'), { recursive: true });
writeFileSync(join(box, 'notes.txt'), 'x');
writeFileSync(join(box, 'sub', 'deep', 'f.txt'), 'x');
writeFileSync(join(out, 'secret.txt'), 'x');
symlinkSync(out, join(box, 'escape'));
symlinkSync(join(box, 'sub'), join(box, 'inner'));
symlinkSync(join(box, 'escape'), join(box, 'escape2'));
symlinkSync(join(out, 'secret.txt'), join(box, 'secret-link'));
symlinkSync(join(top, 'nowhere', 'x'), join(box, 'dangling'));
symlinkSync('../out/planted.txt', join(box, 'dangling-rel'));
symlinkSync(join(box, 'dangling-rel'), join(box, 'dangling-chain'));
symlinkSync('sub/new.txt', join(box, 'dangling-in'));
symlinkSync(join(box, 'loop-b'), join(box, 'loop-a'));
symlinkSync(join(box, 'loop-a'), join(box, 'loop-b'));
symlinkSync('../out', join(box, 'relative-escape'));
symlinkSync(box, join(top, 'box-link'));
symlinkSync(join(out, 'sub'), join(out, 'back'));
afterAll(() => rmSync(top, { recursive: true, force: true }));

// `..` twice, so that a link followed by `..` comes up often.
const segments = ['..', 'notes.txt', 'sub', 'deep', 'f.txt', 'escape', 'escape2', 'inner', 'secret-link', 'secret.txt', 'dangling', 'dangling-rel', 'dangling-chain', 'dangling-in', 'loop-a', 'missing', 'new', '..', '.', 'relative-escape', 'back'];
const starts = [`${box}/`, `${top}/`, `${top}/box-link/`, `${out}/`, '', './', '../', '~/', '/etc/', 'file://'];
const aPath = fc
  .tuple(fc.constantFrom(...starts), fc.array(fc.constantFrom(...segments), { minLength: 0, maxLength: 5 }))
  .map(([start, segs]) => (start === 'file://' ? `file://${box}/${segs.join('/')}` : `${start}${segs.join('/')}`))
  .filter((p) => p.length > 0);
/** A path with a `..` right after a link (or something else), where the walk as written and the lexical form part. */
const aDotPath = fc
  .tuple(fc.constantFrom(`${box}/`, `${top}/box-link/`, '', `file://${box}/`), fc.constantFrom('escape', 'escape2', 'relative-escape', 'inner', 'dangling', 'loop-a', 'missing', 'notes.txt'), fc.array(fc.constantFrom(...segments), { maxLength: 3 }))
  .map(([start, link, segs]) => [`${start}${link}`, '..', ...segs].join('/'));
const rootSets: string[][] = [[], [box], [box, out], [out, box], [`${top}/box-link`], [box, `${box}/sub`, top], ['/nonexistent/root', box]];
const underSets: string[][] = [[box], [box, '/tmp/never'], [`${top}/box-link`], [out], [`${box}/sub`], ['~/sandbox', box]];

describe('path detector: resolution short cuts ≡ the former computation', () => {
  it('realPathOf gives the former answer for every kind of path, with and without a memo shared by many paths', () => {
    const memo = new Map<string, string | null>();
    const paths = [box, `${box}/notes.txt`, `${box}/missing`, `${box}/missing/a/b`, `${box}/escape/secret.txt`, `${box}/escape/missing/x`, `${box}/dangling`, `${box}/dangling/x`, `${box}/dangling-rel`, `${box}/dangling-chain/x`, `${box}/dangling-in`, `${box}/inner/../notes.txt`, `${box}/missing/../notes.txt`, `${box}/loop-a`, `${box}/loop-a/x`, `${box}/notes.txt/x`, `${box}/notes.txt/x/y`, `${box}/relative-escape/sub`, `${top}/box-link/inner/deep/f.txt`, `${top}/box-link/new/file`, '/', '/nonexistent', '/nonexistent/a/b', `${box}/secret-link`, `${out}/back/../secret.txt`];
    for (const p of paths) {
      expect(realPathOf(p), p).toBe(realPathByDefinition(p));
      expect(realPathOf(p, memo), p).toBe(realPathByDefinition(p));
    }
    // The memo answers again, the same way, and holds only what realpath(3) said (null: it failed).
    for (const p of paths) expect(realPathOf(p, memo), p).toBe(realPathByDefinition(p));
    expect(memo.get(`${box}/dangling`)).toBeNull();
    expect(realPathOf(`${box}/dangling-rel`)).toBe(`${out}/planted.txt`);
    expect(memo.get(box)).toBe(box);
  });

  it('realPathOf (lstat where access fails) gives the former answers, and its memo holds what the former memo held', () => {
    const anAbsPath = fc
      .tuple(fc.constantFrom(`${box}/`, `${top}/`, `${top}/box-link/`, `${out}/`, '/', '/nonexistent/'), fc.array(fc.constantFrom(...segments), { maxLength: 5 }))
      .map(([start, segs]) => `${start}${segs.join('/')}`);
    fc.assert(
      fc.property(fc.array(anAbsPath, { minLength: 1, maxLength: 4 }), (paths) => {
        // One memo across the paths of a check, as the proxy and the detectors share it.
        const memo = new Map<string, string | null>();
        const former = new Map<string, string | null>();
        for (const p of paths) {
          expect(realPathOf(p, memo), p).toBe(formerRealPathOf(p, former));
          expect(realPathOf(p), p).toBe(formerRealPathOf(p, new Map()));
        }
        // Every answer kept is the former one; the new code may know a missing path is no link without asking.
        for (const [key, v] of memo) {
          if (former.has(key)) expect(v, key).toBe(former.get(key));
          else {
            expect(key.startsWith('\u0000'), key).toBe(true);
            expect(v, key).toBeNull();
            expect(lstatSync(key.slice(1), { throwIfNoEntry: false }), key).toBeUndefined();
          }
        }
        for (const key of former.keys()) if (!key.startsWith('\u0000')) expect(memo.has(key), key).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('the detector gives the same value and evidence as the former code, for any paths, roots and options', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(aPath, aDotPath), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...rootSets),
        fc.constantFrom(...underSets),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(undefined, box, out),
        fc.constantFrom('path', 'paths', 'source+destination'),
        (paths, roots, under, outside, resolveLinks, base, shape) => {
          const args = shape === 'paths' ? { paths } : shape === 'path' ? { path: paths[0]! } : { source: paths[0]!, destination: paths[1] ?? paths[0]! };
          const i = interaction({ kind: 'tool_call', tool: 'move_file', arguments: args, ...(roots.length > 0 ? { roots } : {}) });
          const spec = { under, outside, resolve_links: resolveLinks, ...(base !== undefined ? { base } : {}) };
          const got = compile({ type: 'path', field: 'arguments', ...spec })(i);
          expect(got).toEqual(detectorByDefinition(spec)(i));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('still catches what only the links reveal, and still reports the lexical escape first', () => {
    const d = compile({ type: 'path', field: 'arguments', under: [box], outside: true });
    // Inside lexically, outside through a link (the real form decides), through a link chain, through a relative
    // link, and a new file under a linked folder.
    for (const p of [`${box}/escape/secret.txt`, `${box}/escape2/x`, `${box}/relative-escape/sub`, `${box}/secret-link`, `${box}/escape/new/file.txt`]) {
      const r = d(interaction({ kind: 'tool_call', tool: 'write_file', arguments: { path: p } }));
      expect(r.value, p).toBe('true');
      expect(r.evidence, p).toContain(`${out}`);
    }
    // Relative, two roots, one outside lexically: its lexical form is reported, no link needed.
    const r = d(interaction({ kind: 'tool_call', tool: 'read_file', arguments: { path: 'notes.txt' }, roots: [out, box] }));
    expect(r.evidence).toContain(`${out}/notes.txt (from notes.txt) is outside`);
    expect(d(interaction({ kind: 'tool_call', tool: 'read_file', arguments: { path: 'inner/deep/f.txt' }, roots: [box] })).value).toBe('false');
    // A dangling link inside that points outside: writing through it creates the file outside.
    for (const p of [`${box}/dangling`, `${box}/dangling-rel`, `${box}/dangling-chain`]) {
      const r = d(interaction({ kind: 'tool_call', tool: 'write_file', arguments: { path: p } }));
      expect(r.value, p).toBe('true');
      expect(r.evidence, p).toMatch(new RegExp(`${top}/(nowhere|out)`));
    }
    expect(d(interaction({ kind: 'tool_call', tool: 'write_file', arguments: { path: 'dangling' }, roots: [box] })).value).toBe('true');
    // A dangling link that stays inside is inside.
    expect(d(interaction({ kind: 'tool_call', tool: 'write_file', arguments: { path: `${box}/dangling-in` } })).value).toBe('false');
    // A `..` after a link climbs from where the link points (a server that opens the path as given).
    for (const p of [`${box}/escape/../x`, `${box}/relative-escape/../secret.txt`, `${box}/escape2/sub/../../y`]) {
      const r = d(interaction({ kind: 'tool_call', tool: 'write_file', arguments: { path: p } }));
      expect(r.value, p).toBe('true');
      expect(r.evidence, p).toContain(`${top}/`);
    }
    expect(d(interaction({ kind: 'tool_call', tool: 'write_file', arguments: { path: 'escape/../x' }, roots: [box] })).value).toBe('true');
    expect(d(interaction({ kind: 'tool_call', tool: 'write_file', arguments: { path: `${box}/inner/../notes.txt` } })).value).toBe('false');
  });
});
