import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServerConfigSchema } from '../../src/config/schema.js';
import { resolvePathArguments } from '../../src/proxy/resolved-paths.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'qg-resolve-')));
const box = join(dir, 'box');
const real = join(box, 'real');
mkdirSync(real, { recursive: true });
writeFileSync(join(real, 'a.txt'), 'a');
symlinkSync(real, join(box, 'link'));
const stdio = ServerConfigSchema.parse({ command: 'node' });

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('resolvePathArguments', () => {
  it('replaces a path through a link by the path it resolves to, at any depth, and says which fields', () => {
    const args = { source: join(box, 'link', 'a.txt'), opts: { paths: [join(box, 'link', 'new.txt'), join(real, 'a.txt')] }, note: 'hello' };
    const out = resolvePathArguments(stdio, args, [], [box]);
    expect(out.args).toEqual({ source: join(real, 'a.txt'), opts: { paths: [join(real, 'new.txt'), join(real, 'a.txt')] }, note: 'hello' });
    expect(out.resolved.map((r) => r.field)).toEqual(['arguments.source', 'arguments.opts.paths.0']);
    expect(args.source).toBe(join(box, 'link', 'a.txt')); // the client's object is not changed
  });

  it('resolves a relative path against the one directory the server resolves it against, and `..` after a link lexically', () => {
    expect(resolvePathArguments(stdio, { path: 'link/a.txt' }, [], [box]).args).toEqual({ path: join(real, 'a.txt') });
    expect(resolvePathArguments(stdio, { path: join(box, 'link', '..', 'real', 'a.txt') }, [], [box]).args).toEqual({ path: join(real, 'a.txt') });
  });

  it('leaves link-free paths, ambiguous relative paths, ~ paths, file URIs, remote servers and resolve_paths: false alone', () => {
    const plain = { path: join(real, 'a.txt') };
    expect(resolvePathArguments(stdio, plain, [], [box]).args).toBe(plain);
    const other = join(dir, 'other');
    mkdirSync(other, { recursive: true });
    const ambiguous = { path: 'link/a.txt' };
    expect(resolvePathArguments(stdio, ambiguous, [], [box, other]).args).toBe(ambiguous);
    for (const path of ['~/link/a.txt', `file://${join(box, 'link', 'a.txt')}`]) expect(resolvePathArguments(stdio, { path }, [], [box]).resolved).toEqual([]);
    const through = { path: join(box, 'link', 'a.txt') };
    expect(resolvePathArguments(ServerConfigSchema.parse({ url: 'http://127.0.0.1:1/mcp' }), through, [], undefined).args).toBe(through);
    expect(resolvePathArguments(ServerConfigSchema.parse({ command: 'node', resolve_paths: false }), through, [], [box]).args).toBe(through);
  });
  it('answers from the roots given at each call, whatever roots it read before (their parsed forms are kept)', () => {
    const other = join(dir, 'other');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'only-here.txt'), 'o');
    const viaLink = { path: 'link/a.txt' };
    const onlyOther = { path: 'only-here.txt' };
    const absolute = { path: join(box, 'link', 'a.txt') };
    const resolvedTo = join(real, 'a.txt');
    // The same array, changed between calls (the proxy's roots array of a server is not, but a client's roots are
    // new arrays of old strings): each answer is the one its roots give.
    const roots = [box];
    const steps: Array<[() => unknown, boolean]> = [
      [() => {}, true],
      [() => roots.push(other), false],
      [() => (roots[1] = box), true],
      [() => (roots[0] = other), false],
      [() => roots.splice(0, 1), true],
      [() => (roots[0] = 'relative/dir'), false],
      [() => roots.splice(0, 1, `${other}/../box`), true],
    ];
    for (const [step, linkResolves] of steps) {
      step();
      for (const given of [roots, [...roots]]) {
        expect(resolvePathArguments(stdio, viaLink, [], given).args).toEqual(linkResolves ? { path: resolvedTo } : viaLink);
        expect(resolvePathArguments(stdio, onlyOther, [], given).args).toBe(onlyOther);
        expect(resolvePathArguments(stdio, absolute, [], given).args).toEqual({ path: resolvedTo });
      }
    }
    // More distinct roots than the memo keeps, each a spelling of box: every one still parsed right.
    const spellings = Array.from({ length: 1500 }, (_, i) => `${box}/x${i}/..`);
    for (let i = 0; i < spellings.length; i += 100) expect(resolvePathArguments(stdio, viaLink, [], spellings.slice(i, i + 100)).args).toEqual({ path: resolvedTo });
    expect(resolvePathArguments(stdio, viaLink, [], [spellings[0]!, other]).args).toBe(viaLink);
  });
});
