import fc from 'fast-check';
import { expect, it } from 'vitest';
import { entropyByMap, shannonEntropy } from '../../src/core/entropy.js';

/** The table count of long strings gives the very number of the Map count (same terms, same order). */
it('shannonEntropy is the Map count, to the bit, on short, long, non-ASCII and surrogate strings', () => {
  const long = fc.array(fc.oneof(fc.string({ maxLength: 60 }), fc.stringMatching(/^[A-Za-z0-9+/]{0,80}$/), fc.string({ unit: 'binary', maxLength: 10 }), fc.constantFrom('\uD800', '\uDC00', 'é', '你')), { minLength: 0, maxLength: 40 }).map((xs) => xs.join(''));
  fc.assert(
    fc.property(long, (s) => {
      expect(Object.is(shannonEntropy(s), entropyByMap(s))).toBe(true);
    }),
    { numRuns: 2000 },
  );
  const b64 = Buffer.from('x'.repeat(5000).replace(/x/g, (_, i: number) => String.fromCharCode(32 + ((i * 7919) % 90)))).toString('base64');
  expect(shannonEntropy(b64)).toBe(entropyByMap(b64));
  // Counts are cleared after each use: the same string twice gives the same number.
  expect(shannonEntropy(b64)).toBe(shannonEntropy(b64));
});
