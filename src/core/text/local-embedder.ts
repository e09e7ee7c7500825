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

/** The sign a feature's sign-seeded FNV-1a state gives it. */
const signOf = (hs: number): number => ((fmix(hs) & 1) === 0 ? 1 : -1);

/** Words whose features `LocalEmbedder` keeps, and the longest it keeps. */
const MAX_KEPT_WORDS = 4096;
const MAX_KEPT_WORD = 64;

/** What one word contributes, whatever text it is in (see `LocalEmbedder.wordFeatures`). */
interface WordFeatures {
  /** Its unigram's dimension and sign. */
  uni: number;
  uniSign: number;
  /** FNV-1a states of `b:<word> `, unseeded and sign-seeded: the bigram with the next word continues from them. */
  bi0: number;
  biS: number;
  /** Its character grams' dimensions and signs, in the defined order, and their common weight. */
  grams: Int32Array;
  gramSigns: Int8Array;
  gramWeight: number;
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
    this.mask = (dims & (dims - 1)) === 0 && dims <= 0x80000000 ? dims - 1 : -1;
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
    const add = (index: number, sign: number, weight: number): void => {
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
    // "tv" weighs as much as "television"). What depends on the word alone (its unigram's and grams' dimensions and
    // signs, its bigram's hash up to the next word) is computed once per word (`wordFeatures`); the bigram's hash is
    // finished with the next word's characters. The features are still added one by one in the defined order, so the
    // sums run as they always did. test/retrieval/local-embedder.test.ts keeps the definition written out and checks
    // the two agree.
    const words = stemmedTokens(text).filter((w) => !STOPWORDS.has(w));
    for (let i = 0; i < words.length; i++) {
      const f = this.wordFeatures(words[i] as string);
      add(f.uni, f.uniSign, FEATURE_WEIGHTS.unigram);
      if (i + 1 < words.length) {
        const next = words[i + 1] as string;
        const h = fnvFeed(f.bi0, next);
        const hs = fnvFeed(f.biS, next);
        add(this.dimensionOf(h), signOf(hs), FEATURE_WEIGHTS.bigram);
      }
      const { grams, gramSigns, gramWeight } = f;
      for (let g = 0; g < grams.length; g++) add(grams[g] as number, gramSigns[g] as number, gramWeight);
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

  /**
   * `x % dims` of a uint32 hash is its low bits when dims is a power of two (the default and the sparse index's): a
   * mask instead of a floating-point modulo, same dimension; −1 for other counts.
   */
  private readonly mask: number;

  /** The dimension of a feature's unseeded FNV-1a state. */
  private dimensionOf(h: number): number {
    return this.mask >= 0 ? fmix(h) & this.mask : fmix(h) % this.dims;
  }

  /**
   * Features of one word, kept for the next texts (a tool's name, `path`, `read`, `file` recur in every call of a
   * session): bounded, and emptied when full, so a stream of invented words costs what it cost without it.
   */
  private readonly words = new Map<string, WordFeatures>();

  /** What depends on `w` alone: its unigram, the start of its bigram, its character grams (see `embedSparse`). */
  private wordFeatures(w: string): WordFeatures {
    const known = this.words.get(w);
    if (known !== undefined) return known;
    // The padded word `^w$` is w.length + 2 characters long; its 3-, 4- and 5-grams share one budget.
    const plen = w.length + 2;
    let count = 0;
    for (let len = CHARGRAM.min; len <= CHARGRAM.max; len++) count += Math.max(0, plen - len + 1);
    const grams = new Int32Array(count);
    const gramSigns = new Int8Array(count);
    // FNV-1a extends a prefix's state one character at a time: the grams of one length, in start order, each hashed
    // from `c:` (unseeded: the dimension; sign-seeded: the sign), every 3-gram, then every 4-gram, then every 5-gram.
    let g = 0;
    for (let len = CHARGRAM.min; len <= CHARGRAM.max; len++) {
      for (let st = 0; st + len <= plen; st++) {
        let h = GRAM_PREFIX_0;
        let hs = GRAM_PREFIX_S;
        for (let j = st; j < st + len; j++) {
          const c = j === 0 ? CARET : j === plen - 1 ? DOLLAR : w.charCodeAt(j - 1);
          h = Math.imul(h ^ c, FNV_PRIME) >>> 0;
          hs = Math.imul(hs ^ c, FNV_PRIME) >>> 0;
        }
        grams[g] = this.dimensionOf(h);
        gramSigns[g] = signOf(hs);
        g++;
      }
    }
    const f: WordFeatures = {
      uni: this.dimensionOf(fnvFeed(UNIGRAM_PREFIX_0, w)),
      uniSign: signOf(fnvFeed(UNIGRAM_PREFIX_S, w)),
      bi0: Math.imul(fnvFeed(BIGRAM_PREFIX_0, w) ^ SPACE, FNV_PRIME) >>> 0,
      biS: Math.imul(fnvFeed(BIGRAM_PREFIX_S, w) ^ SPACE, FNV_PRIME) >>> 0,
      grams,
      gramSigns,
      gramWeight: count === 0 ? 0 : FEATURE_WEIGHTS.chargram / Math.sqrt(count),
    };
    if (w.length <= MAX_KEPT_WORD) {
      if (this.words.size >= MAX_KEPT_WORDS) this.words.clear();
      this.words.set(w, f);
    }
    return f;
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
