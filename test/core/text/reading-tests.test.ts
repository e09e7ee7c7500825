import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mayHaveReadingsUnder, OUTGOING_READINGS, READINGS, readingsOf, SECRET_READINGS, UNWRAP_READINGS, type ReadingLimits } from '../../../src/core/text/readings.js';
import { INJECTION_READINGS } from '../../../src/detectors/injection/encoded-payload.js';
import { corpusTexts, devTexts, joined, redteamTexts } from '../../detectors/support/injection-texts.js';

/**
 * The rows' cheap tests (src/core/text/readings.ts) answer as they did: the `doubled` row's test stops once 80% of
 * doubled pairs is out of reach, and `mayHaveReadingsUnder` asks each row through the memo of the turn. The former
 * computations are kept below as the reference.
 */

/** The former `doubledShare` (the row's test was `doubledShare(t) >= 0.8`). */
function doubledShare(s: string): number {
  let pairs = 0;
  let total = 0;
  let prev = -1;
  let repeats = 0;
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 127;
    if (!alnum) {
      i++;
      continue;
    }
    if (s.charCodeAt(i + 1) === c) {
      pairs++;
      if (c === prev) repeats++;
      prev = c;
      total += 2;
      i += 2;
    } else {
      prev = -1;
      total++;
      i++;
    }
  }
  return total >= 16 && repeats < pairs / 2 ? (2 * pairs) / total : 0;
}

const row = (name: string) => READINGS.find((r) => r.name === name)!;

/** The former `mayHaveReadingsUnder`: each row's own test, asked again whatever the turn already asked. */
const formerMayHaveReadingsUnder = (s: string, limits: ReadingLimits): boolean => limits.rows.some((n) => row(n).mayApply(s) && (limits.gate?.[n]?.(s) ?? true));

const nextTurn = () => new Promise((r) => setImmediate(r));
const corpora = (): string[] => [...corpusTexts(), ...redteamTexts(), ...devTexts()];

// Doubled letters and digits, runs of one character, single ones, non-ASCII (a surrogate pair is two code units),
// separators: texts around 80% of doubled pairs and around 16 counted characters.
const PIECES = ['PPrroojjeecctt', 'aabb', 'xx', 'AAAA', '4444', '11', 'a', 'Z', '7', 'éé', 'é', '東東', '😀', '😀😀', ' ', '-', '\n', '.', 'word', 'ww oo rr dd'];
const doubledTexts = fc
  .tuple(fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }), fc.array(fc.constantFrom('ssee', 'x', ' '), { maxLength: 8 }))
  .map(([a, b]) => [...a, ...b].join(''));
const doubled = (s: string) => s.replace(/[A-Za-z0-9]/g, (c) => c + c);

describe('the doubled row\'s test', () => {
  it('is the former share test on the corpora, the red-team texts and the dev cases, alone, doubled and joined', () => {
    const texts = corpora();
    expect(texts.length).toBeGreaterThan(100);
    let yes = 0;
    for (const t of [...texts, ...texts.map(doubled), ...joined(texts, 100_000), ...joined(texts.map(doubled), 100_000)]) {
      const want = doubledShare(t) >= 0.8;
      expect(row('doubled').mayApply(t), t.slice(0, 80)).toBe(want);
      if (want) yes++;
    }
    expect(yes).toBeGreaterThan(100);
  });

  it('is the former share test on generated texts around 80% of doubled pairs', () => {
    let yes = 0;
    fc.assert(
      fc.property(doubledTexts, (t) => {
        const want = doubledShare(t) >= 0.8;
        expect(row('doubled').mayApply(t)).toBe(want);
        if (want) yes++;
      }),
      { numRuns: 20_000 },
    );
    expect(yes).toBeGreaterThan(1000);
  });
});

