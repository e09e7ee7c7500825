import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFingerprinter, normaliseForFingerprint, winnow } from '../../src/core/text/fingerprint.js';
import { normalisedCodes } from '../../src/core/text/letters.js';
import * as ref from './reference/fingerprint.js';

/**
 * The fast paths of data-flow recording (one pass over char codes, winnowing with a ring of hashes, no intermediate
 * strings) against the reference computation they replace (test/dataflow/reference/, the code as it was): the same
 * normalised text, the same selected k-grams and the same fingerprints, for random texts and the edge cases.
 */

const KEY = Buffer.alloc(32, 7);

/** Characters that normalisation or case treat specially: ligatures, full width, final sigma, long s, Kelvin, dotted I, combining marks, astral letters and symbols, lone surrogates. */
const TRICKY = ['ﬁ', 'Ｆ', 'ＵＬＬ', 'Σ', 'ΑΣ ', 'ς', 'ſ', 'K', 'Å', 'İ', 'ı', 'ß', 'e\u0301', '½', '²', '①', '㎏', '𝐀', '𝒜', '𠀀', '😀', '\ud800', '\udc00', '\u00a0', '\u200b', 'Ⅻ', 'ǅ', '٣', '߀'];
const unit = fc.oneof(
  fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 ,.-_:;\n\t'.split('')),
  fc.constantFrom(...TRICKY),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
);
const anyText = fc.array(unit, { maxLength: 300 }).map((u) => u.join(''));
const asciiText = fc.string({ unit: 'binary-ascii', maxLength: 400 });
const WORDS = ['merger', 'Borealis', 'price', 'board', '41', 'million', 'March', 'the', 'ÜBER', 'straße', '—', '\n', 'ΟΔΟΣ', 'ﬁnance', 'K9'];
const prose = fc.array(fc.constantFrom(...WORDS), { maxLength: 400 }).map((w) => w.join(' '));
/** Few distinct k-grams, so equal choosing hashes meet in a window (ties: the rightmost wins). */
const repetitive = fc.tuple(fc.array(fc.constantFrom('a', 'b', 'A', '1', ' '), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 60 }), fc.array(fc.constantFrom('a', 'b'), { maxLength: 20 })).map(([p, times, tail]) => p.join('').repeat(times) + tail.join(''));
const options = fc.record({ k: fc.integer({ min: 8, max: 40 }), window: fc.integer({ min: 1, max: 24 }) });

const unitsOf = (s: string) => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i));

describe('fast normalisation equals the reference', () => {
  it('normalisedCodes: the code units of the normalised string, ASCII or not', () => {
    for (const arb of [anyText, asciiText, prose]) {
      fc.assert(
        fc.property(arb, (t) => {
          const want = ref.normaliseForFingerprint(t);
          expect([...normalisedCodes(t)]).toEqual(unitsOf(want));
          expect(normaliseForFingerprint(t)).toBe(want);
        }),
        { numRuns: 400 },
      );
    }
  });

  it('every BMP character, alone and between letters', () => {
    const all: string[] = [];
    for (let c = 0; c < 0x10000; c++) all.push(String.fromCharCode(c));
    for (let at = 0; at < all.length; at += 512) {
      const chunk = all.slice(at, at + 512);
      for (const t of [chunk.join(''), chunk.join('a'), `x${chunk.join('Σ ')}`]) expect([...normalisedCodes(t)]).toEqual(unitsOf(ref.normaliseForFingerprint(t)));
    }
  });
});

describe('fast fingerprints equal the reference', () => {
  it('winnow selects the same k-grams', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, prose, repetitive), options, fc.integer(), (t, opts, seed) => {
        const s = ref.normaliseForFingerprint(t);
        expect(winnow(s, opts, seed)).toEqual(ref.winnow(s, opts, seed));
      }),
      { numRuns: 500 },
    );
  });

  it('of, ofNormalised and ofBounded give the same fingerprints, at the bounds of k, window and max', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, asciiText, prose, repetitive), options, fc.integer({ min: 1, max: 60 }), (t, opts, max) => {
        const fast = createFingerprinter(KEY, opts);
        const slow = ref.createFingerprinter(KEY, opts);
        expect(fast.of(t)).toEqual(slow.of(t));
        expect(fast.ofNormalised(ref.normaliseForFingerprint(t))).toEqual(slow.ofNormalised(ref.normaliseForFingerprint(t)));
        expect(fast.ofBounded(t, max)).toEqual(slow.ofBounded(t, max));
      }),
      { numRuns: 500 },
    );
  });

  it('texts whose normalised length is around k and k + window', () => {
    const opts = { k: 20, window: 12 };
    const fast = createFingerprinter(KEY, opts);
    const slow = ref.createFingerprinter(KEY, opts);
    for (let len = 0; len <= 40; len++) {
      for (const t of ['a'.repeat(len), 'ab1'.repeat(len).slice(0, len), Array.from({ length: len }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join(' ')]) {
        for (const max of [1, 2, 3, 4096]) expect(fast.ofBounded(t, max)).toEqual(slow.ofBounded(t, max));
        expect(fast.of(t)).toEqual(slow.of(t));
      }
    }
  });

  it('a long read (prose, code, tables, unicode) keeps the same sample of 4096', () => {
    let seed = 5;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const lines = ['The quarterly review covers the harbour project.', 'function total(rows) { return rows.reduce((s, r) => s + r.amount, 0); }', '| north | Q3 | 41,200 | 12.5% |', 'Überweisung an ΟΔΥΣΣΕΑΣ: ﬁnal ﬁgures 😀'];
    const parts: string[] = [];
    for (let i = 0; i < 12_000; i++) parts.push(`${lines[Math.floor(rand() * lines.length)]} ${Math.floor(rand() * 100000)}`);
    const ascii = parts.filter((p) => !/[^\x00-\x7f]/.test(p)).join('\n');
    const mixed = parts.join('\n');
    for (const t of [ascii, mixed]) {
      for (const max of [4096, 100]) expect(createFingerprinter(KEY).ofBounded(t, max)).toEqual(ref.createFingerprinter(KEY).ofBounded(t, max));
    }
  });
});
