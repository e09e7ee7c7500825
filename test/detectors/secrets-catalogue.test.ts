import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DETECT_PREFILTER, detectSpans, maskSpans, mayHoldSecret, scanMaskSpans, scanSpans } from '../../src/detectors/secrets/catalogue.js';
import { maskSecrets } from '../../src/store/redact.js';

// Assembled at run time so that no scanner mistakes this file for a leak.
const j = (...parts: string[]): string => parts.join('');
const SAMPLES = [
  j('AKIA', 'Z7QW4K2M9XNB3VTL'),
  j('aws_secret_access_key = ', 'wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCY9q2Lm4Zt8W'),
  j('ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'),
  j('github_pat_', '11ABCDEFG0123456789_abcdefghijklmnopqrstuv'),
  j('xoxb-', '1234567890-0987654321-AbCdEfGhIjKl'),
  j('sk_live_', '4eC39HqLyjWDarjtT1zdp7dc'),
  j('AIza', 'SyD4k3-9xQ2mN8vB7cF6gH5jK4lP3oI2uY1'),
  j('sk-proj-', 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'),
  j('sk-ant-', 'api03-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'),
  j('-----BEGIN RSA ', 'PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----'),
  j('Authorization: Bearer ', 'x9F2kQ7mZ1pL4vB8nW3c'),
  'DB_PASSWORD=hunter22',
  'password: "Tr0ub4dor&3"',
  'postgres://admin:s3cretPw@db.example.com/app',
  'blob Zx8Kq2Lm9Wv4Rt7Yp3Nb6Hc1 end',
  j(Buffer.from('{"alg":"HS256"}').toString('base64url'), '.', Buffer.from('{"sub":"1"}').toString('base64url'), '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV'),
];

/** Every character a detected span covers is inside some mask span. */
function covered(text: string): boolean {
  const masks = maskSpans(text);
  return detectSpans(text).every((d) => masks.some((m) => m.start <= d.start && m.end >= d.end));
}

describe('one secrets catalogue for detection and masking', () => {
  it.each(SAMPLES)('detects and masks %s', (sample) => {
    const text = `before ${sample} after`;
    const found = detectSpans(text);
    expect(found.length).toBeGreaterThan(0);
    const masked = maskSecrets(text);
    for (const s of found) expect(masked).not.toContain(text.slice(s.start, s.end));
  });

  it('masks whatever it detects, wherever the secret sits in arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.constantFrom(...SAMPLES), fc.string({ maxLength: 80 }), (pre, sample, post) => {
        expect(covered(`${pre}${sample}${post}`)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('masks whatever it detects in random token soup', () => {
    const token = fc.stringMatching(/^[A-Za-z0-9+_=/-]{0,60}$/);
    fc.assert(
      fc.property(fc.array(token, { maxLength: 6 }), (parts) => {
        expect(covered(parts.join(' '))).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('skips only texts the full scan finds nothing in (the prefilter and the per-pattern hints lose no secret)', () => {
    const piece = fc.oneof(
      fc.constantFrom(...SAMPLES, 'password', 'pwd=', 'Bearer ', 'eyJ', '://', ':', '@', '=', '"', ' ', '\n', '-----BEGIN ', 'PRIVATE KEY-----', 'AKIA', 'aws_secret=', 'ghp_', 'xoxb-', 'sk_live_', 'AIza', 'sk-ant-', 'sk-', 'Authorization: Token ', 'https://hooks.slack.com/services/T0A/B1C/'),
      fc.stringMatching(/^[A-Za-z0-9+_=/.-]{0,30}$/),
      fc.string({ maxLength: 20 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (parts) => {
        const text = parts.join('');
        if (!mayHoldSecret(text)) expect(scanSpans(text, {}, false)).toEqual([]);
        expect(detectSpans(text)).toEqual(scanSpans(text, {}, false));
        // The masker's own early exit loses nothing either: whatever it would mask needs one of the two prefilters.
        expect(maskSpans(text)).toEqual(scanMaskSpans(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('answers exactly what the one-expression prefilter answers (token runs looked for at run starts only)', () => {
    const reference = (t: string): boolean => t.length >= 4 && DETECT_PREFILTER.test(t);
    // Runs of token characters around 15 long, broken by separators, Unicode look-alikes (ſ, K, İ fold to ASCII
    // only outside this mode) and the literals, in any case.
    const piece = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9+_=/-]{0,17}$/),
      fc.constantFrom(' ', '\n', '.', ':', '//', '"', '\u017f', '\u212a', '\u0130', 'é', '💥', 'PassW', 'PWD', 'sEcReT', 'api-KEY', 'access_token', 'AuthToken', 'begin', 'Bearer', 'AUTHORIZATION', 'eyj', 'EYJ', '://'),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (parts) => {
        const text = parts.join('');
        expect(mayHoldSecret(text)).toBe(reference(text));
      }),
      { numRuns: 5000 },
    );
    for (const t of ['abcdefghijklmno', ' abcdefghijklmno', 'abcdefghijklmn', 'x abcdefghijklmn', 'é'.repeat(3) + 'a'.repeat(15), 'a'.repeat(14) + '.' + 'b'.repeat(14), 'abc\u017fdefghijklmnop']) {
      expect(mayHoldSecret(t)).toBe(reference(t));
    }
  });

  it('lets through every sample, and skips ordinary short strings', () => {
    for (const s of SAMPLES) expect(mayHoldSecret(s)).toBe(true);
    for (const s of ['path', 'notes.txt', '/home/me/notes.txt', 'read_file', 'meeting notes, nothing secret'.replace('secret', 'else')]) expect(mayHoldSecret(s)).toBe(false);
  });
});
