import fc from 'fast-check';
import { expect, it } from 'vitest';
import { mayHaveEscapes, mayHaveReadingsUnder, READINGS, SECRET_READINGS } from '../../src/core/text/readings.js';
import { ESCAPE_OR_RUN_ROWS, MASK_PREFILTER, maskSpans, mayHoldSecret, scanMaskSpans } from '../../src/detectors/secrets/catalogue.js';
import { benignTexts, corpusTexts, devTexts, redteamTexts } from './support/injection-texts.js';

/**
 * The masker's early exit (catalogue.ts `maskSpans`): a text with no mask literal, no run of 15 token characters and
 * no escape character asks only the rows of SECRET_READINGS that can apply to it; the plain, URL, base64, hex and base32
 * rows (ESCAPE_OR_RUN_ROWS) need an escape or such a run. Checked twice: no row of that set applies to such a text
 * (each row's own test, the short texts' expressions and a long text's one pass both), and `maskSpans` answers what
 * the former exit answered (every row of SECRET_READINGS asked; kept here), on the corpora and on generated texts
 * that carry credentials in the readings left (hex bytes, char codes, doubled and interleaved letters).
 */

const formerMaskSpans = (text: string): ReturnType<typeof maskSpans> => {
  if (MASK_PREFILTER.test(text) || mayHoldSecret(text)) return maskSpans(text);
  return mayHaveEscapes(text) || mayHaveReadingsUnder(text, SECRET_READINGS) ? scanMaskSpans(text) : [];
};

const KEY = 'AKIAIOSFODNN7EXAMPLE';
const hexBytes = (s: string, sep: string): string => [...Buffer.from(s)].map((b) => b.toString(16).padStart(2, '0')).join(sep);
const charCodes = (s: string, sep: string): string => [...s].map((c) => c.charCodeAt(0)).join(sep);
/** Pieces without escape characters whose readings may hold a credential (none holds a run of 15 token characters). */
const ENCODED = [
  hexBytes(KEY, ' '),
  hexBytes(KEY, ':'),
  hexBytes(`key ${KEY}`, ', '),
  charCodes(KEY, ', '),
  charCodes(KEY, ' '),
  charCodes(`ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`, ';'),
  [...KEY].map((c) => c + c).join(' '),
  [...'password = hunter2hunter2'].map((c) => c + c).join(''),
  [...KEY].join('.'),
  [...KEY].join('-'),
  [...KEY].join(' '),
];

/** Characters that are neither escapes nor (in runs of 15) token characters' breakers only. */
const unescapedText = fc
  .array(fc.oneof(fc.constantFrom(...ENCODED), fc.stringMatching(/^[A-Za-z0-9 .,;:\n\t!?()'"*#@$_=/-]{0,30}$/), fc.constantFrom('0x41', '41 42', ' 7 ', 'AAbbCC', 'a-b-c')), { maxLength: 30 })
  .map((parts) => parts.join(' '));

const corpus = [...corpusTexts(), ...benignTexts(), ...redteamTexts(), ...devTexts().slice(0, 600)];
/** The corpora's texts joined into long ones, so a long text's one pass (readingStarts) answers the rows too. */
const joined: string[] = [];
for (let k = 0; k < corpus.length; k += 40) joined.push(corpus.slice(k, k + 40).join('\n'));

const applies = (t: string): string[] => READINGS.filter((r) => ESCAPE_OR_RUN_ROWS.has(r.name) && r.mayApply(t)).map((r) => r.name);

it('no row of ESCAPE_OR_RUN_ROWS applies to a text without escapes and without a run of 15 token characters', () => {
  let asked = 0;
  const check = (t: string): void => {
    if (mayHaveEscapes(t) || mayHoldSecret(t)) return;
    asked++;
    expect(applies(t), t.slice(0, 80)).toEqual([]);
  };
  for (const t of [...corpus, ...joined, ...ENCODED]) check(t);
  fc.assert(fc.property(unescapedText, (t) => check(t)), { numRuns: 3000 });
  expect(asked).toBeGreaterThan(1000);
});

it('maskSpans answers what the former exit answered, masking the credentials the readings left hold', () => {
  let masked = 0;
  const check = (t: string): void => {
    const got = maskSpans(t);
    expect(got, t.slice(0, 80)).toEqual(formerMaskSpans(t));
    if (got.length > 0 && !MASK_PREFILTER.test(t) && !mayHoldSecret(t)) masked++;
  };
  for (const t of [...corpus, ...joined, ...ENCODED, ...ENCODED.map((e) => `Some notes: ${e}. End.`)]) check(t);
  fc.assert(fc.property(unescapedText, (t) => check(t)), { numRuns: 3000 });
  // The texts reach the readings left, and some hold a credential there.
  expect(masked).toBeGreaterThan(5);
});
