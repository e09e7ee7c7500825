import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMMON_SHARE, EXACT_UP_TO, SparseInvertedIndex, type ScoredDoc } from '../../src/retrieval/inverted-index.js';
import { predicateViews, SparsePredicateIndex } from '../../src/retrieval/predicate-index.js';
import { LocalEmbedder } from '../../src/core/text/local-embedder.js';
import type { PredicateSchemaText, SparseVector } from '../../src/retrieval/types.js';

/**
 * The short cuts of the retrieval hot path against the full computation they replace:
 * - `searchGroups` (one slot per group) ≡ ranking every document, then keeping each group's first appearance;
 * - the packed postings table ≡ the plain dot product of every document, summed in the query's feature order (the
 *   scores are compared bit for bit, not approximately);
 * - `SparsePredicateIndex.topKSync` ≡ its former definition: rank k·maxViews views, keep each name's first view.
 */

function rng(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

function vector(r: () => number, dims: number, nnz: number): SparseVector {
  const idx = [...new Set(Array.from({ length: nnz }, () => Math.floor(r() * dims)))].sort((a, b) => a - b);
  // Weights from a small set, so that different documents often get exactly the same score (ties).
  const vals = idx.map(() => [0.5, -0.25, 0.125, 1, 0.75][Math.floor(r() * 5)]!);
  const norm = Math.hypot(...vals) || 1;
  return { indices: idx, values: vals.map((v) => v / norm) };
}

/**
 * Every document's dot product with the query, summed over the query's features in order (the index's summation
 * order), the stop-features of a big index skipped; positive ones, best first, ties by document number.
 */
function fullRanking(docs: SparseVector[], q: SparseVector, accept?: (doc: number) => boolean): ScoredDoc[] {
  const holders = new Map<number, number>();
  for (const d of docs) for (const i of d.indices) holders.set(i, (holders.get(i) ?? 0) + 1);
  const maxPostings = Math.max(EXACT_UP_TO, Math.ceil(docs.length * COMMON_SHARE));
  return docs
    .map((d, doc) => {
      const dm = new Map(d.indices.map((i, j) => [i, d.values[j]!]));
      let score = 0;
      let shared = false;
      q.indices.forEach((i, j) => {
        if ((holders.get(i) ?? 0) > maxPostings || !dm.has(i)) return;
        shared = true;
        score += q.values[j]! * dm.get(i)!;
      });
      return { doc, score, shared };
    })
    .filter((x) => x.shared && x.score > 0 && (accept === undefined || accept(x.doc)))
    .map(({ doc, score }) => ({ doc, score }))
    .sort((a, b) => b.score - a.score || a.doc - b.doc);
}

/** The definition of a group search: the full ranking, each group's first (best) document, the first k. */
function groupsByDefinition(docs: SparseVector[], groupOf: number[], q: SparseVector, k: number, accept?: (doc: number) => boolean): ScoredDoc[] {
  const met = new Set<number>();
  const out: ScoredDoc[] = [];
  for (const d of fullRanking(docs, q, accept)) {
    if (met.has(groupOf[d.doc]!)) continue;
    met.add(groupOf[d.doc]!);
    out.push(d);
    if (out.length === k) break;
  }
  return out;
}

describe('SparseInvertedIndex: packed postings and searchGroups are exact', () => {
  it('search and searchGroups equal the full computation, bit for bit, ties included, search after search', () => {
    const r = rng(11);
    for (const [ndocs, dims, nnz] of [[300, 64, 12], [200, 16, 5], [40, 2048, 30], [700, 32, 8]] as const) {
      const docs = Array.from({ length: ndocs }, () => vector(r, dims, nnz));
      // Exact duplicates, in the same group and in other groups: equal scores to break by document number.
      for (let j = 0; j < 20; j++) docs.push(docs[Math.floor(r() * docs.length)]!);
      const groups = 1 + Math.floor(ndocs / 7);
      const groupOf = docs.map(() => Math.floor(r() * groups));
      const index = new SparseInvertedIndex();
      docs.forEach((d, j) => index.add(d, groupOf[j]));
      for (let t = 0; t < 60; t++) {
        const q = t % 5 === 0 ? docs[Math.floor(r() * docs.length)]! : vector(r, dims, 1 + Math.floor(r() * nnz));
        const k = 1 + Math.floor(r() * 30);
        const mod = 2 + (t % 3);
        const accept = t % 4 === 1 ? (doc: number) => doc % mod !== 0 : undefined;
        expect(index.search(q, k, accept)).toEqual(fullRanking(docs, q, accept).slice(0, k));
        expect(index.searchGroups(q, k, accept)).toEqual(groupsByDefinition(docs, groupOf, q, k, accept));
      }
    }
  });

  it('skips the stop-features of a big index exactly as the plain walk did (longer than the limit: skipped; at it: walked)', () => {
    const r = rng(5);
    // 600 documents: feature 0 in 513 of them (over EXACT_UP_TO = 512 and 5% of 600: skipped), feature 1 in exactly
    // 512 (walked).
    const docs = Array.from({ length: 600 }, (_, j) => {
      const v = vector(r, 4096, 10);
      const extra = [...(j < 513 ? [0] : []), ...(j >= 88 ? [1] : [])];
      return { indices: [...extra, ...v.indices.map((i) => i + 2)], values: [...extra.map(() => 0.3), ...v.values] };
    });
    expect(docs.filter((d) => d.indices.includes(0))).toHaveLength(513);
    expect(docs.filter((d) => d.indices.includes(1))).toHaveLength(512);
    const index = new SparseInvertedIndex();
    docs.forEach((d, j) => index.add(d, j % 50));
    const groupOf = docs.map((_, j) => j % 50);
    for (let t = 0; t < 20; t++) {
      const base = t < 10 ? docs[Math.floor(r() * docs.length)]! : vector(r, 4096, 6);
      const rest = t < 10 ? base : { indices: base.indices.map((i) => i + 2), values: base.values };
      const q = { indices: [0, 1, ...rest.indices.filter((i) => i > 1)], values: [0.5, 0.5, ...rest.values.slice(rest.indices.filter((i) => i <= 1).length)] };
      expect(index.search(q, 10)).toEqual(fullRanking(docs, q).slice(0, 10));
      expect(index.searchGroups(q, 10)).toEqual(groupsByDefinition(docs, groupOf, q, 10));
    }
  });

  it('sees documents added after a search (the packed table is rebuilt), and features it has never seen', () => {
    const r = rng(3);
    const docs = Array.from({ length: 50 }, () => vector(r, 128, 8));
    const index = new SparseInvertedIndex();
    docs.slice(0, 25).forEach((d) => index.add(d));
    const q = vector(r, 128, 20);
    expect(index.search(q, 50)).toEqual(fullRanking(docs.slice(0, 25), q));
    docs.slice(25).forEach((d) => index.add(d));
    expect(index.search(q, 50)).toEqual(fullRanking(docs, q));
    // Features of no document, far outside the documents' range, and not int32 at all: they match nothing.
    const odd = { indices: [...q.indices, 1e6, 2 ** 31 + 5], values: [...q.values, 0.5, 0.5] };
    expect(index.search(odd, 50)).toEqual(fullRanking(docs, q));
    expect(new SparseInvertedIndex().search(q, 5)).toEqual([]);
    expect(index.searchGroups(q, 0)).toEqual([]);
    expect(() => index.add(q, -1)).toThrow(RangeError);
    // A document's features are dimension numbers (the packed table's int32 keys): anything else is refused.
    for (const bad of [-1, 1.5, 2 ** 31]) expect(() => index.add({ indices: [bad], values: [1] })).toThrow(RangeError);
    // A refused document leaves the index as it was.
    expect(index.size).toBe(docs.length);
    expect(index.search(q, 50)).toEqual(fullRanking(docs, q));
  });

  it('agrees with the definition on arbitrary small indexes (property)', () => {
    const vec = fc
      .uniqueArray(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 8 })
      .chain((idx) => fc.tuple(fc.constant([...idx].sort((a, b) => a - b)), fc.array(fc.constantFrom(1, -1, 0.5, 2), { minLength: idx.length, maxLength: idx.length })))
      .map(([indices, values]) => ({ indices, values }));
    fc.assert(
      fc.property(fc.array(fc.tuple(vec, fc.integer({ min: 0, max: 6 })), { minLength: 1, maxLength: 40 }), vec, fc.integer({ min: 1, max: 10 }), (rows, q, k) => {
        const index = new SparseInvertedIndex();
        for (const [v, g] of rows) index.add(v, g);
        const docs = rows.map(([v]) => v);
        expect(index.search(q, k)).toEqual(fullRanking(docs, q).slice(0, k));
        expect(index.searchGroups(q, k)).toEqual(groupsByDefinition(docs, rows.map(([, g]) => g), q, k));
      }),
      { numRuns: 300 },
    );
  });
});

