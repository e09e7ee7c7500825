/**
 * Signed feature hashing: a feature name maps to one dimension and a sign, so collisions cancel on average
 * instead of piling up (Weinberger et al., 2009).
 */

/** 32-bit FNV-1a over UTF-16 code units, with a seed mixed into the offset basis. */
export function fnv1a(text: string, seed = 0): number {
  return fmix(fnvRaw(text, seed));
}

/** FNV-1a of `text` before the final avalanche: a state more characters can be fed into. */
export function fnvRaw(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Final avalanche (murmur3 fmix32) so that nearby keys spread over the low bits used for the index. */
export function fmix(state: number): number {
  let h = state;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

export const SIGN_SEED = 0x9e3779b9;

/** Dimension and sign of a feature in a space of `dims` dimensions. */
export function hashFeature(key: string, dims: number): { index: number; sign: 1 | -1 } {
  const index = fnv1a(key) % dims;
  const sign = (fnv1a(key, SIGN_SEED) & 1) === 0 ? 1 : -1;
  return { index, sign };
}
