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
  /**
   * The same postings packed for searching, built at the first search after an `add`: an open-addressing table from
   * feature to its run in two flat arrays (documents ascending, weights). A probe in a small typed array instead of
   * a Map lookup per query feature.
   */
  private packed: PackedPostings | undefined;
  private count = 0;
  /** Scratch accumulators reused by every search (one slot per document, zero between searches). */
  private scores = new Float64Array(0);
  private seen = new Uint8Array(0);
  private touched = new Int32Array(0);
  /** Group of each document (see `add`), and one more than the largest group. */
  private readonly groupOf: number[] = [];
  private groupCount = 0;
  /** Scratch of `searchGroups`: per group its best document so far (−1: none), and the groups met, in order. */
  private groups = { best: new Int32Array(0), met: new Int32Array(0) };

  /**
   * Adds a unit-length vector; returns its document number (0, 1, 2, … in insertion order). `group` (a non-negative
   * integer, default: the document number) gathers documents `searchGroups` ranks as one, e.g. the views of one
   * predicate.
   */
  add(v: SparseVector, group?: number): number {
    const g = group ?? this.count;
    if (!Number.isInteger(g) || g < 0) throw new RangeError(`SparseInvertedIndex: group must be a non-negative integer, got ${g}`);
    // Features are dimension numbers: the packed table holds non-negative int32 keys. Checked before anything changes.
    for (const idx of v.indices) {
      if ((idx | 0) !== idx || idx < 0) throw new RangeError(`SparseInvertedIndex: a feature must be a non-negative 32-bit integer, got ${idx}`);
    }
    const doc = this.count++;
    this.groupOf.push(g);
    if (g >= this.groupCount) this.groupCount = g + 1;
    this.packed = undefined;
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
    const n = this.accumulate(query);
    const { scores, seen, touched } = this;
    // Keep the k best in a min-heap (worst on top): O(touched · log k) instead of sorting every touched document.
    const heap: ScoredDoc[] = [];
    for (let t = 0; t < n; t++) {
      const doc = touched[t] as number;
      const score = scores[doc] as number;
      scores[doc] = 0;
      seen[doc] = 0;
      if (!(score > 0) || (accept !== undefined && !accept(doc))) continue;
      const item = { doc, score };
      if (heap.length < k) heapPush(heap, item);
      else if (better(item, heap[0]!)) heapReplaceTop(heap, item);
    }
    return drainBestFirst(heap);
  }

  /**
   * The `k` best groups of documents, each as its best document (highest score, then lowest document number), best
   * first: exactly the first `k` distinct groups met walking `search(query, size, accept)` from the top, where a
   * group first appears with its best document. Same scores (same sums in the same order), same ties; but no
   * heap over every touched document, one slot per group. Groups are given to `add`; `accept` restricts the
   * candidate documents as in `search`.
   */
  searchGroups(query: SparseVector, k: number, accept?: (doc: number) => boolean): ScoredDoc[] {
    if (k <= 0) return [];
    const n = this.accumulate(query);
    const { scores, seen, touched, groupOf } = this;
    let groups = this.groups;
    if (groups.best.length < this.groupCount) groups = this.groups = { best: new Int32Array(this.groupCount).fill(-1), met: new Int32Array(this.groupCount) };
    const { best, met } = groups;
    let m = 0;
    for (let t = 0; t < n; t++) {
      const doc = touched[t] as number;
      const score = scores[doc] as number;
      seen[doc] = 0;
      if (!(score > 0) || (accept !== undefined && !accept(doc))) {
        scores[doc] = 0;
        continue;
      }
      const g = groupOf[doc] as number;
      const b = best[g] as number;
      if (b < 0) {
        best[g] = doc;
        met[m++] = g;
      } else {
        const bs = scores[b] as number;
        if (score > bs || (score === bs && doc < b)) best[g] = doc;
      }
    }
    // The k best groups by their best document, through the same bounded heap as `search`. Scores of the best
    // documents are still in place (only rejected ones were cleared); read them, then clear everything.
    const heap: ScoredDoc[] = [];
    for (let j = 0; j < m; j++) {
      const g = met[j] as number;
      const doc = best[g] as number;
      best[g] = -1;
      const item = { doc, score: scores[doc] as number };
      if (heap.length < k) heapPush(heap, item);
      else if (better(item, heap[0]!)) heapReplaceTop(heap, item);
    }
    for (let t = 0; t < n; t++) scores[touched[t] as number] = 0;
    return drainBestFirst(heap);
  }

  /**
   * Dot products of the query with every document sharing a walked feature, summed into `scores` (query features
   * in order, each feature's postings in document order: the same sums, in the same order, as a per-document dot
   * product); the touched documents are listed in `touched`, their count returned. The caller clears them.
   */
  private accumulate(query: SparseVector): number {
    if (this.scores.length < this.count) {
      this.scores = new Float64Array(this.count);
      this.seen = new Uint8Array(this.count);
      this.touched = new Int32Array(this.count);
    }
    const { scores, seen, touched } = this;
    let n = 0;
    const maxPostings = Math.max(EXACT_UP_TO, Math.ceil(this.count * COMMON_SHARE));
    this.packed ??= packPostings(this.postings);
    const { keys, start, end, docs, weights, shift, mask } = this.packed;
    for (let q = 0; q < query.indices.length; q++) {
      const feature = query.indices[q] as number;
      // Documents' features are non-negative int32 (checked by `add`); any other query feature is in no postings list.
      if ((feature | 0) !== feature || feature < 0) continue;
      let slot = Math.imul(feature, HASH_MULTIPLIER) >>> shift;
      let key = keys[slot] as number;
      while (key !== feature && key !== EMPTY) {
        slot = (slot + 1) & mask;
        key = keys[slot] as number;
      }
      if (key === EMPTY) continue;
      const from = start[slot] as number;
      const to = end[slot] as number;
      if (to - from > maxPostings) continue;
      const qw = query.values[q] as number;
      for (let j = from; j < to; j++) {
        const d = docs[j] as number;
        if (seen[d] === 0) {
          seen[d] = 1;
          touched[n++] = d;
        }
        scores[d] = (scores[d] as number) + qw * (weights[j] as number);
      }
    }
    return n;
  }
}

