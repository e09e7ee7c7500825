import { describe, expect, it } from 'vitest';
import { SparseInvertedIndex } from '../../src/retrieval/inverted-index.js';
import { SparsePredicateIndex } from '../../src/retrieval/predicate-index.js';
import type { SparseVector } from '../../src/retrieval/types.js';

/** A deterministic pseudo-random generator (LCG), so failures reproduce. */
function rng(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

function vector(r: () => number, dims: number, nnz: number): SparseVector {
  const idx = [...new Set(Array.from({ length: nnz }, () => Math.floor(r() * dims)))].sort((a, b) => a - b);
  const vals = idx.map(() => r() * 2 - 1);
  const norm = Math.hypot(...vals) || 1;
  return { indices: idx, values: vals.map((v) => v / norm) };
}

/** The definition: every document's dot product, positive ones, best first, ties by document number. */
function reference(docs: SparseVector[], q: SparseVector, k: number) {
  const qm = new Map(q.indices.map((i, j) => [i, q.values[j]!]));
  return docs
    .map((d, doc) => ({ doc, score: d.indices.reduce((s, i, j) => s + (qm.get(i) ?? 0) * d.values[j]!, 0) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.doc - b.doc)
    .slice(0, k);
}

describe('sparse inverted index (hot path of top-k)', () => {
  it('ranks exactly like the brute-force definition, search after search (scratch state is reset)', () => {
    const r = rng(7);
    const docs = Array.from({ length: 300 }, () => vector(r, 64, 12));
    const index = new SparseInvertedIndex();
    for (const d of docs) index.add(d);
    for (let t = 0; t < 50; t++) {
      const q = vector(r, 64, 10);
      const k = 1 + Math.floor(r() * 40);
      const got = index.search(q, k);
      const want = reference(docs, q, k);
      expect(got.map((x) => x.doc)).toEqual(want.map((x) => x.doc));
      got.forEach((x, j) => expect(x.score).toBeCloseTo(want[j]!.score, 12));
    }
  });

  it('returns the same top-k predicates whatever k, as a prefix of the full ranking', () => {
    const preds = Array.from({ length: 40 }, (_, i) => ({ name: `p${i}`, description: `predicate ${i} about files, mail and web ${i % 7}`, keywords: [`kw${i % 5}`, `send ${i % 3}`] }));
    const idx = new SparsePredicateIndex(preds);
    const all = idx.topKSync('send a mail with the files of project 3', 40);
    for (const k of [1, 3, 5, 10]) expect(idx.topKSync('send a mail with the files of project 3', k)).toEqual(all.slice(0, k));
  });
});
