import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodedRuns } from '../../../src/core/text/readings.js';
import { loadCorpus } from '../../fixtures/injection/corpus.js';
import { prng } from '../../prng.js';
import * as reference from './reference/encoded-runs.js';

/**
 * The base64 and hex rows' runs (core/text/readings.ts `encodedRuns`, found by probes every `min` characters) against
 * the former loop over every character and the expressions they stand for.
 */
describe('encodedRuns equals the former loop and its expressions', () => {
  const shapes: Array<[bit: number, min: number, pad: number, re: RegExp]> = [
    [1, 16, 2, /[A-Za-z0-9+/_-]{16,}={0,2}/g],
    [1, 24, 2, /[A-Za-z0-9+/_-]{24,}={0,2}/g],
    [2, 24, 0, /[0-9a-fA-F]{24,}/g],
  ];
  const compare = (text: string): void => {
    for (const [bit, min, pad, re] of shapes) {
      const got = encodedRuns(text, bit, min, pad);
      const want = reference.encodedRuns(text, bit, min, pad);
      const matches = [...text.matchAll(re)].flatMap((m) => [m.index, m.index + m[0].length]);
      if (JSON.stringify(got) !== JSON.stringify(want) || JSON.stringify(got) !== JSON.stringify(matches)) {
        expect.fail(`${re.source} in ${JSON.stringify(text.slice(0, 200))}: ${JSON.stringify(got)} vs ${JSON.stringify(want)}`);
      }
    }
  };

  // Pieces that start, end and break runs of both classes: hex digits, base64-only characters, padding, and
  // characters outside both (text outside ASCII too).
  const piece = fc.oneof(
    { weight: 4, arbitrary: fc.stringMatching(/^[0-9a-fA-F]{1,30}$/) },
    { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9+/_-]{1,30}$/) },
    { weight: 2, arbitrary: fc.constantFrom('=', '==', '===', 'g', 'Z', '+', '/', '_', '-') },
    { weight: 1, arbitrary: fc.constantFrom(' ', '.', '\n', 'é', '\u00ff', '\ud83d\ude00', ':', '%') },
  );

  it('on generated runs of every length around 16 and 24, with padding', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 50 }).map((p) => p.join('')), (text) => compare(text)),
      { numRuns: 20_000 },
    );
  });

  it('on the injection corpus, its base64 and hex, and random token text', () => {
    const texts = loadCorpus('tuning').map((r) => r.text);
    for (const t of texts) {
      const b = Buffer.from(t);
      compare(t);
      compare(`${t.slice(0, 40)} ${b.toString('base64')} ${b.toString('base64url')}=== ${b.toString('hex')} ${t.slice(-40)}`);
    }
    const rnd = prng(2416);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-=   .é';
    for (let n = 0; n < 500; n++) {
      let t = '';
      const len = rnd(600);
      for (let i = 0; i < len; i++) t += rnd(2) === 0 ? '0123456789abcdef'[rnd(16)]! : alphabet[rnd(alphabet.length)]!;
      compare(t);
    }
  });
});
