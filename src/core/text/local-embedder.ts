import { fmix, fnvRaw, SIGN_SEED } from './hashing.js';
import { sparseToDense } from './sparse.js';
import { CHARGRAM, FEATURE_WEIGHTS, STOPWORDS, stemmedTokens } from './features.js';
import type { Embedder, SparseVector } from './types.js';

/** Options of the local hashing embedder. */
export interface LocalEmbedderOptions {
  /** Number of hashed dimensions (default 512). */
  dims?: number;
}

/** Defaults of `LocalEmbedderOptions`, in one place. */
export const LOCAL_EMBEDDER_DEFAULTS = { dims: 512 } as const;

/** FNV-1a state after the key prefix `c:` of a character n-gram, unseeded and sign-seeded. */
const GRAM_PREFIX_0 = fnvRaw('c:', 0);
const GRAM_PREFIX_S = fnvRaw('c:', SIGN_SEED);

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
    const dims = this.dims;
    // Weights accumulate in a reused dense scratch (one slot per dimension), touched slots listed once: no Map on
    // the hot path of every guarded interaction. Sums run in feature order, as they always did.
    const scratch = (this.scratch ??= { acc: new Float64Array(dims), mark: new Uint8Array(dims), touched: new Int32Array(1024) });
    const { acc, mark } = scratch;
    let touched = scratch.touched;
    let n = 0;
    const add = (h: number, hs: number, weight: number): void => {
      const index = fmix(h) % dims;
      const sign = (fmix(hs) & 1) === 0 ? 1 : -1;
      if (mark[index] === 0) {
        mark[index] = 1;
        if (n === touched.length) {
          const grown = new Int32Array(touched.length * 2);
          grown.set(touched);
          touched = scratch.touched = grown;
        }
        touched[n++] = index;
      }
      acc[index] = (acc[index] as number) + sign * weight;
    };
    // The features, in this order: per content word (stemmed, stopwords dropped) its unigram `w:<word>`, its bigram
    // `b:<word> <next>` and the character 3–5-grams `c:<gram>` of `^word$`, which share one budget per word (so
    // "tv" weighs as much as "television"). Each key's FNV-1a (unseeded: the dimension; sign-seeded: the sign) is
    // computed in place, without building a key string per n-gram. test/retrieval/local-embedder.test.ts keeps the
    // definition written out and checks the two agree.
    const words = stemmedTokens(text).filter((w) => !STOPWORDS.has(w));
    for (let i = 0; i < words.length; i++) {
      const w = words[i] as string;
      const unigram = `w:${w}`;
      add(fnvRaw(unigram, 0), fnvRaw(unigram, SIGN_SEED), FEATURE_WEIGHTS.unigram);
      if (i + 1 < words.length) {
        const bigram = `b:${w} ${words[i + 1] as string}`;
        add(fnvRaw(bigram, 0), fnvRaw(bigram, SIGN_SEED), FEATURE_WEIGHTS.bigram);
      }
      const padded = `^${w}$`;
      let grams = 0;
      for (let len = CHARGRAM.min; len <= CHARGRAM.max; len++) grams += Math.max(0, padded.length - len + 1);
      const weight = grams === 0 ? 0 : FEATURE_WEIGHTS.chargram / Math.sqrt(grams);
      for (let len = CHARGRAM.min; len <= CHARGRAM.max; len++) {
        for (let st = 0; st + len <= padded.length; st++) {
          let h = GRAM_PREFIX_0;
          let hs = GRAM_PREFIX_S;
          for (let j = st; j < st + len; j++) {
            const c = padded.charCodeAt(j);
            h = Math.imul(h ^ c, 0x01000193) >>> 0;
            hs = Math.imul(hs ^ c, 0x01000193) >>> 0;
          }
          add(h, hs, weight);
        }
      }
    }
    // Dimensions in ascending order, zeros (cancelled features) dropped, L2-normalised, rounded to float32.
    let norm = 0;
    for (let k = 0; k < n; k++) norm += (acc[touched[k]!] as number) ** 2; // first-seen order, as the sum always ran
    norm = Math.sqrt(norm);
    const order = touched.subarray(0, n).sort();
    const indices: number[] = [];
    const values: number[] = [];
    for (let k = 0; k < n; k++) {
      const index = order[k]!;
      const v = acc[index] as number;
      acc[index] = 0;
      mark[index] = 0;
      if (v !== 0 && norm !== 0) {
        indices.push(index);
        values.push(Math.fround(v / norm));
      }
    }
    return { indices, values };
  }

  /** Scratch of `embedSparse`, allocated on first use. */
  private scratch: { acc: Float64Array; mark: Uint8Array; touched: Int32Array } | undefined;

  /** Dense embeddings, one per text, in order. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedDenseSync(t));
  }

  /** The dense embedding of one text, synchronously. */
  embedDenseSync(text: string): Float32Array {
    return sparseToDense(this.embedSparse(text), this.dims);
  }
}
