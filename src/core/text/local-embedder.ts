import { hashFeature } from './hashing.js';
import { sparseFromMap, sparseToDense } from './sparse.js';
import { extractFeatures } from './features.js';
import type { Embedder, SparseVector } from './types.js';

/** Options of the local hashing embedder. */
export interface LocalEmbedderOptions {
  /** Number of hashed dimensions (default 512). */
  dims?: number;
}

/** Defaults of `LocalEmbedderOptions`, in one place. */
export const LOCAL_EMBEDDER_DEFAULTS = { dims: 512 } as const;

/** Version of the feature set; bump when features or weights change so persisted indexes get rebuilt. */
const FEATURE_VERSION = 2;

/**
 * A deterministic embedder that needs no model and no download: word unigrams and bigrams (lightly stemmed)
 * and character 3–5-grams, signed-hashed into `dims` dimensions and L2-normalised. Similar wording gives
 * similar vectors; it knows no synonyms, which is what keywords in predicate schemas are for.
 *
 * Weights are rounded to float32 so that the sparse and dense forms hold the very same numbers.
 *
 * @example
 * const e = new LocalEmbedder();
 * const v = e.embedSparse('book a flight to Paris');   // { indices, values }
 * const [d] = await e.embed(['book a flight']);         // Float32Array(512)
 */
export class LocalEmbedder implements Embedder {
  readonly id: string;
  readonly dims: number;

  constructor(options: LocalEmbedderOptions = {}) {
    const dims = options.dims ?? LOCAL_EMBEDDER_DEFAULTS.dims;
    if (!Number.isInteger(dims) || dims < 8) throw new RangeError(`LocalEmbedder: dims must be an integer ≥ 8, got ${dims}`);
    this.dims = dims;
    this.id = `local-hash-v${FEATURE_VERSION}-${dims}`;
  }

  /** The L2-normalised sparse embedding of one text (empty for a text without letters or digits). */
  embedSparse(text: string): SparseVector {
    const acc = new Map<number, number>();
    for (const f of extractFeatures(text)) {
      const { index, sign } = hashFeature(f.key, this.dims);
      acc.set(index, (acc.get(index) ?? 0) + sign * f.weight);
    }
    let norm = 0;
    for (const v of acc.values()) norm += v * v;
    norm = Math.sqrt(norm);
    if (norm === 0) return { indices: [], values: [] };
    for (const [k, v] of acc) acc.set(k, Math.fround(v / norm));
    return sparseFromMap(acc);
  }

  /** Dense embeddings, one per text, in order. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedDenseSync(t));
  }

  /** The dense embedding of one text, synchronously. */
  embedDenseSync(text: string): Float32Array {
    return sparseToDense(this.embedSparse(text), this.dims);
  }
}
