/**
 * `globSet` (src/detectors/glob-set.ts) asks a list of globs as one expression; it must answer exactly what
 * picomatch's matcher over the same list answers: on the globs of every shipped book's `path_name` predicates, on
 * generated globs (classes, braces, extglobs, `**`, literals with special characters), and on generated paths.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { globSet } from '../../src/detectors/glob-set.js';

const POLICIES = join(import.meta.dirname, '../../policies');

/** Every `match` and `except` list of a `path_name` detector in the shipped books. */
function shippedGlobLists(): string[][] {
  const lists: string[][] = [];
  for (const name of readdirSync(POLICIES)) {
    const book = YAML.parse(readFileSync(join(POLICIES, name, 'book.yaml'), 'utf8')) as { predicates?: Array<{ detectors?: Array<Record<string, unknown>> }> };
    for (const p of book.predicates ?? []) {
      for (const d of p.detectors ?? []) {
        if (d.type !== 'path_name') continue;
        lists.push(d.match as string[]);
        if (Array.isArray(d.except)) lists.push(d.except as string[]);
      }
    }
  }
  return lists;
}

const segment = fc.oneof(
  fc.constantFrom('.ssh', 'id_rsa', 'id_ed25519.pub', '.env', '.env.example', '.env.local', 'etc', 'shadow', '~', '..', '.', 'home', 'me', 'x.p12', 'a[b', 'k8s', '.kube', 'config', 'credentials', 'a', 'b.txt', ''),
  fc.stringMatching(/^[a-z0-9._[\]{}()!@*?+-]{0,8}$/),
);
const path = fc.tuple(fc.constantFrom('', '/', '~/', './'), fc.array(segment, { maxLength: 6 })).map(([root, parts]) => root + parts.join('/'));
const globPart = fc.oneof(segment, fc.constantFrom('*', '**', '?', '*.txt', '{a,b}', '[ab]', '@(x|y)', '!(foo)', '+(a|b)', 'id_*', '*_key', '.env.*'));
const glob = fc.tuple(fc.constantFrom('', '/', '~/', '**/'), fc.array(globPart, { minLength: 1, maxLength: 4 })).map(([root, parts]) => root + parts.join('/')).filter((g) => g.length > 0);

const PROBES = [
  '/etc/shadow', '/home/me/.ssh/id_rsa', '/home/me/.ssh/id_rsa.pub', '~/.ssh/id_ed25519', 'src/.env', '.env.example', '/srv/app/.env.local',
  '/home/me/.aws/credentials', '~/.netrc', '/home/me/.kube/config', 'notes.txt', '/tmp/ws/notes.txt', '', '/', '.', '..', '../.env', 'a/../.env',
];

describe('globSet answers as picomatch does', () => {
  const lists = shippedGlobLists();

  it('on the shipped books\' path_name globs', () => {
    expect(lists.length).toBeGreaterThan(0);
    for (const globs of lists) {
      const reference = picomatch(globs, { dot: true });
      const one = globSet(globs, { dot: true });
      for (const p of [...PROBES, ...globs]) expect(one(p), `${p} against ${globs.length} globs`).toBe(reference(p));
      fc.assert(fc.property(path, (p) => one(p) === reference(p)), { numRuns: 500 });
    }
  });

  it('on generated globs and paths (and each glob as its own input)', () => {
    fc.assert(
      fc.property(fc.array(glob, { minLength: 1, maxLength: 6 }), fc.array(path, { maxLength: 20 }), fc.boolean(), (globs, paths, dot) => {
        let reference: (s: string) => boolean;
        try {
          reference = picomatch(globs, { dot });
        } catch {
          expect(() => globSet(globs, { dot })).toThrow();
          return;
        }
        const one = globSet(globs, { dot });
        for (const p of [...paths, ...globs, ...PROBES]) expect(one(p), `${JSON.stringify(p)} against ${JSON.stringify(globs)}`).toBe(reference(p));
      }),
      { numRuns: 600 },
    );
  });

  it('matches nothing for no globs', () => {
    expect(globSet([], { dot: true })('/etc/shadow')).toBe(false);
  });
});