/** Postings packed for search (see `SparseInvertedIndex.packed`). */
interface PackedPostings {
  /** Feature of each slot, or `EMPTY`; the table has 2^(32 − shift) slots, at most half full. */
  keys: Int32Array;
  /** Per slot: its feature's run `[start, end)` in `docs` / `weights`. */
  start: Int32Array;
  end: Int32Array;
  docs: Int32Array;
  weights: Float64Array;
  shift: number;
  mask: number;
}

const EMPTY = -1;
/** Fibonacci hashing: the top bits of feature × 2^32/φ pick the slot. */
const HASH_MULTIPLIER = 0x9e3779b1 | 0;

/** Packs the postings (each list keeps its order, weights their exact values; features checked by `add`). */
function packPostings(postings: Map<number, { docs: number[]; weights: number[] }>): PackedPostings {
  let bits = 1;
  while (1 << bits < 2 * postings.size) bits++;
  const size = 1 << bits;
  const keys = new Int32Array(size).fill(EMPTY);
  const start = new Int32Array(size);
  const end = new Int32Array(size);
  let total = 0;
  for (const list of postings.values()) total += list.docs.length;
  const docs = new Int32Array(total);
  const weights = new Float64Array(total);
  const shift = 32 - bits;
  const mask = size - 1;
  let at = 0;
  for (const [feature, list] of postings) {
    let slot = Math.imul(feature, HASH_MULTIPLIER) >>> shift;
    while (keys[slot] !== EMPTY) slot = (slot + 1) & mask;
    keys[slot] = feature;
    start[slot] = at;
    for (let j = 0; j < list.docs.length; j++) {
      docs[at] = list.docs[j] as number;
      weights[at] = list.weights[j] as number;
      at++;
    }
    end[slot] = at;
  }
  return { keys, start, end, docs, weights, shift, mask };
}

/** Ranking order: higher score first, then lower document number. */
function better(a: ScoredDoc, b: ScoredDoc): boolean {
  return a.score > b.score || (a.score === b.score && a.doc < b.doc);
}

/**
 * The heap's items best first, emptying it: the worst is on top, so popping fills the answer from its end. `better`
 * is a strict total order (document numbers differ), so this is the order a sort by it gives.
 */
function drainBestFirst(h: ScoredDoc[]): ScoredDoc[] {
  const out = new Array<ScoredDoc>(h.length);
  for (let i = h.length - 1; i >= 0; i--) {
    out[i] = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) heapReplaceTop(h, last);
  }
  return out;
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
