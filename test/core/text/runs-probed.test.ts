import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasRunProbed, holdsRun, RUN_CLASSES } from '../../../src/core/text/runs.js';
import { corpusTexts, devTexts, joined, redteamTexts } from '../../detectors/support/injection-texts.js';

/**
 * `hasRunProbed` (src/core/text/runs.ts) reads only the runs under every `min`-th character: it answers what the plain
 * expression (`holdsRun`, `/[class]{min}/.test`) answers, for every class and run length, on the corpora and on
 * generated runs of every length at every offset.
 */

const MINS = [1, 2, 3, 7, 14, 15, 16, 17, 24, 40];

describe('hasRunProbed', () => {
  it('answers the plain expression on the corpora, the red-team texts and the dev cases, alone and joined', () => {
    const texts = [...corpusTexts(), ...redteamTexts(), ...devTexts()];
    expect(texts.length).toBeGreaterThan(100);
    for (const t of [...texts, ...joined(texts, 20_000)]) {
      for (const cls of RUN_CLASSES) for (const min of MINS) expect(hasRunProbed(t, cls, min), `${cls} ${min} ${t.slice(0, 60)}`).toBe(holdsRun(t, cls, min));
    }
  });

  it('answers the plain expression on generated runs of every length at every offset', () => {
    const units = fc.array(fc.constantFrom('A', 'a', 'Q', 'q', '2', '7', '8', '0', '+', '/', '_', '-', '=', ' ', '.', 'é', '\n'), { maxLength: 60 });
    const runs = fc
      .array(fc.tuple(fc.constantFrom('ABQZ2357', 'abqz2357', 'Az09+/_-', 'Az09+/_=-', 'AZ189='), fc.integer({ min: 1, max: 45 }), fc.constantFrom(' ', '=', 'é', '.', '8', 'a', 'A')), { maxLength: 6 })
      .map((rs) => rs.map(([chars, n, sep]) => Array.from({ length: n }, (_, i) => chars[(n + i * 3) % chars.length]).join('') + sep).join(''));
    fc.assert(
      fc.property(units, runs, units, fc.constantFrom(...RUN_CLASSES), fc.constantFrom(...MINS), (a, r, b, cls, min) => {
        const t = a.join('') + r + b.join('');
        expect(hasRunProbed(t, cls, min)).toBe(holdsRun(t, cls, min));
      }),
      { numRuns: 30_000 },
    );
  });
});
