/**
 * Signed feature hashing: a feature name maps to one dimension and a sign, so collisions cancel on average
 * instead of piling up (Weinberger et al., 2009).
 */

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

/** Seed of the hash whose lowest bit is a feature's sign. */
export const SIGN_SEED = 0x9e3779b9;
