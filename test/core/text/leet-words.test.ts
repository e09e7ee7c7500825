import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdsThreeLeetWords, replaceLeetWords } from '../../../src/core/text/leet-words.js';
import { READINGS } from '../../../src/core/text/readings.js';
import { INJECTION_READINGS } from '../../../src/detectors/injection/encoded-payload.js';
import { expectSameOnTexts } from '../../detectors/support/injection-texts.js';
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

const now = (t: string): [boolean, string[]] => [holdsThreeLeetWords(t), decoded(t)];
const before = (t: string): [boolean, string[]] => [unleet(t) !== undefined, former(t)];
const check = (t: string): void => {
  expect(now(t), JSON.stringify(t)).toEqual(before(t));
};

const PIECES = ['a', 'B', 'ab', 'a7b', 'x9y', 'b9$', 'z8q', '8ab', 'ab1', 'p4ss', '1gn0r3', 'w0rd', 'x1', '1x', '12', '2024', 'v2', '@', '$', 'p@ss', '$ecret', 'a@b', 'a$1', '@1', '1@', '$$', '_', 'a_1', '_1a', 'deadbeef', 'deadbeef1', 'DEADBEEF12', '0x1f', 'é', 'é1', 'ß', '\u212A1'];
const BREAKS = ['', ' ', '  ', '\n', '.', ',', '-', '_', '@', '$', '/', '#', 'é', '\t'];
const generated = fc.array(fc.tuple(fc.constantFrom(...PIECES), fc.constantFrom(...BREAKS)), { maxLength: 20 }).map((p) => p.map(([w, b]) => w + b).join(''));

describe('the leet reading with its one-pass gate', () => {
  it('decodes the corpora, the red-team and dev texts and generated texts of letters, digits, @, $ and _ as before', () => {
    const read = expectSameOnTexts(now, before, generated, { hit: (t) => unleet(t) !== undefined });
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
    const replaced = (t: string): string => replaceLeetWords(t, mark);
    const formerReplaced = (t: string): string => t.replace(LEET_WORD, mark);
    const runs = fc.array(fc.tuple(fc.constantFrom(...PIECES, '$1', '@3', '1$', '$', '@@', 'a$', '$a'), fc.constantFrom(...BREAKS, '', '', '')), { maxLength: 30 }).map((p) => p.map(([w, b]) => w + b).join(''));
    expect(expectSameOnTexts(replaced, formerReplaced, runs, { hit: (t) => formerReplaced(t) !== t })).toBeGreaterThan(1_000);
    fc.assert(fc.property(fc.string({ maxLength: 40 }), (t) => {
      expect(replaced(t)).toBe(formerReplaced(t));
    }), { numRuns: 5_000 });
    // A boundary at every `$` of a run with no letter: the expression on the whole text reads the run from each (a
    // 32 KB run took 140 ms, this one would take minutes); run by run it is read once. A later leet word is still found.
    const long = `${'$1'.repeat(200_000)} p4ss w0rd x12 ${'@3'.repeat(100_000)}_ end`;
    expect(replaceLeetWords(long, mark)).toBe(`${'$1'.repeat(200_000)} <p4ss> <w0rd> <x12> ${'@3'.repeat(100_000)}_ end`);
  });
});
