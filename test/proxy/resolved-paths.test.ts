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
  it('reads a server\'s roots once per array, and again when the array is not the one it read', () => {
    // The proxy passes the same roots array on every call (roots.ts keeps it per server): the answers must be those
    // of a fresh copy, whose roots are read anew, whatever happened to the array since.
    const other = join(dir, 'other');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'only-here.txt'), 'o');
    const roots = [box];
    const asked = [{ path: 'link/a.txt' }, { path: 'only-here.txt' }, { path: join(box, 'link', 'a.txt') }];
    const same = () => asked.map((a) => resolvePathArguments(stdio, a, [], roots));
    const fresh = () => asked.map((a) => resolvePathArguments(stdio, a, [], [...roots]));
    for (const step of [() => {}, () => roots.push(other), () => (roots[1] = box), () => (roots[0] = other), () => roots.splice(0, 1), () => (roots[0] = 'relative/dir'), () => roots.splice(0, 1, box)]) {
      step();
      expect(same()).toEqual(fresh());
      expect(same()).toEqual(fresh());
    }
    expect(resolvePathArguments(stdio, { path: 'link/a.txt' }, [], roots).args).toEqual({ path: join(real, 'a.txt') });
  });
});
