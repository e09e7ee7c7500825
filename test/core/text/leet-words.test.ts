import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdsThreeLeetWords, replaceLeetWords } from '../../../src/core/text/leet-words.js';
import { READINGS } from '../../../src/core/text/readings.js';
import { INJECTION_READINGS } from '../../../src/detectors/injection/encoded-payload.js';
import { corpusTexts, devTexts, joined, redteamTexts } from '../../detectors/support/injection-texts.js';
import { unleet } from './reference/unleet.js';

/**
 * The leet reading's count by runs (src/core/text/leet-words.ts `holdsThreeLeetWords`) reaches three exactly when the
 * former count over every match (test/core/text/reference/unleet.ts) does: the row decodes every text as the former
 * `unleet` did. On the corpora, the red-team tests' texts, the dev cases (when ../shared is there), those joined,
 * and generated texts of words mixing letters, digits, `@`, `$` and `_` (which is a word character outside the
 * class), hex words around eight characters, and every kind of separator.
 */

const leet = READINGS.find((r) => r.name === 'leet')!;
const decoded = (t: string): string[] => leet.decode(t, INJECTION_READINGS);
const former = (t: string): string[] => {
  const u = unleet(t.slice(0, INJECTION_READINGS.maxRun));
  return u !== undefined && u !== t ? [u] : [];
};

function check(t: string): void {
  expect(holdsThreeLeetWords(t), JSON.stringify(t)).toBe(unleet(t) !== undefined);
  expect(decoded(t), JSON.stringify(t)).toEqual(former(t));
}

const PIECES = ['a', 'B', 'ab', 'a7b', 'x9y', 'b9$', 'z8q', '8ab', 'ab1', 'p4ss', '1gn0r3', 'w0rd', 'x1', '1x', '12', '2024', 'v2', '@', '$', 'p@ss', '$ecret', 'a@b', 'a$1', '@1', '1@', '$$', '_', 'a_1', '_1a', 'deadbeef', 'deadbeef1', 'DEADBEEF12', '0x1f', 'é', 'é1', 'ß', '\u212A1'];
const BREAKS = ['', ' ', '  ', '\n', '.', ',', '-', '_', '@', '$', '/', '#', 'é', '\t'];
const generated = fc.array(fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom(...BREAKS)), { maxLength: 20 }).map((p) => p.map(([w, b]) => w + b).join(''));

describe('the leet reading with its one-pass gate', () => {
  it('decodes the corpora, the red-team texts and the dev cases, alone and joined, as before', () => {
    const texts = [...corpusTexts(), ...redteamTexts(), ...devTexts()];
    expect(texts.length).toBeGreaterThan(100);
    for (const t of [...texts, ...joined(texts, 100_000)]) check(t);
  });

  it('decodes generated texts of letters, digits, @, $ and _ as before', () => {
    let read = 0;
    fc.assert(
      fc.property(generated, (t) => {
        check(t);
        if (unleet(t) !== undefined) read++;
      }),
      { numRuns: 20_000 },
    );
    // The generated texts do reach the reading, not only the gate.
    expect(read).toBeGreaterThan(500);
    fc.assert(fc.property(fc.string({ maxLength: 40 }), check), { numRuns: 5_000 });
    // Three words are needed, and a run with @ or $ may hold several.
    for (const t of ['p4ss w0rd x12', 'p4ss w0rd x1', 'p4ss w0rd', 'p4ss@w0rd@x1', 'a1@b2@c3', 'a1$b2$c3', '_a1 b2 c3 d4', 'a1_b2 c3 d4']) check(t);
    expect(unleet('p4ss w0rd x12')).toBeDefined();
  });

  it("replaces each word the former expression matched, run by run, and a long run without a letter in linear time", () => {
    const LEET_WORD = /\b(?=[A-Za-z0-9@$]*[A-Za-z])(?=[A-Za-z0-9@$]*[013457@$])[A-Za-z0-9@$]{3,}\b/g;
    const mark = (w: string): string => `<${w}>`;
    const same = (t: string): void => {
      expect(replaceLeetWords(t, mark), JSON.stringify(t)).toBe(t.replace(LEET_WORD, mark));
    };
    const texts = [...corpusTexts(), ...redteamTexts(), ...devTexts()];
    for (const t of [...texts, ...joined(texts, 100_000)]) same(t);
    const runs = fc.array(fc.tuple(fc.constantFrom(...PIECES, '$1', '@3', '1$', '$', '@@', 'a$', '$a'), fc.constantFrom(...BREAKS, '', '', '')), { maxLength: 30 }).map((p) => p.map(([w, b]) => w + b).join(''));
    fc.assert(fc.property(runs, same), { numRuns: 20_000 });
    fc.assert(fc.property(fc.string({ maxLength: 40 }), same), { numRuns: 5_000 });
    // A boundary at every `$` of a run with no letter: the expression on the whole text reads the run from each (a
    // 32 KB run took 140 ms, this one would take minutes); run by run it is read once. A later leet word is still found.
    const long = `${'$1'.repeat(200_000)} p4ss w0rd x12 ${'@3'.repeat(100_000)}_ end`;
    expect(replaceLeetWords(long, mark)).toBe(`${'$1'.repeat(200_000)} <p4ss> <w0rd> <x12> ${'@3'.repeat(100_000)}_ end`);
  });
});
