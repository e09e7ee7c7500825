/**
 * Would a probabilistic set do for the data-flow store (issue 30)? A Bloom filter per identity (and time window)
 * holding the keyed fingerprints of its private reads, instead of one exact row per fingerprint: how often does it
 * make a spurious exfiltration refusal, from its parameters and measured on ordinary text.
 *
 * The texts of bench/benign-texts.ts are read and sent as the guard does (src/guard/dataflow.ts `record`: gram
 * fingerprints of the text and of its rot13/reversed/reversed-word forms, keyed hashes of its short values and
 * lines; a send: the gram fingerprints, pieces and lines of the text as it is). For each source, one identity is taken
 * to hold every text of every OTHER source; that source's texts are sent. A send is refused (the data-flow rules:
 * `min_matches` 3 shared fingerprints, or one short value) by the exact set when it shares data, by the filter when
 * its probes say so. A spurious refusal: the filter refuses and the exact set does not.
 *
 * Run: npx tsx bench/flow-filter-fp.ts [--bits 8,12,16,24,32,44]
 */
import { parseArgs } from 'node:util';
import { createFingerprinter, normaliseForFingerprint } from '../src/core/text/fingerprint.js';
import { privateForms } from '../src/core/text/readings.js';
import { createValueHasher, distinctiveValues, isValueHash, outgoingPieces, shortLines } from '../src/core/text/short-values.js';
import { benignTexts } from './benign-texts.js';

const { values } = parseArgs({ options: { bits: { type: 'string', default: '8,12,16,24,32,44' } } });
const BITS = values.bits.split(',').map(Number);
const MIN_MATCHES = 3;
const MAX_PER_READ = 4096;
const FORMS_MAX_CHARS = 64 * 1024;

const key = Buffer.alloc(32, 9);
const fp = createFingerprinter(key);
const valueHash = createValueHasher(key);
const docs = benignTexts();
const read = (text: string): string[] => [
  ...new Set([
    ...fp.ofBounded(text, MAX_PER_READ),
    ...privateForms(text, FORMS_MAX_CHARS).flatMap((f) => fp.ofBounded(f, MAX_PER_READ)),
    ...distinctiveValues(text, MAX_PER_READ).map(valueHash),
    ...shortLines(text).map(valueHash),
  ]),
];
const send = (text: string): string[] => [...new Set([...fp.ofNormalised(normaliseForFingerprint(text)), ...outgoingPieces([text]).map(valueHash), ...shortLines(text).map(valueHash)])];

/** A Bloom filter of `n` elements at `bitsPer` bits each, k = bitsPer·ln 2 probes by double hashing of the 64-bit keyed hash. */
class Bloom {
  private readonly words: Uint32Array;
  private readonly m: number;
  readonly k: number;
  constructor(n: number, bitsPer: number) {
    this.m = Math.max(64, Math.ceil(n * bitsPer));
    this.k = Math.max(1, Math.round(bitsPer * Math.LN2));
    this.words = new Uint32Array(Math.ceil(this.m / 32));
  }
  private probes(h: string, f: (bit: number) => boolean | void): boolean {
    const hex = isValueHash(h) ? h.slice(1) : h;
    const a = parseInt(hex.slice(0, 8), 16);
    const b = parseInt(hex.slice(8, 16), 16) | 1;
    for (let i = 0; i < this.k; i++) if (f((a + Math.imul(i, b) >>> 0) % this.m) === false) return false;
    return true;
  }
  add(h: string): void {
    this.probes(h, (bit) => void (this.words[bit >>> 5]! |= 1 << (bit & 31)));
  }
  has(h: string): boolean {
    return this.probes(h, (bit) => (this.words[bit >>> 5]! & (1 << (bit & 31))) !== 0);
  }
}

const refused = (hits: string[]) => hits.length >= MIN_MATCHES || hits.some(isValueHash);
const reads = docs.map((d) => read(d.text));
const sends = docs.map((d) => send(d.text));
const groups = [...new Set(docs.map((d) => d.group))];
const probes = sends.reduce((n, s) => n + s.length, 0);
console.log(`${docs.length} texts from ${groups.length} sources; ${reads.reduce((n, r) => n + r.length, 0)} fingerprints read, ${probes} probes sent (mean ${(probes / docs.length).toFixed(0)} per send)`);
console.log('bits/fp  k  p (formula)  p (measured)  spurious refusals: predicted  measured   (exact set: refusals of shared data)');
for (const bitsPer of BITS) {
  let falseProbes = 0;
  let negatives = 0;
  let spurious = 0;
  let predicted = 0;
  let exactRefusals = 0;
  let k = 0;
  let p = 0;
  for (const g of groups) {
    const held = new Set<string>();
    docs.forEach((d, i) => d.group !== g && reads[i]!.forEach((h) => held.add(h)));
    const bloom = new Bloom(held.size, bitsPer);
    for (const h of held) bloom.add(h);
    k = bloom.k;
    p = (1 - Math.exp(-k / bitsPer)) ** k;
    docs.forEach((d, i) => {
      if (d.group !== g) return;
      const s = sends[i]!;
      const exact = s.filter((h) => held.has(h));
      const filtered = s.filter((h) => bloom.has(h));
      for (const h of s) if (!held.has(h)) negatives++;
      falseProbes += filtered.length - exact.length;
      if (refused(exact)) exactRefusals++;
      else {
        if (refused(filtered)) spurious++;
        // P(refused by chance): one value probe hits, or MIN_MATCHES gram probes do.
        const v = s.filter((h) => isValueHash(h) && !held.has(h)).length;
        const n = s.length - exact.length - v;
        let fewGrams = 0;
        for (let j = 0; j < MIN_MATCHES - exact.length; j++) fewGrams += binom(n, j) * p ** j * (1 - p) ** (n - j);
        predicted += 1 - (1 - p) ** v * Math.min(1, fewGrams);
      }
    });
  }
  const sent = docs.length - exactRefusals;
  console.log(
    `${String(bitsPer).padStart(7)} ${String(k).padStart(2)}  ${p.toExponential(2).padStart(11)}  ${(falseProbes / Math.max(1, negatives)).toExponential(2).padStart(12)}` +
      `  ${((100 * predicted) / sent).toFixed(4).padStart(26)}%  ${((100 * spurious) / sent).toFixed(4).padStart(7)}%   (${exactRefusals} of ${docs.length})`,
  );
}

function binom(n: number, j: number): number {
  let c = 1;
  for (let i = 0; i < j; i++) c = (c * (n - i)) / (i + 1);
  return c;
}
