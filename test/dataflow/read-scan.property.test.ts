import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { privateForms } from '../../src/core/text/readings.js';
import { scanRead } from '../../src/core/text/short-value-scan.js';
import { heldName, heldNames, MAX_NAME_WORDS, MAX_NAMES_PER_READ } from '../../src/core/text/held-names.js';
import { distinctiveValues, MAX_VALUE, shortLines } from '../../src/core/text/short-values.js';
import { createReadHashers, FORMS_MAX_CHARS, readHashes } from '../../src/guard/read-hashes.js';
import { corpusTexts, devTexts, joined, redteamTexts } from '../detectors/support/injection-texts.js';
import * as ref from './reference/fingerprint.js';
import * as refNames from './reference/held-names.js';
import * as refValues from './reference/short-values.js';

/**
 * A private read's hashes from one pass (`scanRead`: the short values' spots and, for an ASCII text, the letters the
 * fingerprints are taken over, written behind the scan) against the former computation, kept here: the fingerprints
 * of the text normalised on its own and the short values found by their own scan, both from the references in
 * test/dataflow/reference/, and the names it holds whole split from the text by a regular expression (the forms and
 * short lines are the same code in both).
 */

const KEY = Buffer.alloc(32, 7);
const OPTIONS = { k: 20, window: 12 };

function formerReadHashes(text: string, max: number): string[] {
  const fp = ref.createFingerprinter(KEY, OPTIONS);
  const valueHash = refValues.createValueHasher(KEY);
  const forms = privateForms(text, FORMS_MAX_CHARS).flatMap((f) => fp.ofBounded(f, max));
  const names = refNames.heldNames(text, OPTIONS.k, MAX_VALUE, MAX_NAMES_PER_READ).map((n) => valueHash(heldName(n)));
  return [...new Set([...fp.ofBounded(text, max), ...forms, ...refValues.distinctiveValues(text, max).map(valueHash), ...shortLines(text).map(valueHash), ...names])].sort();
}

const hashers = createReadHashers(KEY, OPTIONS);
const unitsOf = (s: string) => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i));
const isAscii = (t: string) => !/[^\x00-\x7f]/.test(t);

/**
 * What `scanRead` must give: the letters of the reference normalisation for an ASCII text, the former values, and the
 * names the reference splits out (with a bound low enough to be reached, and with another length of name).
 */
function expectScanExact(text: string, label: string): void {
  const { spots, letters, names } = scanRead(text, { min: OPTIONS.k, max: MAX_VALUE, limit: MAX_NAME_WORDS });
  if (isAscii(text)) expect(letters && [...letters], label).toEqual(unitsOf(ref.normaliseForFingerprint(text)));
  else expect(letters, label).toBeUndefined();
  for (const max of [256, 3]) expect(distinctiveValues(text, max, spots), label).toEqual(refValues.distinctiveValues(text, max));
  for (const limit of [MAX_NAMES_PER_READ, 2]) expect(heldNames(text, names, OPTIONS.k, MAX_VALUE, limit), label).toEqual(refNames.heldNames(text, OPTIONS.k, MAX_VALUE, limit));
  const short = scanRead(text, { min: 6, max: 12, limit: MAX_NAME_WORDS }).names;
  expect(heldNames(text, short, 6, 12), label).toEqual(refNames.heldNames(text, 6, 12, MAX_NAMES_PER_READ));
}

/** Pieces that put letters, digits, upper case, label starts and digit groups next to every kind of character. */
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('password: ', 'PIN ', 'acct #', 'api_key=', 'Token ', 'IBAN ', 'serial number ', 'pas', 'Pwd', 'secRET') },
  { weight: 4, arbitrary: fc.constantFrom('Tr0ub4dor3', '4929 3812 7745 0016', 'DE89 3704 0044 0532 0130 00', 'GB29-NWBK-6016', 'a1b2c3d4', '12345678', '2026-11-22', 'Summer!24', 'XQ7RK29LM4TZ') },
  { weight: 4, arbitrary: fc.constantFrom('the', 'Quarterly', 'REVIEW', 'harbour', 'x', '_', 'a_b', 'K9', 'zz') },
  { weight: 4, arbitrary: fc.constantFrom(' ', '\n', '\t', ', ', '. ', ': ', '=', '-', '(', ')', '"', "'", '`', '|', '#', '/', '\r\n', '') },
  { weight: 2, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom('é', 'ſ', 'K', 'Ｘ７', 'ﬁ', '\u00a0', '😀', '\ud800', 'Σ') },
);
const pieced = fc.array(piece, { maxLength: 120 }).map((p) => p.join(''));
const asciiPieced = pieced.map((t) => t.replace(/[^\x00-\x7f]/g, ' '));
const asciiText = fc.string({ unit: 'binary-ascii', maxLength: 600 });
const anyText = fc.string({ unit: 'binary', maxLength: 300 });

describe("a private read's one scan equals the former passes", () => {
  it('generated texts: ASCII (the letters written behind the scan) and not (no letters: the former path)', () => {
    for (const arb of [asciiPieced, asciiText, pieced, anyText]) {
      fc.assert(
        fc.property(arb, (t) => expectScanExact(t, JSON.stringify(t))),
        { numRuns: 600 },
      );
    }
  });

  it('the injection corpora, the red-team texts and the dev cases, alone and joined', () => {
    const texts = [...corpusTexts(), ...redteamTexts(), ...devTexts()];
    expect(texts.length).toBeGreaterThan(500);
    for (const [i, t] of texts.entries()) expectScanExact(t, `text ${i}`);
    // Joined into long texts, and again with their non-ASCII characters replaced, so the ASCII path reads them all.
    for (const [i, t] of joined(texts, 100_000).entries()) {
      expectScanExact(t, `joined ${i}`);
      expectScanExact(t.replace(/[^\x00-\x7f]/g, '?'), `joined ascii ${i}`);
    }
  });

  it('readHashes: the same sorted hashes as the former computation', () => {
    fc.assert(
      fc.property(fc.oneof(asciiPieced, pieced, asciiText), fc.integer({ min: 1, max: 80 }), (t, max) => {
        expect(readHashes(t, hashers, max)).toEqual(formerReadHashes(t, max));
      }),
      { numRuns: 300 },
    );
    const long = joined([...corpusTexts(), ...redteamTexts()], 300_000);
    for (const t of [long[0]!, long[0]!.replace(/[^\x00-\x7f]/g, '')]) {
      for (const max of [4096, 50]) expect(readHashes(t, hashers, max)).toEqual(formerReadHashes(t, max));
    }
  });
});
