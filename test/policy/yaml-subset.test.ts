import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { parseBookText, parseBookTextWithYaml } from '../../src/policy/load.js';
import type { DocPath } from '../../src/policy/location.js';
import { parseYamlSubset } from '../../src/policy/yaml-subset.js';

/**
 * The subset reader is a short cut for `yaml`: wherever it answers, its value and every line:column must be
 * exactly `yaml`'s, and it must not answer for a text `yaml` rejects. Checked on every YAML file in the
 * repository, on hand-written tricky texts, and on thousands of mutants of the books.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const FILES = [
  'policies/default/book.yaml',
  'policies/eicu-ac/book.yaml',
  'policies/eicu-ac/access.yaml',
  'policies/mind2web-sc/book.yaml',
  'examples/quadguard.config.yaml',
  'test/cases/basic.yaml',
  'test/cases/errors.yaml',
  'test/cases/kinds.yaml',
  'test/cases/modes.yaml',
  'test/cases/scopes.yaml',
  'test/guard-model/book/book.yaml',
];

/** Every path to a node of `value`, each also followed by a key and an index that are not there. */
function paths(value: unknown, prefix: DocPath = [], acc: DocPath[] = []): DocPath[] {
  acc.push(prefix, [...prefix, 'no_such_key'], [...prefix, 7777]);
  if (Array.isArray(value)) {
    value.forEach((v, i) => paths(v, [...prefix, i], acc));
    if (value.length > 0) acc.push([...prefix, '0'], [...prefix, '']);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], acc);
  }
  return acc;
}

/** Why the subset reader's answer for `text` differs from `yaml`'s, or undefined when it agrees (or declines). */
function disagreement(text: string): string | undefined {
  const fast = parseYamlSubset(text);
  if (!fast) return undefined;
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) return `accepted a text yaml rejects: ${doc.errors[0]!.message}`;
  const want = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (!isDeepStrictEqual(fast.value, want)) return `value differs: ${JSON.stringify(fast.value)} vs ${JSON.stringify(want)}`;
  const a = parseBookText(text, 'f');
  const b = parseBookTextWithYaml(text, 'f');
  if (!isDeepStrictEqual(a.raw, b.raw)) return 'parseBookText value differs';
  for (const p of paths(want)) {
    for (const inner of [undefined, 1, 3]) {
      const x = a.locate(p, inner);
      const y = b.locate(p, inner);
      if (!isDeepStrictEqual(x, y)) return `location of ${JSON.stringify(p)} (${inner}) differs: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`;
    }
  }
  return undefined;
}

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [' ', '  ', '\n', '-', '- ', ':', ': ', '#', ' #', "'", '"', '[', ']', '{', '}', ',', '|', '>', '>-', '|-', '&a', '*a', '!', '?', '%', '@', '\\', '\t', '0', '1.5', '-1', '0x1', '.inf', 'null', 'true', '~', 'a', 'key: v', '__proto__: 1', '---', '...', '\r', '\u00a0', '\u200b', '\u2028', '\u0085', 'é'];

/** One random edit of `text`: a line removed, doubled, re-indented, split or joined, or a piece inserted or replacing a character. */
function mutate(text: string, r: () => number): string {
  const lines = text.split('\n');
  const i = Math.floor(r() * lines.length);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  switch (Math.floor(r() * 7)) {
    case 0:
      lines.splice(i, 1);
      break;
    case 1:
      lines.splice(i, 0, lines[i]!);
      break;
    case 2:
      lines[i] = r() < 0.5 ? ' '.repeat(1 + Math.floor(r() * 3)) + lines[i]! : lines[i]!.replace(/^ {1,2}/, '');
      break;
    case 3:
      if (i + 1 < lines.length) lines.splice(i, 2, `${lines[i]!} ${lines[i + 1]!.trimStart()}`);
      break;
    default: {
      const line = lines[i]!;
      const at = Math.floor(r() * (line.length + 1));
      lines[i] = line.slice(0, at) + pick(PIECES) + line.slice(at + (r() < 0.5 ? 1 : 0));
    }
  }
  return lines.join('\n');
}

