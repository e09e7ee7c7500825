import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { readingStarts, type ReadingStarts } from '../../../src/core/text/reading-starts.js';
import { OUTGOING_READINGS, SECRET_READINGS, UNWRAP_READINGS } from '../../../src/core/text/readings.js';
import { INJECTION_READINGS } from '../../../src/detectors/injection/encoded-payload.js';
import { loadedBothWays } from '../../detectors/support/gate-proof.js';
import { corpusTexts, devTexts, joined, redteamTexts } from '../../detectors/support/injection-texts.js';

/**
 * The one pass that finds where a long text's readings can start (src/core/text/reading-starts.ts) answers each
 * row's plain test exactly: the expressions below are the tests the rows asked before (readings.ts), kept here as
 * the reference. Compared on the corpora, the red-team tests' texts, the dev cases (when ../shared is there), those
 * joined into long texts, and generated texts made of every character the flags turn on (escapes, `%` and hex
 * digits, `&` and the named references in any case, backslashes, base64 and base32 runs around the lengths that
 * count, `=` padding, `\r\n` and `\n` line ends, non-ASCII characters that break runs).
 */

const reference = (s: string): ReadingStarts => ({
  plain: /[^\x00-\x7f]|&#|&(?:amp|lt|gt|quot|apos);|\\[ux]/i.test(s),
  url: /%[0-9a-fA-F]{2}|\+/.test(s),
  tokenRun16: /[A-Za-z0-9+/_-]{16}/.test(s),
  base32Run16: /[A-Z2-7]{16}|[a-z2-7]{16}/.test(s),
});

const PIECES = [
  ' ', '\n', '\r\n', '\r', '\t', 'the ', 'Word', '%', '%4', '%41', '%g1', '%zz', '+', '&', '&#', '&#103;', '&amp;', '&AMP;', '&Amp', '&lt;', '&gT;',
  '&quot;', '&QUOT', '&quo;', '&apos;', '&apos', '&APOS;', '&am;', '&a', '&lt', '&GT', '&l', '&gt', 't;', ';', '\\', '\\u', '\\U', '\\x', '\\X', '\\n', 'é', '\u200b', 'ｇ', '\ud83d\ude00', '=', '==',
  'ABCDEFGHIJKLMNO', 'ABCDEFGHIJKLMNOP', 'abcdefghijklmno', 'abcdefghijklmnop', 'ABCDEFG234567', 'abcdefg234567', '0189', 'AbCd', 'aGVsbG8gd29ybGQ',
  'deadbeef', '_-/', 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo', 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=', 'K', 'k', '2', '7', '8', '/',
];
const generated = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((p) => p.join(''));

describe('readingStarts', () => {
  it('answers every plain test on the corpora, the red-team texts and the dev cases, alone and joined', () => {
    const texts = [...corpusTexts(), ...redteamTexts(), ...devTexts()];
    expect(texts.length).toBeGreaterThan(100);
    for (const t of [...texts, ...joined(texts, 100_000)]) expect(readingStarts(t), t.slice(0, 80)).toEqual(reference(t));
  });

  it('answers every plain test on generated texts (runs at their lengths, escapes, line ends, non-ASCII breaks)', () => {
    fc.assert(
      fc.property(generated, (t) => {
        expect(readingStarts(t)).toEqual(reference(t));
      }),
      { numRuns: 20_000 },
    );
  });

  it('answers the run tests on generated runs of every length at every offset (the pass probes every sixteenth character)', () => {
    // Single characters of each class (upper and lower base32 digits, other token characters, `=`, non-token, non-ASCII):
    // runs start and end anywhere around the probes.
    const units = fc.array(fc.constantFrom('A', 'Q', 'a', 'q', '2', '7', '8', '0', '+', '/', '_', '-', '=', ' ', '.', 'é', '\n'), { maxLength: 120 });
    const runs = fc
      .array(fc.tuple(fc.constantFrom('ABQZ2357', 'abqz2357', 'Az09+/_-', 'AZ189'), fc.integer({ min: 1, max: 40 }), fc.constantFrom(' ', '=', 'é', '.', '8', 'a', 'A')), { maxLength: 8 })
      .map((rs) => rs.map(([chars, n, sep]) => Array.from({ length: n }, (_, i) => chars[(n + i * 3) % chars.length]).join('') + sep).join(''));
    fc.assert(
      fc.property(units, runs, units, (a, r, b) => {
        const t = a.join('') + r + b.join('');
        expect(readingStarts(t)).toEqual(reference(t));
      }),
      { numRuns: 20_000 },
    );
  });

  it('leaves every consumer\'s readings and the injection scorer as they were (the rows read it past 256 characters)', async () => {
    const STARTS = '../../../src/core/text/reading-starts.js';
    const load = async () => ({
      readings: await import('../../../src/core/text/readings.js'),
      scorer: await import('../../../src/detectors/injection/index.js'),
    });
    const { gated: fast, plain } = await loadedBothWays(load, () => vi.doMock(STARTS, () => ({ readingStarts: reference, escapeStarts: reference })), () => vi.doUnmock(STARTS));
    const texts = [...corpusTexts(), ...redteamTexts()];
    const long = [...joined(texts, 40_000), ...fc.sample(generated, 300).map((t) => `${'filler text. '.repeat(25)}${t}${' more filler'.repeat(25)}`)];
    for (const limits of [INJECTION_READINGS, SECRET_READINGS, OUTGOING_READINGS, UNWRAP_READINGS]) {
      for (const t of long) {
        const a = fast.readings.readingsOf(t, limits);
        const b = plain.readings.readingsOf(t, limits);
        expect({ views: [...a.views], names: [...a.names], unread: a.unread }).toEqual({ views: [...b.views], names: [...b.names], unread: b.unread });
      }
      // Each turn's memo is its own: the next consumer's flags are asked again.
      await new Promise((r) => setImmediate(r));
    }
    for (const t of long) expect(fast.scorer.scoreInjection(t)).toEqual(plain.scorer.scoreInjection(t));
  }, 300_000);
});
