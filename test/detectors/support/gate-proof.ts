import { describe, it, vi } from 'vitest';
import { WINDOW } from '../../../src/detectors/injection/index.js';
import { corpusTexts, devTexts, joined, redteamTexts } from './injection-texts.js';

/**
 * The scorer's modules twice: as they are (`gated`), then loaded again with a gate module swapped for its reference
 * (`plain`). `swap` and `unswap` call `vi.doMock` and `vi.doUnmock` in the test file, so their paths resolve there.
 */
export async function loadedBothWays<T>(load: () => Promise<T>, swap: () => void, unswap: () => void): Promise<{ gated: T; plain: T }> {
  const gated = await load();
  vi.resetModules();
  swap();
  const plain = await load();
  unswap();
  vi.resetModules();
  return { gated, plain };
}

/**
 * The whole scorer's equivalence with a gate and with its reference, on the hand-written corpora and the red-team
 * texts (alone, and joined into texts of about 100 KB so that every text is also read in the windows of a long one,
 * some across a border), and on the eval dev cases when ../shared is there.
 */
export function describeSameScoreOnCorpora(expectSameScore: (text: string, label: string) => void): void {
  describe('the scorer with the gate and without it', () => {
    it('on the hand-written corpora and the red-team texts, alone and inside long texts across windows', () => {
      const texts = [...corpusTexts(), ...redteamTexts()];
      for (const [i, t] of texts.entries()) expectSameScore(t, `text ${i}`);
      for (const [n, chunk] of joined(texts, 3 * WINDOW).entries()) expectSameScore(chunk, `chunk ${n}`);
    }, 300_000);

    const dev = devTexts();
    it.skipIf(dev.length === 0)('on the eval dev cases (../shared/data/eval/dev)', () => {
      for (const [i, t] of dev.entries()) expectSameScore(t, `dev ${i}`);
    }, 600_000);
  });
}
