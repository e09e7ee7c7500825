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

/** FNV-1a states after each feature key's prefix (`w:`, `b:`, `c:`), unseeded and sign-seeded. */
const UNIGRAM_PREFIX_0 = fnvRaw('w:', 0);
const UNIGRAM_PREFIX_S = fnvRaw('w:', SIGN_SEED);
const BIGRAM_PREFIX_0 = fnvRaw('b:', 0);
const BIGRAM_PREFIX_S = fnvRaw('b:', SIGN_SEED);
const GRAM_PREFIX_0 = fnvRaw('c:', 0);
const GRAM_PREFIX_S = fnvRaw('c:', SIGN_SEED);
const FNV_PRIME = 0x01000193;
const SPACE = 0x20;
const CARET = 0x5e;
const DOLLAR = 0x24;

/** FNV-1a state `h` fed with the characters of `text` (what `fnvRaw(prefix + text)` gives from the prefix's state). */
function fnvFeed(h: number, text: string): number {
  let s = h;
  for (let i = 0; i < text.length; i++) s = Math.imul(s ^ text.charCodeAt(i), FNV_PRIME) >>> 0;
  return s;
}

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
    // `x % dims` of a uint32 hash is its low bits when dims is a power of two (the default and the sparse index's):
    // a mask instead of a floating-point modulo, same dimension.
    const mask = (dims & (dims - 1)) === 0 && dims <= 0x80000000 ? dims - 1 : -1;
    // Weights accumulate in a reused dense scratch (one slot per dimension), touched slots listed once: no Map on
    // the hot path of every guarded interaction. Sums run in feature order, as they always did.
    const scratch = (this.scratch ??= { acc: new Float64Array(dims), mark: new Uint8Array(dims), touched: new Int32Array(1024), grams: new Uint32Array(96) });
    const { acc, mark } = scratch;
    let touched = scratch.touched;
    let n = 0;
    const add = (h: number, hs: number, weight: number): void => {
      const index = mask >= 0 ? fmix(h) & mask : fmix(h) % dims;
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
    // computed in place, without building a key string. FNV-1a extends a prefix's state one character at a time, so
    // the 3-, 4- and 5-grams starting at one position share their first characters' hashing; they are still added in
    // the defined order (every 3-gram, then every 4-gram, then every 5-gram), so the sums run as they always did.
    // test/retrieval/local-embedder.test.ts keeps the definition written out and checks the two agree.
    const words = stemmedTokens(text).filter((w) => !STOPWORDS.has(w));
    for (let i = 0; i < words.length; i++) {
      const w = words[i] as string;
      add(fnvFeed(UNIGRAM_PREFIX_0, w), fnvFeed(UNIGRAM_PREFIX_S, w), FEATURE_WEIGHTS.unigram);
      if (i + 1 < words.length) {
        const next = words[i + 1] as string;
        const h = fnvFeed(Math.imul(fnvFeed(BIGRAM_PREFIX_0, w) ^ SPACE, FNV_PRIME) >>> 0, next);
        const hs = fnvFeed(Math.imul(fnvFeed(BIGRAM_PREFIX_S, w) ^ SPACE, FNV_PRIME) >>> 0, next);
        add(h, hs, FEATURE_WEIGHTS.bigram);
      }
      // The padded word `^w$` is w.length + 2 characters long.
      const plen = w.length + 2;
      let grams = 0;
      for (let len = CHARGRAM.min; len <= CHARGRAM.max; len++) grams += Math.max(0, plen - len + 1);
      const weight = grams === 0 ? 0 : FEATURE_WEIGHTS.chargram / Math.sqrt(grams);
      // States of the grams starting at each position, per length: [len - min][start], both seeds.
      const span = CHARGRAM.max - CHARGRAM.min + 1;
      const starts = plen - CHARGRAM.min + 1;
      if (starts <= 0) continue;
      let hg = scratch.grams;
      if (hg.length < 2 * span * starts) hg = scratch.grams = new Uint32Array(2 * span * starts * 2);
      for (let st = 0; st < starts; st++) {
        let h = GRAM_PREFIX_0;
        let hs = GRAM_PREFIX_S;
        for (let j = st; j < st + CHARGRAM.max && j < plen; j++) {
          const c = j === 0 ? CARET : j === plen - 1 ? DOLLAR : w.charCodeAt(j - 1);
          h = Math.imul(h ^ c, FNV_PRIME) >>> 0;
          hs = Math.imul(hs ^ c, FNV_PRIME) >>> 0;
          const len = j - st + 1;
          if (len >= CHARGRAM.min) {
            const slot = 2 * ((len - CHARGRAM.min) * starts + st);
            hg[slot] = h;
            hg[slot + 1] = hs;
          }
        }
      }
      for (let len = CHARGRAM.min; len <= CHARGRAM.max; len++) {
        for (let st = 0; st + len <= plen; st++) {
          const slot = 2 * ((len - CHARGRAM.min) * starts + st);
          add(hg[slot] as number, hg[slot + 1] as number, weight);
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
  private scratch: { acc: Float64Array; mark: Uint8Array; touched: Int32Array; grams: Uint32Array } | undefined;

  /** Dense embeddings, one per text, in order. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedDenseSync(t));
  }

  /** The dense embedding of one text, synchronously. */
  embedDenseSync(text: string): Float32Array {
    return sparseToDense(this.embedSparse(text), this.dims);
  }
}
