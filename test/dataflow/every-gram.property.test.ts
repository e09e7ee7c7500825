import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFingerprinter } from '../../src/core/text/fingerprint.js';

/**
 * `everyGram` hashes every k-gram as winnowing's fingerprints hash the k-grams it keeps (data flow takes the k-grams
 * inside a read address out of a send's matches by these hashes): each k-gram fingerprinted alone is its own selection.
 */
describe('Fingerprinter.everyGram', () => {
  const fp = createFingerprinter(randomBytes(32), { k: 20, window: 12 });
  it('is, for any normalised text, the fingerprints of each of its k-grams taken alone, and holds every winnowed one', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), { maxLength: 90, size: 'max' }).map((c) => c.join('')), (s) => {
        const alone = new Set<string>();
        for (let p = 0; p + 20 <= s.length; p++) fp.addNormalised(s.slice(p, p + 20), alone);
        expect(fp.everyGram(s)).toEqual([...alone]);
        for (const h of fp.ofNormalised(s)) expect(fp.everyGram(s)).toContain(h);
      }),
      { numRuns: 2000 },
    );
  });
});
