import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskSpans, SECRET_FORMATS } from '../../src/detectors/secrets/catalogue.js';
import { formerMaskSpans } from '../store/reference/mask-window.js';
import { corpusTexts, devTexts, redteamTexts } from './support/injection-texts.js';

/**
 * Each of the masker's broader forms runs only where its hint is (`SecretFormat.mask.hint`, else the detector's hint).
 * Checked two ways: every match of a form holds its hint, and `maskSpans` gives the former masker's spans (every form
 * run over every text the mask prefilter lets through: test/store/reference/mask-window.ts), on generated texts made of
 * every form's literals and near misses, and on the project's corpora.
 */

// Assembled at run time so that no scanner mistakes this file for a leak.
const j = (...parts: string[]): string => parts.join('');
const FORMS = SECRET_FORMATS.flatMap((f) => (f.mask ? [{ kind: f.kind, re: f.mask.re, hint: f.mask.hint ?? f.detect.hint }] : []));

/** Each form's literals and near misses: cased otherwise, without the separator the hint names, glued to a value. */
const PIECES = [
  j('AKIA', 'Z7QW4K2M9XNB3VTL'),
  j('ACCA', 'IOSFODNN7EXAMPL1'),
  'A3T',
  j('ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2'),
  j('github_pat_', '11ABCDEFG0123456789_ab'),
  'gho_',
  j('xoxb-', '1234567890-Ab'),
  'xoxz-',
  j('sk_live_', '4eC39HqLyjWDarjtT1zd'),
  j('rk_test_', '4eC39HqLyjWDarjtT1zd'),
  j('AIza', 'SyD4k3-9xQ2mN8vB7cF6gH5jK4lP3o'),
  j('sk-', 'proj-Ab3dEf6hIj9kLm2nOp5q'),
  j('sk-ant-', 'Ab3dEf6hIj9kLm2nOp5q'),
  '-----BEGIN ',
  '-----BEGIN',
  'PRIVATE KEY-----',
  ' BLOCK-----',
  '-----END RSA PRIVATE KEY-----',
  'RSA ',
  j('eyJ', 'hbGciOiJIUzI1NiJ9'),
  '.eyJzdWIiOiIxIn0',
  'Bearer ',
  'bearer ',
  'Authorization: ',
  'password',
  'passwd',
  'PassWord',
  'pwd',
  'secret',
  'token',
  'api_key',
  'api-key',
  'apikey',
  'access_key',
  'private-key',
  'credential',
  'cookie',
  'session_id',
  'sessionid',
  'SESSION-ID',
  '://',
  'https://',
  'postgres://admin:s3cretPw@db',
  ':',
  '=',
  ': ',
  '"',
  "'",
  '@',
  ' ',
  '\n',
  '_',
  '-',
];

const piece = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...PIECES) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9+_=/.-]{0,30}$/) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);
const generated = fc.array(piece, { minLength: 1, maxLength: 10 }).map((parts) => parts.join(''));

function formsHoldTheirHints(text: string): void {
  for (const f of FORMS) {
    f.re.lastIndex = 0;
    if (f.re.test(text)) expect(f.hint.test(text), `${f.kind}: ${JSON.stringify(text)}`).toBe(true);
    f.re.lastIndex = 0;
  }
}

describe('the masker’s forms, each run where its hint is', () => {
  it('every match of a mask form holds the form’s hint', () => {
    fc.assert(fc.property(generated, formsHoldTheirHints), { numRuns: 4000 });
  });

  it('maskSpans gives the former masker’s spans on texts of every form’s literals and near misses', () => {
    fc.assert(
      fc.property(generated, (text) => {
        expect(maskSpans(text)).toEqual(formerMaskSpans(text));
      }),
      { numRuns: 4000 },
    );
  });

  it('maskSpans gives the former masker’s spans on the corpora, the red-team tests’ texts and the eval dev cases', () => {
    const texts = [...corpusTexts(), ...redteamTexts(), ...devTexts()];
    expect(texts.length).toBeGreaterThan(500);
    let masked = 0;
    for (const text of texts) {
      formsHoldTheirHints(text);
      const former = formerMaskSpans(text);
      expect(maskSpans(text)).toEqual(former);
      if (former.length > 0) masked++;
    }
    // The comparison reaches texts that are masked, not only clean ones.
    expect(masked).toBeGreaterThan(20);
  });
});
