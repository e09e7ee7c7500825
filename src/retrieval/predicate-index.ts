import { createHash } from 'node:crypto';
import { SparseInvertedIndex } from './inverted-index.js';
import { LocalEmbedder } from '../core/text/local-embedder.js';
import type { Embedder, PredicateHit, PredicateSchemaText } from './types.js';
import type { VectraStore } from './vectra-store.js';

/**
 * The top-k index of predicate schemas the state tracker consults (DESIGN §1, C = TopK ∪ MustCheck). Built once
 * when a policy loads. Two implementations behind one interface: an exact sparse inverted index for the local
 * hashing embedder, and a persisted vectra `LocalIndex` for any dense embedder.
 *
 * Each predicate is embedded as several views: its whole schema (name, definition, keywords) and each keyword
 * alone. A predicate scores the best cosine of its views, so a long keyword list does not dilute the match of a
 * text that names just one of them ("Toyota" for a car predicate listing forty makes).
 */
export interface PredicateIndex {
  /** Which embedder ranks the predicates. */
  readonly embedderId: string;
  /**
   * The `k` predicates most similar to `text`, best first, with a positive score. `only` restricts the ranking
   * to those names (e.g. the predicates whose scope applies to the interaction kind).
   */
  topK(text: string, k: number, only?: ReadonlySet<string>): Promise<PredicateHit[]>;
}

/** The whole-schema view of a predicate: its name in words, its definition and its keywords. */
export function predicateSchemaText(p: PredicateSchemaText): string {
  const kw = p.keywords && p.keywords.length > 0 ? `. ${p.keywords.join(', ')}` : '';
  return `${p.name.replace(/_/g, ' ')}. ${p.description}${kw}`;
}

/** Every view embedded for a predicate: the whole schema, then each distinct keyword. */
export function predicateViews(p: PredicateSchemaText): string[] {
  return [predicateSchemaText(p), ...new Set((p.keywords ?? []).map((k) => k.trim()).filter((k) => k.length > 0))];
}

/** A stable hash of the predicate schemas, used when no book hash is given. */
export function predicateSchemasHash(predicates: PredicateSchemaText[]): string {
  const h = createHash('sha256');
  for (const p of predicates) h.update(`${p.name}\u0000${predicateViews(p).join('\u0001')}\u0000`);
  return h.digest('hex');
}

/**
 * Hash space of the default sparse index. Sparse vectors cost nothing per unused dimension, and a wide space keeps
 * hash collisions from merging postings lists: at 512 dimensions a 10,000-predicate book put ~1,000 documents
 * behind every query feature, so retrieval grew with the book.
 */
export const SPARSE_DIMS = 1 << 20;

/**
 * Exact cosine top-k over the local embedder's sparse vectors. Synchronous underneath (`topKSync`); the async
 * `topK` exists to share the `PredicateIndex` interface.
 */
export class SparsePredicateIndex implements PredicateIndex {
  readonly embedderId: string;
  private readonly index = new SparseInvertedIndex();
  /** Predicate name of each indexed view, by document number. */
  private readonly owner: string[] = [];

  constructor(
    predicates: PredicateSchemaText[],
    private readonly embedder: LocalEmbedder = new LocalEmbedder({ dims: SPARSE_DIMS }),
  ) {
    this.embedderId = embedder.id;
    // One group per predicate name (a name listed twice is one predicate, as it always ranked).
    const groups = new Map<string, number>();
    for (const p of predicates) {
      let group = groups.get(p.name);
      if (group === undefined) groups.set(p.name, (group = groups.size));
      for (const view of predicateViews(p)) {
        this.index.add(embedder.embedSparse(view), group);
        this.owner.push(p.name);
      }
    }
  }

  topKSync(text: string, k: number, only?: ReadonlySet<string>): PredicateHit[] {
    if (k <= 0) return [];
    const accept = only === undefined ? undefined : (doc: number) => only.has(this.owner[doc] as string);
    // A predicate scores its best view: the views of one predicate form one group of the index, ranked by its best
    // view (score, then view number), which is where the predicate first appears in the ranking of every view.
    return this.index.searchGroups(this.embedder.embedSparse(text), k, accept).map((d) => ({ name: this.owner[d.doc] as string, score: d.score }));
  }

  async topK(text: string, k: number, only?: ReadonlySet<string>): Promise<PredicateHit[]> {
    return this.topKSync(text, k, only);
  }
}

/** Top-k with a dense embedder, through a vectra `LocalIndex` persisted in a folder. */
export class VectraPredicateIndex implements PredicateIndex {
  readonly embedderId: string;

  private constructor(
    private readonly embedder: Embedder,
    private readonly store: VectraStore,
    /** True when opening had to (re)build the persisted index. */
    readonly rebuilt: boolean,
  ) {
    this.embedderId = embedder.id;
  }

  /**
   * Opens the index in `folder`, rebuilding it when it is absent or was built with another embedder id or
   * book hash (both stored in the index).
   */
  static async open(
    predicates: PredicateSchemaText[],
    options: { embedder: Embedder; folder: string; bookHash?: string },
  ): Promise<VectraPredicateIndex> {
    const { embedder, folder } = options;
    const hash = options.bookHash ?? predicateSchemasHash(predicates);
    // vectra (and what it pulls in: openai, gpt-tokenizer, cheerio…) loads only when a dense embedder is used.
    const { VectraStore } = await import('./vectra-store.js');
    const { store, rebuilt } = await VectraStore.open(folder, { embedder: embedder.id, hash }, async () => {
      const owners = predicates.flatMap((p) => predicateViews(p).map((view) => ({ name: p.name, view })));
      const vectors = await embedder.embed(owners.map((o) => o.view));
      return owners.map((o, j) => ({ name: o.name, vector: vectors[j] as Float32Array }));
    });
    return new VectraPredicateIndex(embedder, store, rebuilt);
  }

  async topK(text: string, k: number, only?: ReadonlySet<string>): Promise<PredicateHit[]> {
    const [v] = await this.embedder.embed([text]);
    if (!v) return [];
    const hits = await this.store.query(v, k, only);
    // vectra scores a zero query as NaN; treat "nothing in common" as no hit, like the sparse path.
    return hits.filter((h) => Number.isFinite(h.score) && h.score > 0);
  }
}

/** Options of `buildPredicateIndex`. */
export interface BuildPredicateIndexOptions {
  /** Dense embedder; absent or a `LocalEmbedder`: the exact sparse path. */
  embedder?: Embedder;
  /** Folder of the persisted vectra index (required with a dense embedder). */
  folder?: string;
  /** Hash of the policy book; a change rebuilds the persisted index. */
  bookHash?: string;
}

/**
 * Builds the predicate index for a loaded book: the sparse path for the local embedder, vectra otherwise.
 *
 * @example
 * const idx = await buildPredicateIndex(book.predicates);
 * const hits = await idx.topK('book a flight to Rome', 5);
 */
export async function buildPredicateIndex(
  predicates: PredicateSchemaText[],
  options: BuildPredicateIndexOptions = {},
): Promise<PredicateIndex> {
  const { embedder } = options;
  if (embedder === undefined || embedder instanceof LocalEmbedder) return new SparsePredicateIndex(predicates, embedder);
  if (options.folder === undefined) throw new Error('buildPredicateIndex: a dense embedder needs a folder for the vectra index');
  return VectraPredicateIndex.open(predicates, { embedder, folder: options.folder, ...(options.bookHash ? { bookHash: options.bookHash } : {}) });
}
