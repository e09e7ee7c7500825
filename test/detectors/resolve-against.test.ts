import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatPath, lexicalPath, resolveAgainst, type LexicalPath } from '../../src/detectors/posix-path.js';

// `resolveAgainst` as it was (54834e0): the joined text, read again.
function formerResolveAgainst(p: LexicalPath, base: LexicalPath | undefined): LexicalPath {
  if (p.root !== '.' || base === undefined) return p;
  const joined = `${formatPath(base)}/${p.parts.join('/')}`;
  return lexicalPath(joined) ?? p;
}

const segment = fc.oneof(
  fc.constantFrom('', '.', '..', 'a', 'b c', 'notes.txt', '~', '~u', 'file:', 'FILE:', 'localhost', '%2F', '%', '\0', 'x\0y', '\\', '/'),
  fc.string({ maxLength: 4 }),
);
const prefix = fc.constantFrom('', '/', '//', '~', '~u/', '~/', './', '../', 'file://', 'FILE://localhost/', 'file:/', 'C:');
/** Path texts of every kind `lexicalPath` reads: absolute, home, relative, file URIs, climbing, with odd segments. */
const pathText = fc.tuple(prefix, fc.array(segment, { maxLength: 6 })).map(([pre, segs]) => pre + segs.join('/'));
/** Paths as `lexicalPath` makes them, and as any code could build one (any root, any segments). */
const anyPath: fc.Arbitrary<LexicalPath | undefined> = fc.oneof(
  pathText.map((t) => lexicalPath(t)),
  fc.record({ root: fc.oneof(fc.constantFrom('/', '.', '~', '~u', '~u/x', '~\0', 'C:', ''), fc.string({ maxLength: 3 })), parts: fc.array(segment, { maxLength: 5 }), escapes: fc.boolean() }),
);

describe('resolveAgainst', () => {
  it('gives the path the joined text read again gives, key for key, for every path and base', () => {
    fc.assert(
      fc.property(anyPath, anyPath, (p, base) => {
        if (p === undefined) return;
        const got = resolveAgainst(p, base);
        const want = formerResolveAgainst(p, base);
        expect(got).toEqual(want);
        expect(Object.keys(got)).toEqual(Object.keys(want));
      }),
      { numRuns: 30000 },
    );
  });

  it('resolves the benches\' relative path against a root and a working directory as before', () => {
    for (const [rel, base] of [['notes.txt', '/tmp/qg-http-drive-x/ws'], ['../x/./y', '/srv'], ['../../..', '~u/a'], ['a/../..', '.'], ['~x', '/r'], ['b', 'file:///srv/ws']] as const) {
      const p = lexicalPath(rel)!;
      const b = lexicalPath(base)!;
      expect(resolveAgainst(p, b)).toEqual(formerResolveAgainst(p, b));
    }
  });
});
