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

import { codeUnits, normalisedCodes, type Codes } from './letters.js';

export interface FingerprintOptions {
  /** k-gram length in normalised characters. */
  k: number;
  /** Winnowing window (in k-grams). */
  window: number;
}

export const DEFAULT_FINGERPRINT: FingerprintOptions = { k: 20, window: 12 };

/** Letters and digits of `text`, NFKC, lower case: what fingerprints are taken over. */
export function normaliseForFingerprint(text: string): string {
  // ASCII text (most of it) is NFKC already, and its letters and digits are [A-Za-z0-9]: one pass over bytes.
  if (!NON_ASCII.test(text)) return normaliseAscii(text);
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

const NON_ASCII = /[^\x00-\x7f]/;

function normaliseAscii(text: string): string {
  const out = Buffer.allocUnsafe(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 97 && c <= 122) out[n++] = c;
    else if (c >= 65 && c <= 90) out[n++] = c + 32;
    else if (c >= 48 && c <= 57) out[n++] = c;
  }
  return out.toString('latin1', 0, n);
}

/** Base of the rolling polynomial hash that chooses k-grams (odd, so it is invertible modulo 2^32). */
const ROLL_BASE = 0x01000193;

/** `ROLL_BASE^(k-1)` modulo 2^32. */
function rollTop(k: number): number {
  let p = 1;
  for (let j = 1; j < k; j++) p = Math.imul(p, ROLL_BASE);
  return p;
}

/**
 * Winnowing over normalised text `s` (UTF-16 code units), in one pass: offers `into` each k-gram it selects — in every window of `w` consecutive k-grams, the one with the smallest choosing hash (rightmost on ties) —
 * in increasing order of position, each position once. The choosing hash of a k-gram is a polynomial rolling hash of
 * its characters (so equal k-grams always hash alike), mixed with the seed and finalised; it only chooses k-grams
 * and is never stored. Only the last `w` hashes are held (a ring), so memory does not grow with the text. A k-gram
 * whose hash is not below `into.ceiling` is not offered (`into` would refuse it).
 */
function winnowCodes(s: Codes, k: number, w: number, seed: number, into: Choices): void {
  const n = s.length - k + 1;
  if (n <= 0) return;
  const top = rollTop(k);
  let size = 1;
  while (size < w) size <<= 1;
  const mask = size - 1;
  const ring = new Uint32Array(size);
  let h = 0;
  for (let j = 0; j < k; j++) h = (Math.imul(h, ROLL_BASE) + s[j]!) | 0;
  if (n <= w) {
    // One window holds every k-gram: its minimum only.
    let best = 0;
    let bestHash = fmix32(h ^ seed);
    for (let i = 1; i < n; i++) {
      h = (Math.imul(h - Math.imul(s[i - 1]!, top), ROLL_BASE) + s[i + k - 1]!) | 0;
      const x = fmix32(h ^ seed);
      if (x <= bestHash) {
        best = i;
        bestHash = x;
      }
    }
    if (bestHash < into.ceiling) into.offer(bestHash, best);
    return;
  }
  let best = -1;
  let last = -1;
  for (let end = 0; end < n; end++) {
    if (end > 0) h = (Math.imul(h - Math.imul(s[end - 1]!, top), ROLL_BASE) + s[end + k - 1]!) | 0;
    const x = fmix32(h ^ seed);
    ring[end & mask] = x;
    const start = end - w + 1;
    if (start < 0) continue;
    if (best < start) {
      // The previous minimum left the window: scan the whole window again.
      best = start;
      let bestHash = ring[start & mask]!;
      for (let i = start + 1; i <= end; i++) {
        const y = ring[i & mask]!;
        if (y <= bestHash) {
          best = i;
          bestHash = y;
        }
      }
    } else if (x <= ring[best & mask]!) {
      best = end;
    } else {
      continue;
    }
    if (best !== last) {
      const chosen = ring[best & mask]!;
      if (chosen < into.ceiling) into.offer(chosen, best);
      last = best;
    }
  }
}

/**
 * Start offsets of the k-grams winnowing selects in normalised text `s`: in every window of `window`
 * consecutive k-grams, the one with the smallest hash (rightmost on ties), each offset once.
 */
export function winnow(s: string, opts: FingerprintOptions, seed: number): number[] {
  const all = new AllChoices();
  winnowCodes(codeUnits(s), opts.k, opts.window, seed, all);
  return all.at;
}

/** What winnowing selects goes to: `offer` takes (or refuses) a k-gram; one at or above `ceiling` it would refuse. */
interface Choices {
  readonly ceiling: number;
  offer(hash: number, at: number): void;
}

/** Every selected k-gram. */
class AllChoices implements Choices {
  readonly ceiling = Infinity;
  readonly at: number[] = [];
  offer(_hash: number, at: number): void {
    this.at.push(at);
  }
}