describe('parseYamlSubset', () => {
  it('reads the default and eicu-ac books (so policy check takes the short cut) and agrees with yaml on every file of the repository', () => {
    for (const f of FILES) {
      const text = readFileSync(join(ROOT, f), 'utf8');
      expect(disagreement(text), f).toBeUndefined();
    }
    expect(parseYamlSubset(readFileSync(join(ROOT, 'policies/default/book.yaml'), 'utf8'))).toBeDefined();
    expect(parseYamlSubset(readFileSync(join(ROOT, 'policies/eicu-ac/book.yaml'), 'utf8'))).toBeDefined();
  });

  it('agrees with yaml (or declines) on tricky texts', () => {
    const texts = [
      'a: 1\nb: 1.50\nc: 007\nd: -1\ne: +1\nf: 1e3\ng: .5\nh: 0x1F\ni: 0o17\nj: .inf\nk: .NaN\nl: 1.2.3\nm: 127.0.0.1\n',
      'a: null\nb: Null\nc: NULL\nd: ~\ne: true\nf: True\ng: TRUE\nh: false\ni: yes\nj: on\nk: nul\n',
      "a: 'it''s'\nb: \"x 'y'\"\nc: \"a\\nb\"\nd: ''\ne: \"\"\nf: 'a' # c\ng: 'a'b\n",
      'a: x # comment\nb: x#y\nc: x: y\nd: x:y\ne: x:\nf: http://x.y/z\n',
      'a: [x, y z, "q", \'r\']\nb: []\nc: {}\nd: { k: v, l: [1, 2] }\ne: [a, ]\nf: [a,, b]\ng: {a:b}\nh: [a: b]\ni: [a #c\n  ]\n',
      'a: >-\n  one\n  two\nb: |\n  one\n  two\nc: >\n  x\n\nd: |-\n  x\n   y\ne: >\n  x\n\n  y\nf: |+\n  x\ng: >2\n  x\n',
      'a:\n  - x\n  - y\nb:\n- x\n- y\nc:\n  - k: v\n    l: w\n  - -1\n  - - n\n  -\n    m: 1\n',
      'a: x\n  continued\nb: "x\n  y"\nc: [x,\n  y]\n',
      'a: 1\na: 2\n',
      '__proto__: 1\n',
      'a: &x 1\nb: *x\nc: !!str 1\n',
      '? a\n: b\n',
      '%YAML 1.2\n---\na: 1\n',
      'a: 1\n---\nb: 2\n',
      'a:\tb\n',
      'a: b\r\n',
      '\ufeffa: b\n',
      'a:\n',
      'a: b\n  # indented comment\nc: d\n',
      'a:\n  b:\n    c: 1\n  d: 2\ne: 3',
      'a: |\n  x',
      'a: >-\n  x\n  y\n   ',
      'a: >-\n  x\n\n     \nb: 1\n',
      'a: |\n  x\n    \n',
      'a: >-\n  # not a comment\n  x\n',
      '- a\n- b\n',
      'a b: c\n',
      'a-b.c: d\n',
      'a: b\n b: c\n',
      'a:\n  b: 1\n c: 2\n',
      `${'k'.repeat(1100)}: 1\n`,
      `${'k'.repeat(1000)}: 1\n`,
      'a: x\u2028y\nb: x\u0085y\nc: x\u00a0y\nd: caf\u00e9 \u2014 ok\n',
    ];
    for (const t of texts) expect(disagreement(t), JSON.stringify(t)).toBeUndefined();
    // Some of them are read by the short cut, not all declined.
    expect(texts.filter((t) => parseYamlSubset(t) !== undefined).length).toBeGreaterThanOrEqual(4);
  });

  it('declines what it does not read (anchors, tags, tabs, multi-line scalars, duplicate keys, escapes)', () => {
    for (const t of ['a: &x 1\nb: *x\n', 'a: !!str 1\n', 'a:\tb\n', 'a: x\n  y\n', 'a: 1\na: 2\n', 'a: "\\n"\n', 'a: -1\n', 'a:\n']) {
      expect(parseYamlSubset(t), JSON.stringify(t)).toBeUndefined();
    }
  });

  it('agrees with yaml (or declines) on thousands of mutants of the books', () => {
    const sources = FILES.map((f) => readFileSync(join(ROOT, f), 'utf8'));
    // QG_SUBSET_MUTANTS / QG_SUBSET_SEED run a longer or different search by hand.
    const r = rng(Number(process.env.QG_SUBSET_SEED ?? 16));
    let read = 0;
    let tried = 0;
    for (let n = 0; n < Number(process.env.QG_SUBSET_MUTANTS ?? 3000); n++) {
      const src = sources[n % sources.length]!;
      // A window of the file keeps each mutant small (and so the yaml parse of it fast).
      // A window starting at a key, dedented by that key's indentation, is a document too.
      const lines = src.split('\n');
      const starts = lines.flatMap((l, i) => (/^ *[A-Za-z_][\w.-]*:/.test(l) ? [i] : []));
      const from = starts[Math.floor(r() * starts.length)]!;
      const indent = /^ */.exec(lines[from]!)![0].length;
      const window: string[] = [];
      const len = 5 + Math.floor(r() * 40);
      for (let i = from; i < lines.length && window.length < len && (lines[i]!.trim() === '' || /^ */.exec(lines[i]!)![0].length >= indent); i++) window.push(lines[i]!.slice(indent));
      let text = window.join('\n');
      for (let k = Math.floor(r() * 4); k > 0; k--) text = mutate(text, r);
      tried++;
      const why = disagreement(text);
      if (why) expect.fail(`${why}\n--- mutant ---\n${text}`);
      if (parseYamlSubset(text)) read++;
    }
    // The mutants exercise the reader, not just its refusals.
    expect(read).toBeGreaterThan(tried / 4);
    console.log(`mutants read ${read} of ${tried}`);
  });
});
