import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isMostlyText } from '../../src/detectors/injection/encoded-payload.js';
import * as reference from './reference/mostly-text.js';

/** Whether a decoded reading is readable text: the char-code loop against the former string iterator and regex. */
describe('isMostlyText equals the former code', () => {
  const unit = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...'abcXYZ  \t\n\r.,-0123456789'.split('')) },
    { weight: 2, arbitrary: fc.constantFrom('\ufffd', '\u0000', '\u0007', '\u001f', '\u007f', 'é', 'Ω', '😀', '\ud800', '\udc00', '\udbff', '\udfff', '\u00a0') },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
    { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)) },
  );
  it('on random texts around the thresholds', () => {
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 80 }).map((u) => u.join('')), (s) => {
        expect(isMostlyText(s)).toBe(reference.isMostlyText(s));
      }),
      { numRuns: 20_000 },
    );
  });

  it('every code unit inside readable text, and decoded base64 of text and of noise', () => {
    for (let c = 0; c < 0x10000; c++) {
      const s = `hello there ${String.fromCharCode(c)} friend${String.fromCharCode(c)}`;
      if (isMostlyText(s) !== reference.isMostlyText(s)) expect.fail(`code unit ${c.toString(16)}`);
    }
    const noise = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 97 + 13) & 255)).toString('utf8');
    for (const s of [noise, 'The quarterly report is attached. '.repeat(300), `${'word '.repeat(40)}${'\ufffd'.repeat(9)}`]) expect(isMostlyText(s)).toBe(reference.isMostlyText(s));
  });
});