describe('mayHaveReadingsUnder asked through the memo of the turn', () => {
  const CONSUMERS: ReadingLimits[] = [UNWRAP_READINGS, OUTGOING_READINGS, SECRET_READINGS, INJECTION_READINGS, { ...OUTGOING_READINGS, rows: ['doubled', 'char-codes'] }];

  it('answers as every row\'s own test, first in a turn and after the other consumers read the same text', async () => {
    const texts = corpora();
    // Past 256 characters the memo keeps the answers (reading-memo.ts).
    const long = [...joined(texts, 4_000), ...joined(texts.map(doubled), 4_000), ...texts.filter((t) => t.length >= 256)];
    expect(long.length).toBeGreaterThan(50);
    let yes = 0;
    let no = 0;
    for (const t of long) {
      const want = CONSUMERS.map((c) => formerMayHaveReadingsUnder(t, c));
      await nextTurn();
      expect(CONSUMERS.map((c) => mayHaveReadingsUnder(t, c))).toEqual(want);
      await nextTurn();
      for (const c of CONSUMERS) readingsOf(t, c);
      expect([...CONSUMERS].reverse().map((c) => mayHaveReadingsUnder(t, c)).reverse()).toEqual(want);
      await nextTurn();
      for (const w of want) w ? yes++ : no++;
    }
    expect(yes).toBeGreaterThan(20);
    expect(no).toBeGreaterThan(20);
  }, 120_000);
});

/** The hex-bytes row's former test, its one expression. */
const formerHexBytesTest = (t: string): boolean => /[0-9a-fA-F]{2}[\s,;:-]+(?:\\x|0x)?[0-9a-fA-F]{2}[\s,;:-]|\\x[0-9a-fA-F]{2}|0x[0-9a-fA-F]{2}/.test(t);

// Hex pairs with every separator the row reads, prefixed ones, odd runs of hex digits, and what breaks a run; some
// texts hold exactly the 12 pairs and 11 gaps (35 characters) the decode needs, others one fewer.
const HEX_PIECES = ['41', '4a', 'ff', 'DE', '0', 'abc', '\\x41', '0x42', '0X43', '\\X44', ' ', '  ', ',', ', ', ';', ':', '-', '\t', '\n', '\r\n', '\u00a0', 'g', 'é', 'deadbeef', 'board 12345 ', 'x'];
const hexTexts = fc.oneof(
  fc.array(fc.constantFrom(...HEX_PIECES), { maxLength: 60 }).map((p) => p.join('')),
  fc
    .tuple(fc.integer({ min: 10, max: 13 }), fc.constantFrom(' ', ':', ',', ';', '-', '\t', ', ', '\n', ' 0x', '\\x'), fc.constantFrom('', 'x', '0', ' ', 'é'), fc.constantFrom('', 'g', '0', ' ', 'é'))
    .map(([n, sep, before, after]) => before + Array.from({ length: n }, (_, i) => (0x41 + ((i * 7) % 26)).toString(16)).join(sep) + after),
);

describe('the hex-bytes row\'s test', () => {
  // The row as a consumer reads it: what it decodes when its test holds, else nothing.
  const read = (t: string, test: (t: string) => boolean): string[] => (test(t) ? row('hex-bytes').decode(t, OUTGOING_READINGS) : []);

  it('reads what the former test let it read, on generated hex pairs and on the corpora', () => {
    let decoded = 0;
    let ruledOut = 0;
    const check = (t: string): void => {
      const want = read(t, formerHexBytesTest);
      expect(read(t, (s) => row('hex-bytes').mayApply(s)), JSON.stringify(t)).toEqual(want);
      if (want.length > 0) decoded++;
      if (formerHexBytesTest(t) && !row('hex-bytes').mayApply(t)) ruledOut++;
    };
    fc.assert(fc.property(hexTexts, check), { numRuns: 20_000 });
    const texts = corpora();
    for (const t of [...texts, ...joined(texts, 40_000)]) check(t);
    // The texts reach the decode, and the test rules out texts the former one let through.
    expect(decoded).toBeGreaterThan(500);
    expect(ruledOut).toBeGreaterThan(500);
  });
});
