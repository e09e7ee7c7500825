import type { SparseVector } from './types.js';

/** One scored document of an inverted-index search. */
export interface ScoredDoc {
  doc: number;
  score: number;
}

/**
 * An exact cosine search over L2-normalised sparse vectors with an inverted index: for each non-zero feature of
 * the query, walk that feature's postings and accumulate dot products. The cost follows the query's features and
 * their postings, not the number of documents; documents sharing no feature with the query are never touched, and
 * features common to a large share of a big book are skipped (see `EXACT_UP_TO`).
 */
/**
 * Query features whose postings are longer than this are skipped (stop-features): they occur in so many predicate
 * schemas that they barely separate them, and walking them would make every query cost O(predicates). Books up to
 * `EXACT_UP_TO` predicates are searched exactly; beyond, features in more than `COMMON_SHARE` of them are skipped.
 */
export const EXACT_UP_TO = 512;
export const COMMON_SHARE = 0.05;

export class SparseInvertedIndex {
  /** Per feature: the documents holding it (ascending) and their weights, as parallel arrays. */
  private readonly postings = new Map<number, { docs: number[]; weights: number[] }>();
  private count = 0;
  /** Scratch accumulators reused by every search (one slot per document, zero between searches). */
  private scores = new Float64Array(0);
  private seen = new Uint8Array(0);

  /** Adds a unit-length vector; returns its document number (0, 1, 2, … in insertion order). */
  add(v: SparseVector): number {
    const doc = this.count++;
    for (let k = 0; k < v.indices.length; k++) {
      const idx = v.indices[k] as number;
      let list = this.postings.get(idx);
      if (!list) this.postings.set(idx, (list = { docs: [], weights: [] }));
      list.docs.push(doc);
      list.weights.push(v.values[k] as number);
    }
    return doc;
  }

  get size(): number {
    return this.count;
  }

  /**
   * The `k` documents with the highest cosine to a unit-length query, best first; ties broken by document
   * number so results are deterministic. Only positive scores are returned (signed hashing can make unrelated
   * texts slightly negative; documents sharing no feature score 0). `accept` restricts the candidates.
   *
   * Hot path of every interaction: dot products accumulate in a reused typed array (same summation order as a
   * plain per-document sum), and only the touched documents are collected, filtered and ranked.
   */
  search(query: SparseVector, k: number, accept?: (doc: number) => boolean): ScoredDoc[] {
    if (k <= 0) return [];
    if (this.scores.length < this.count) {
      this.scores = new Float64Array(this.count);
      this.seen = new Uint8Array(this.count);
    }
    const scores = this.scores;
    const seen = this.seen;
    const touched: number[] = [];
    const maxPostings = Math.max(EXACT_UP_TO, Math.ceil(this.count * COMMON_SHARE));
    for (let q = 0; q < query.indices.length; q++) {
      const list = this.postings.get(query.indices[q] as number);
      if (!list || list.docs.length > maxPostings) continue;
      const qw = query.values[q] as number;
      const { docs, weights } = list;
      for (let j = 0; j < docs.length; j++) {
        const d = docs[j] as number;
        if (seen[d] === 0) {
          seen[d] = 1;
          touched.push(d);
        }
        scores[d] = (scores[d] as number) + qw * (weights[j] as number);
      }
    }
    // Keep the k best in a min-heap (worst on top): O(touched · log k) instead of sorting every touched document.
    const heap: ScoredDoc[] = [];
    for (const doc of touched) {
      const score = scores[doc] as number;
      scores[doc] = 0;
      seen[doc] = 0;
      if (!(score > 0) || (accept !== undefined && !accept(doc))) continue;
      const item = { doc, score };
      if (heap.length < k) heapPush(heap, item);
      else if (better(item, heap[0]!)) heapReplaceTop(heap, item);
    }
    return heap.sort((a, b) => b.score - a.score || a.doc - b.doc);
  }
}

/** Ranking order: higher score first, then lower document number. */
function better(a: ScoredDoc, b: ScoredDoc): boolean {
  return a.score > b.score || (a.score === b.score && a.doc < b.doc);
}

function heapPush(h: ScoredDoc[], x: ScoredDoc): void {
  h.push(x);
  let i = h.length - 1;
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (!better(h[p]!, h[i]!)) break;
    [h[p], h[i]] = [h[i]!, h[p]!];
    i = p;
  }
}

function heapReplaceTop(h: ScoredDoc[], x: ScoredDoc): void {
  h[0] = x;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let worst = i;
    if (l < h.length && better(h[worst]!, h[l]!)) worst = l;
    if (r < h.length && better(h[worst]!, h[r]!)) worst = r;
    if (worst === i) return;
    [h[worst], h[i]] = [h[i]!, h[worst]!];
    i = worst;
  }
}
