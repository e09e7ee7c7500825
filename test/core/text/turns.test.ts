import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HASH_SLICE, updateInTurns } from '../../../src/core/text/turns.js';

/** A long text is hashed a slice per turn of the event loop (src/core/text/turns.ts), to the digest of one update. */
describe('updateInTurns', () => {
  const texts: Array<[string, string]> = [
    ['ASCII', 'The quarterly review covers the harbour project. '.repeat(200)],
    // Surrogate pairs (emoji) at every offset, so some fall on a slice's edge; lone surrogates too.
    ['surrogate pairs', Array.from({ length: 3000 }, (_, n) => (n % 3 === 0 ? '😀' : n % 7 === 0 ? '\ud800x' : 'é')).join('')],
    ['a lone high surrogate at the end', `${'a'.repeat(999)}\ud83d`],
    ['a pair cut by the slice', `${'a'.repeat(15)}😀${'b'.repeat(40)}`],
  ];

  it('gives the digest of one update, whatever the slice, surrogate pairs on its edges included', async () => {
    for (const [what, text] of texts) {
      const whole = createHmac('sha256', 'k').update(text).digest('hex');
      for (const slice of [2, 3, 16, 17, 1000, HASH_SLICE]) {
        expect((await updateInTurns(createHmac('sha256', 'k'), text, slice)).digest('hex'), `${what}, slices of ${slice}`).toBe(whole);
      }
      expect((await updateInTurns(createHash('sha256'), text, 16)).digest('hex'), what).toBe(createHash('sha256').update(text).digest('hex'));
    }
  });

  it('lets other work run between slices of a long text (turns, not a time)', async () => {
    const text = 'x'.repeat(HASH_SLICE * 4 + 5);
    let other = 0;
    const count = () => void setImmediate(() => (other++, other < 100 && count()));
    count();
    const before = other;
    await updateInTurns(createHash('sha256'), text);
    expect(before).toBe(0);
    // Five slices, four turns between them: the other work got at least those turns.
    expect(other).toBeGreaterThanOrEqual(4);
  });
});
