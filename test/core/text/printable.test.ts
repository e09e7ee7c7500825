import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printable } from '../../../src/core/text/readings.js';
import { loadCorpus } from '../../fixtures/injection/corpus.js';
import { prng } from '../../prng.js';
import * as reference from '../../dataflow/reference/unwrap.js';

/** Whether a decoded run is text: the char-code loop against the former code-point iterator. */
describe('printable equals the former code', () => {
  const unit = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...'abcXYZ  \t\n\r.,-0123456789'.split('')) },
    { weight: 2, arbitrary: fc.constantFrom('\ufffd', '\u0000', '\u0007', '\u000b', '\u001f', '\u007f', 'é', '😀', '\ud800', '\udc00', '\udbff', '\udfff', '\ud83d\ufffd', '\ufffd\ude00') },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
    { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)) },
  );

  it('on random texts around the 5% threshold', () => {
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 120 }).map((u) => u.join('')), (s) => {
        expect(printable(s)).toBe(reference.printable(s));
      }),
      { numRuns: 20_000 },
    );
  });

  it('every code unit, alone and at the threshold inside readable text', () => {
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      // 1 of 20 units (the threshold exactly), 1 of 21 (just under it), and the unit alone.
      for (const s of [ch, `${'a'.repeat(19)}${ch}`, `${'a'.repeat(20)}${ch}`, `${ch}${'\ud83d\ude00'.repeat(10)}`]) {
        if (printable(s) !== reference.printable(s)) expect.fail(`code unit ${c.toString(16)} in ${JSON.stringify(s)}`);
      }
    }
  });

  it('decoded bytes: text, noise, and base64 of the corpora read as base64 and hex', () => {
    const rnd = prng(30);
    const texts = loadCorpus('tuning').map((r) => r.text);
    for (let k = 0; k < 400; k++) {
      const bytes = Buffer.from(Array.from({ length: 1 + rnd(600) }, () => (rnd(4) === 0 ? rnd(256) : 32 + rnd(95))));
      texts.push(bytes.toString('utf8'), bytes.toString('latin1'));
    }
    for (const t of texts) {
      expect(printable(t)).toBe(reference.printable(t));
      // What the base64 and hex rows test: the text's bytes decoded from every offset.
      const b = Buffer.from(t, 'utf8');
      for (const off of [0, 1, 2, 3]) {
        const d = Buffer.from(b.subarray(off).toString('base64').slice(1), 'base64').toString('utf8');
        expect(printable(d)).toBe(reference.printable(d));
      }
    }
  });
});
