import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RUN_CLASS_CHARS, RUN_CLASSES } from '../../src/core/text/runs.js';
import { subRuns } from '../../src/detectors/scan.js';
import { loadCorpus } from '../fixtures/injection/corpus.js';
import { prng } from '../prng.js';
import * as reference from './reference/scan-sub-runs.js';

/**
 * The scan's runs of each class inside a run of the widest class (src/detectors/scan.ts `subRuns`: the widest run
 * taken whole, the others found by probes every 15 characters) against the former loop over every character.
 */
describe('subRuns equals the former one-pass loop', () => {
  const widest = new RegExp(`[${RUN_CLASS_CHARS['secret-token']}]{15,}`, 'g');
  const compare = (text: string): void => {
    for (const m of text.matchAll(widest)) {
      const got: number[][] = RUN_CLASSES.map(() => []);
      const want: number[][] = RUN_CLASSES.map(() => []);
      subRuns(text, m.index, m.index + m[0].length, got);
      reference.subRuns(text, m.index, m.index + m[0].length, want);
      if (JSON.stringify(got) !== JSON.stringify(want)) expect.fail(`runs of ${JSON.stringify(m[0])}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`);
    }
  };

  // Pieces that start, end and break the runs of each class: base32 digits of either case, letters and digits outside
  // base32, the characters of base64 only, `=` (the widest class only), and characters outside every class.
  const piece = fc.oneof(
    { weight: 4, arbitrary: fc.stringMatching(/^[A-Z2-7]{1,20}$/) },
    { weight: 4, arbitrary: fc.stringMatching(/^[a-z2-7]{1,20}$/) },
    { weight: 2, arbitrary: fc.constantFrom('0', '1', '8', '9', '+', '/', '_', '-', '=', '==', 'x', 'Q', 'a8', 'Z1') },
    { weight: 1, arbitrary: fc.constantFrom(' ', '.', '\n', 'é', '\u00ff', ':') },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }).map((n) => 'A'.repeat(n)) },
  );

  it('on generated runs of every length around 15', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }).map((p) => p.join('')), (text) => compare(text)),
      { numRuns: 20_000 },
    );
  });

  it('on random token text, base64, hex and base32 of the corpora, and a long base64 result', () => {
    const rnd = prng(1530);
    const alphabet = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-=`;
    for (let n = 0; n < 300; n++) {
      let t = '';
      const len = 15 + rnd(400);
      // Few letters of one case in a row at first, then longer stretches: runs of 14, 15 and 16 base32 digits.
      for (let i = 0; i < len; i++) t += rnd(3) === 0 ? alphabet[rnd(alphabet.length)] : 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[rnd(32)]!;
      compare(t);
      compare(t.toLowerCase());
    }
    const texts = loadCorpus('tuning').map((r) => r.text);
    for (const t of texts) {
      const b = Buffer.from(t);
      compare(`${b.toString('base64')} ${b.toString('base64url')} ${b.toString('hex')}`);
      let base32 = '';
      for (let i = 0; i + 5 <= b.length; i += 5) for (let k = 0; k < 8; k++) base32 += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[(b.readUIntBE(i, 5) / 2 ** (35 - 5 * k)) & 31];
      compare(`${base32}==== ${base32.toLowerCase()}`);
    }
    compare(`round 1\n${Buffer.from(texts.join('\n').repeat(4)).toString('base64')}`);
  });
});