const e = new LocalEmbedder({ dims: 1 << 20 });
const viewIndexes = new WeakMap<PredicateSchemaText[], { views: Array<{ name: string }>; maxViews: number; index: SparseInvertedIndex }>();

/** `topKSync` as it was defined before groups: rank k·maxViews views, keep the first view of each name. */
function topKByViews(preds: PredicateSchemaText[], text: string, k: number, only?: ReadonlySet<string>) {
  let built = viewIndexes.get(preds);
  if (built === undefined) {
    const views = preds.flatMap((p) => predicateViews(p).map((view) => ({ name: p.name, v: e.embedSparse(view) })));
    const index = new SparseInvertedIndex();
    for (const x of views) index.add(x.v);
    viewIndexes.set(preds, (built = { views, maxViews: Math.max(1, ...preds.map((p) => predicateViews(p).length)), index }));
  }
  const { views, maxViews, index } = built;
  const accept = only === undefined ? undefined : (doc: number) => only.has(views[doc]!.name);
  const hits: Array<{ name: string; score: number }> = [];
  const seen = new Set<string>();
  for (const d of index.search(e.embedSparse(text), Math.min(index.size, k * maxViews), accept)) {
    const name = views[d.doc]!.name;
    if (seen.has(name)) continue;
    seen.add(name);
    hits.push({ name, score: d.score });
    if (hits.length === k) break;
  }
  return hits;
}

