/**
 * Fingerprints of text for data-flow tracking (docs/data-flow.md): normalised text → character k-grams →
 * winnowing (Schleimer et al., 2003) → a 64-bit keyed hash of each selected k-gram. Two texts that share a run of
 * at least `k + window - 1` normalised characters share at least one fingerprint; shorter runs (common phrases)
 * share none. Only the keyed hashes leave this module. The hash is a fast seeded mix (two FNV-1a lanes with
 * murmur3 finalisers, seeded by the per-store key), not a cryptographic MAC: it keeps the data out of the store
 * and makes fingerprints of one store useless against another, at about a microsecond per k-gram.
 *
 * Normalisation makes case, accents' composition, punctuation and whitespace irrelevant: NFKC, lower case, and
 * only letters and digits kept.
 */

export interface FingerprintOptions {
  /** k-gram length in normalised characters. */
  k: number;
  /** Winnowing window (in k-grams). */
  window: number;
}

export const DEFAULT_FINGERPRINT: FingerprintOptions = { k: 20, window: 12 };

/** Letters and digits of `text`, NFKC, lower case: what fingerprints are taken over. */
export function normaliseForFingerprint(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Seeded 32-bit FNV-1a of `s[start, start+k)`; used only to choose k-grams, never stored. */
function gramHash(s: string, start: number, k: number, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let j = start; j < start + k; j++) {
    h ^= s.charCodeAt(j);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * Start offsets of the k-grams winnowing selects in normalised text `s`: in every window of `window`
 * consecutive k-grams, the one with the smallest hash (rightmost on ties), each offset once.
 */
export function winnow(s: string, opts: FingerprintOptions, seed: number): number[] {
  const { k, window: w } = opts;
  const n = s.length - k + 1;
  if (n <= 0) return [];
  const hashes = new Uint32Array(n);
  for (let i = 0; i < n; i++) hashes[i] = gramHash(s, i, k, seed);
  if (n <= w) {
    let best = 0;
    for (let i = 1; i < n; i++) if (hashes[i]! <= hashes[best]!) best = i;
    return [best];
  }
  const out: number[] = [];
  let last = -1;
  for (let start = 0; start + w <= n; start++) {
    let best = start;
    for (let i = start + 1; i < start + w; i++) if (hashes[i]! <= hashes[best]!) best = i;
    if (best !== last) {
      out.push(best);
      last = best;
    }
  }
  return out;
}

/** A keyed fingerprinter: the key decides both which k-grams are chosen and their stored hashes. */
export interface Fingerprinter {
  /** Distinct fingerprints (16 hex characters each) of already-normalised text. */
  ofNormalised(normalised: string): string[];
  /** Distinct fingerprints of raw text. */
  of(text: string): string[];
  readonly options: FingerprintOptions;
}

/** murmur3's 32-bit finaliser. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** 64 bits, as 16 hex characters, of `s[start, start+k)` under two key-derived seeds. */
function keyedHash(s: string, start: number, k: number, a: number, b: number): string {
  let h1 = a >>> 0;
  let h2 = b >>> 0;
  for (let j = start; j < start + k; j++) {
    const c = s.charCodeAt(j);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul((h2 ^ c) + (h2 >>> 15), 0x5bd1e995);
  }
  return fmix32(h1 ^ b).toString(16).padStart(8, '0') + fmix32(h2 ^ a).toString(16).padStart(8, '0');
}

export function createFingerprinter(key: Buffer, options: FingerprintOptions = DEFAULT_FINGERPRINT): Fingerprinter {
  if (key.length < 12) throw new Error('the fingerprint key must be at least 12 bytes');
  const seed = key.readUInt32BE(0);
  const a = key.readUInt32BE(4);
  const b = key.readUInt32BE(8);
  const ofNormalised = (s: string): string[] => {
    const seen = new Set<string>();
    for (const at of winnow(s, options, seed)) seen.add(keyedHash(s, at, options.k, a, b));
    return [...seen];
  };
  return { options, ofNormalised, of: (text) => ofNormalised(normaliseForFingerprint(text)) };
}

/**
 * At most `max` of `fingerprints`, chosen by value (the smallest), so a long read keeps a consistent sample:
 * the same passage sent later is matched against the same kept fingerprints.
 */
export function boundFingerprints(fingerprints: string[], max: number): string[] {
  if (fingerprints.length <= max) return fingerprints;
  return [...fingerprints].sort().slice(0, max);
}
