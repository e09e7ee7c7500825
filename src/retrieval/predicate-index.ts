import { createHash } from 'node:crypto';
import { SparseInvertedIndex } from './inverted-index.js';
import { LocalEmbedder } from './local-embedder.js';
import type { Embedder, PredicateHit, PredicateSchemaText } from './types.js';
import { VectraStore } from './vectra-store.js';

/**
 * The top-k index of predicate schemas the state tracker consults (DESIGN §1, C = TopK ∪ MustCheck). Built once
 * when a policy loads. Two implementations behind one interface: an exact sparse inverted index for the local
 * hashing embedder, and a persisted vectra `LocalIndex` for any dense embedder.
 */
export interface PredicateIndex {
  /** Which embedder ranks the predicates. */
  readonly embedderId: string;
  /** The `k` predicates most similar to `text`, best first. */
  topK(text: string, k: number): Promise<PredicateHit[]>;
}

/** The text embedded for a predicate: its name in words, its definition and its keywords. */
export function predicateSchemaText(p: PredicateSchemaText): string {
  const kw = p.keywords && p.keywords.length > 0 ? `. ${p.keywords.join(', ')}` : '';
  return `${p.name.replace(/_/g, ' ')}. ${p.description}${kw}`;
}

/** A stable hash of the predicate schemas, used when no book hash is given. */
export function predicateSchemasHash(predicates: PredicateSchemaText[]): string {
  const h = createHash('sha256');
  for (const p of predicates) h.update(`${p.name}\u0000${predicateSchemaText(p)}\u0000`);
  return h.digest('hex');
}

/**
 * Exact cosine top-k over the local embedder's sparse vectors. Synchronous underneath (`topKSync`); the async
 * `topK` exists to share the `PredicateIndex` interface.
 */
export class SparsePredicateIndex implements PredicateIndex {
  readonly embedderId: string;
  private readonly index = new SparseInvertedIndex();
  private readonly names: string[] = [];

  constructor(
    predicates: PredicateSchemaText[],
    private readonly embedder: LocalEmbedder = new LocalEmbedder(),
  ) {
    this.embedderId = embedder.id;
    for (const p of predicates) {
      this.index.add(embedder.embedSparse(predicateSchemaText(p)));
      this.names.push(p.name);
    }
  }

  topKSync(text: string, k: number): PredicateHit[] {
    return this.index
      .search(this.embedder.embedSparse(text), k)
      .map((d) => ({ name: this.names[d.doc] as string, score: d.score }));
  }

  async topK(text: string, k: number): Promise<PredicateHit[]> {
    return this.topKSync(text, k);
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
    const { store, rebuilt } = await VectraStore.open(folder, { embedder: embedder.id, hash }, async () => {
      const vectors = await embedder.embed(predicates.map(predicateSchemaText));
      return predicates.map((p, i) => ({ name: p.name, vector: vectors[i] as Float32Array }));
    });
    return new VectraPredicateIndex(embedder, store, rebuilt);
  }

  async topK(text: string, k: number): Promise<PredicateHit[]> {
    const [v] = await this.embedder.embed([text]);
    if (!v) return [];
    const hits = await this.store.query(v, k);
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