describe('SparsePredicateIndex.topKSync ≡ its definition over views', () => {
  const words = ['file', 'path', 'read', 'delete', 'secret', 'token', 'mail', 'send', 'upload', 'shell', 'rm -rf', 'notes', 'tool', 'result', 'call', 'password', 'web', 'fetch', 'url', 'private'];
  const r = rng(17);
  const pick = (n: number) => Array.from({ length: n }, () => words[Math.floor(r() * words.length)]!);
  const preds: PredicateSchemaText[] = Array.from({ length: 40 }, (_, i) => ({ name: `p${i}`, description: `the call ${pick(6).join(' ')}`, keywords: pick(Math.floor(r() * 12)) }));
  // Ties: two predicates with the very same views, one with only keywords another has, and a name listed twice.
  preds.push({ name: 'twin_a', description: 'reads a private file', keywords: ['secret', 'path'] });
  preds.push({ name: 'twin_b', description: 'reads a private file', keywords: ['secret', 'path'] });
  preds.push({ name: 'p3', description: 'second entry of p3 sends mail', keywords: ['mail'] });
  const idx = new SparsePredicateIndex(preds);
  const texts = [
    'tool call\nws read file\npath notes.txt',
    'tool result\nws read file\nbenchmark file: meeting notes, nothing secret\n',
    'reads a private file',
    'secret',
    'upload the password to a web url',
    'zzz qqq',
    '',
    ...Array.from({ length: 200 }, () => pick(1 + Math.floor(r() * 12)).join(r() < 0.5 ? ' ' : ', ')),
  ];

  it('gives the same names, scores and order for every text and k, with and without a name filter', () => {
    for (const text of texts) {
      for (const k of [1, 3, 5, 15, 50]) expect(idx.topKSync(text, k)).toEqual(topKByViews(preds, text, k));
      const only = new Set(preds.filter((_, j) => j % 3 !== 0).map((p) => p.name));
      expect(idx.topKSync(text, 7, only)).toEqual(topKByViews(preds, text, 7, only));
    }
  });

  it('ranks the default book exactly as the definition does', async () => {
    const { readFileSync } = await import('node:fs');
    const YAML = (await import('yaml')).default;
    const { compileBook } = await import('../../src/policy/index.js');
    const { compiled } = compileBook(YAML.parse(readFileSync('policies/default/book.yaml', 'utf8')), { bookDir: 'policies/default' });
    const book = compiled.predicates.map((p) => ({ name: p.name, description: p.def.description, ...(p.def.keywords ? { keywords: p.def.keywords } : {}) }));
    const def = new SparsePredicateIndex(book);
    for (const text of texts) for (const k of [5, 15, 24]) expect(def.topKSync(text, k)).toEqual(topKByViews(book, text, k));
  });
});
