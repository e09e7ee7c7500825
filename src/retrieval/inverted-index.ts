import type { SparseVector } from './types.js';

/** One scored document of an inverted-index search. */
export interface ScoredDoc {
  doc: number;
  score: number;
}

/**
 * An exact cosine search over L2-normalised sparse vectors with an inverted index: for each non-zero feature of
 * the query, walk that feature's postings and accumulate dot products. The cost follows the query's features and
 * their postings, not the number of documents; documents sharing no feature with the query are never touched.
 */
export class SparseInvertedIndex {
  private readonly postings = new Map<number, Array<{ doc: number; weight: number }>>();
  private count = 0;

  /** Adds a unit-length vector; returns its document number (0, 1, 2, … in insertion order). */
  add(v: SparseVector): number {
    const doc = this.count++;
    v.indices.forEach((idx, k) => {
      let list = this.postings.get(idx);
      if (!list) this.postings.set(idx, (list = []));
      list.push({ doc, weight: v.values[k] as number });
    });
    return doc;
  }

  get size(): number {
    return this.count;
  }

  /**
   * The `k` documents with the highest cosine to a unit-length query, best first; ties broken by document
   * number so results are deterministic. Only positive scores are returned (signed hashing can make unrelated
   * texts slightly negative; documents sharing no feature score 0). `accept` restricts the candidates.
   */
  search(query: SparseVector, k: number, accept?: (doc: number) => boolean): ScoredDoc[] {
    if (k <= 0) return [];
    const acc = new Map<number, number>();
    query.indices.forEach((idx, qk) => {
      const list = this.postings.get(idx);
      if (!list) return;
      const qw = query.values[qk] as number;
      for (const p of list) acc.set(p.doc, (acc.get(p.doc) ?? 0) + qw * p.weight);
    });
    const all: ScoredDoc[] = [...acc]
      .filter(([doc, score]) => score > 0 && (accept === undefined || accept(doc)))
      .map(([doc, score]) => ({ doc, score }));
    all.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return all.slice(0, k);
  }
}