/** A keyed fingerprinter: the key decides both which k-grams are chosen and their stored hashes. */
export interface Fingerprinter {
  /** Distinct fingerprints (16 hex characters each) of already-normalised text. */
  ofNormalised(normalised: string): string[];
  /** Adds the fingerprints of already-normalised text to `into`, in the order `ofNormalised` lists them. */
  addNormalised(normalised: string, into: Set<string>): void;
  /** Distinct fingerprints of raw text. */
  of(text: string): string[];
  /**
   * At most `max` distinct fingerprints of raw text, sorted: those of the selected k-grams with the smallest choosing
   * hashes (a consistent sample of a long text; all of them when there are fewer than `max`).
   */
  ofBounded(text: string, max: number): string[];
  /** `ofBounded` of a text whose normalised code units (`normalisedCodes`) are `s`. */
  ofBoundedCodes(s: Codes, max: number): string[];
  /** The fingerprint of every k-gram of already-normalised text, chosen by winnowing or not (distinct, in order). */
  everyGram(normalised: string): string[];
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
function keyedHash(s: Codes, start: number, k: number, a: number, b: number): string {
  let h1 = a >>> 0;
  let h2 = b >>> 0;
  for (let j = start; j < start + k; j++) {
    const c = s[j]!;
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul((h2 ^ c) + (h2 >>> 15), 0x5bd1e995);
  }
  return hex16(fmix32(h1 ^ b), fmix32(h2 ^ a));
}

const HEX = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];

/** `x` and `y` as 16 lower-case hex digits, built as one flat string. */
function hex16(x: number, y: number): string {
  return String.fromCharCode(
    HEX[x >>> 28]!, HEX[(x >>> 24) & 15]!, HEX[(x >>> 20) & 15]!, HEX[(x >>> 16) & 15]!, HEX[(x >>> 12) & 15]!, HEX[(x >>> 8) & 15]!, HEX[(x >>> 4) & 15]!, HEX[x & 15]!,
    HEX[y >>> 28]!, HEX[(y >>> 24) & 15]!, HEX[(y >>> 20) & 15]!, HEX[(y >>> 16) & 15]!, HEX[(y >>> 12) & 15]!, HEX[(y >>> 8) & 15]!, HEX[(y >>> 4) & 15]!, HEX[y & 15]!,
  );
}

export function createFingerprinter(key: Buffer, options: FingerprintOptions = DEFAULT_FINGERPRINT): Fingerprinter {
  if (key.length < 12) throw new Error('the fingerprint key must be at least 12 bytes');
  const seed = key.readUInt32BE(0);
  const a = key.readUInt32BE(4);
  const b = key.readUInt32BE(8);
  const { k, window: w } = options;
  const addCodes = (s: Codes, into: Set<string>): void => {
    const all = new AllChoices();
    winnowCodes(s, k, w, seed, all);
    for (const at of all.at) into.add(keyedHash(s, at, k, a, b));
  };
  const fromCodes = (s: Codes): string[] => {
    const seen = new Set<string>();
    addCodes(s, seen);
    return [...seen];
  };
  const ofNormalised = (s: string): string[] => fromCodes(codeUnits(s));
  const addNormalised = (s: string, into: Set<string>): void => addCodes(codeUnits(s), into);
  const ofBoundedCodes = (s: Codes, max: number): string[] => {
    // The sample is the selected k-grams with the smallest choosing hashes: a function of each k-gram's content, so
    // a passage sent later holds the kept k-grams it held in the read. Only the kept ones get a keyed hash.
    const keep = new SmallestChoices(max);
    winnowCodes(s, k, w, seed, keep);
    const out = new Set<string>();
    for (const at of keep.positions()) out.add(keyedHash(s, at, k, a, b));
    return [...out].sort();
  };
  const everyGram = (normalised: string): string[] => {
    const s = codeUnits(normalised);
    const out = new Set<string>();
    for (let at = 0; at + k <= s.length; at++) out.add(keyedHash(s, at, k, a, b));
    return [...out];
  };
  return { options, ofNormalised, addNormalised, of: (text) => fromCodes(normalisedCodes(text)), ofBounded: (text, max) => ofBoundedCodes(normalisedCodes(text), max), ofBoundedCodes, everyGram };
}

/**
 * The `max` smallest distinct choosing hashes offered, with a position of each: a max-heap (largest on top) of
 * plain numbers, so a long read costs one comparison per selected k-gram.
 */
class SmallestChoices implements Choices {
  private readonly value: number[] = [];
  private readonly at: number[] = [];
  private readonly members = new Set<number>();
  /** The largest hash kept once `max` are kept: what is not below it is refused. */
  ceiling = Infinity;

  constructor(private readonly max: number) {}

  offer(hash: number, position: number): void {
    const full = this.value.length >= this.max;
    if ((full && hash >= this.value[0]!) || this.members.has(hash)) return;
    if (full) {
      this.members.delete(this.value[0]!);
      this.value[0] = hash;
      this.at[0] = position;
      this.down(0);
    } else {
      this.value.push(hash);
      this.at.push(position);
      this.up(this.value.length - 1);
    }
    this.members.add(hash);
    if (this.value.length >= this.max) this.ceiling = this.value[0]!;
  }

  positions(): readonly number[] {
    return this.at;
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.value[p]! >= this.value[i]!) return;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const n = this.value.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let big = i;
      if (l < n && this.value[l]! > this.value[big]!) big = l;
      if (r < n && this.value[r]! > this.value[big]!) big = r;
      if (big === i) return;
      this.swap(i, big);
      i = big;
    }
  }

  private swap(i: number, j: number): void {
    const v = this.value[i]!;
    this.value[i] = this.value[j]!;
    this.value[j] = v;
    const p = this.at[i]!;
    this.at[i] = this.at[j]!;
    this.at[j] = p;
  }
}
