import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { compileGlob, GLOB_ANSWERS_MAX, globToRegexSource } from '../../src/core/glob.js';

// The matcher as it was before it kept its answers (54834e0): the joined expression, tested on every call.
const formerCompileGlob = (patterns: string | readonly string[]) => {
  const list = typeof patterns === 'string' ? [patterns] : patterns;
  if (list.length === 0) return () => false;
  const re = new RegExp(`^(?:${list.map(globToRegexSource).join('|')})$`);
  return (name: string) => re.test(name);
};

/** Every list of tool globs in the shipped books (the predicates' `tools`, the `tool` detectors' and capabilities' `match`). */
function shippedGlobLists(): string[][] {
  const lists: string[][] = [];
  const walk = (v: unknown, key?: string): void => {
    if (Array.isArray(v)) {
      if ((key === 'tools' || key === 'match') && v.length > 0 && v.every((x) => typeof x === 'string')) lists.push(v as string[]);
      else for (const x of v) walk(x);
    } else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  const root = join(import.meta.dirname, '../../policies');
  for (const book of readdirSync(root)) walk(YAML.parse(readFileSync(join(root, book, 'book.yaml'), 'utf8')));
  return lists.filter((l) => l.every((g) => valid(g)));
}

function valid(g: string): boolean {
  try {
    globToRegexSource(g);
    return true;
  } catch {
    return false;
  }
}

const part = fc.constantFrom('fs', 'ws', 'send', 'send_email', 'delete', 'read_file', 'rm', 'post', 'http_post', 'share', 'a', 'x_y', '__', '_', '-', '.', 'shell', 'exec', 'pay', 'github', 'create_issue');
const name = fc.array(part, { minLength: 1, maxLength: 5 }).map((p) => p.join(''));
const glob = fc.array(fc.oneof(part, fc.constantFrom('*', '**', '?', '{send,post}', '*__*')), { minLength: 1, maxLength: 4 }).map((p) => p.join('')).filter(valid);

describe('a glob matcher that keeps its answers', () => {
  const books = shippedGlobLists();

  it('answers as the expression does, on the shipped books and generated globs, asked the same names again and past its bound', () => {
    expect(books.length).toBeGreaterThan(5);
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...books), fc.array(glob, { minLength: 1, maxLength: 6 })), fc.array(name, { minLength: 1, maxLength: 40 }), fc.nat(3), (globs, names, rounds) => {
        const kept = compileGlob(globs);
        const former = formerCompileGlob(globs);
        for (let r = 0; r <= rounds; r++) for (const n of names) expect(kept(n), `${globs.join(' ')} on ${n}`).toBe(former(n));
      }),
      { numRuns: 600 },
    );
  });

  it('keeps each matcher its own answers, and answers right once it has more names than it keeps', () => {
    const names = Array.from({ length: 3 * GLOB_ANSWERS_MAX + 7 }, (_, k) => (k % 3 === 0 ? `srv${k}__send_${k}` : k % 3 === 1 ? `srv${k}__read_${k}` : `plain${k}`));
    const lists = [...books, ['*__send*'], ['*__read*'], ['**']];
    const matchers = lists.map((l) => [compileGlob(l), formerCompileGlob(l)] as const);
    for (let round = 0; round < 2; round++) {
      for (const n of names) for (const [kept, former] of matchers) expect(kept(n)).toBe(former(n));
    }
  });
});
