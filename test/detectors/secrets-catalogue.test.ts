import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectSpans, MASK_PREFILTER, maskSpans, mayHoldSecret, scanMaskSpans, scanSpans, SECRET_FORMATS, SECRET_KINDS } from '../../src/detectors/secrets/catalogue.js';
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
      // Escaped and encoded forms (the masker reads a text's readings too).
      fc.constantFrom('&#103;&#104;&#112;&#95;', '\\u0067\\u0068\\u0070\\u005f', 'ｇｈｐ＿', 'g\u200bh\u200bp\u200b_', '%67%68%70%5f', '+', Buffer.from('ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789').toString('hex')),
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

  it('answers exactly what the one-expression prefilters answer (token runs looked for at run starts only, literals grouped)', () => {
    // The prefilters as they were first written: the split and grouped forms in catalogue.ts must answer the same.
    const DETECT_PREFILTER = /[A-Za-z0-9+/_=-]{15}|passw|passphrase|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|BEGIN|bearer|authorization|eyJ|:\/\//i;
    const MASK_REFERENCE =
      /BEGIN|AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA|sk-|[rs]k_|gh[pousr]_|github_pat_|xox|AIza|eyJ|Bearer|:\/\/|passw|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|authorization|cookie|session[_-]?id/i;
    const reference = (t: string): boolean => t.length >= 4 && DETECT_PREFILTER.test(t);
    const literals = ['BEGIN', 'AKIA', 'ASIA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'ABIA', 'ACCA', 'sk-', 'rk_', 'sk_', 'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_', 'xox', 'AIza', 'eyJ', 'Bearer', '://', 'passw', 'passphrase', 'pwd', 'secret', 'token', 'apikey', 'api_key', 'api-key', 'accesskey', 'access-key', 'access_token', 'authtoken', 'auth-token', 'private_key', 'privatekey', 'credential', 'authorization', 'cookie', 'sessionid', 'session_id', 'session-id'];
    for (const l of literals) {
      for (const t of [l, l.toUpperCase(), l.toLowerCase(), l.slice(0, -1), l.slice(1), `x${l.slice(0, -1)}.${l.slice(-1)}`]) {
        expect(mayHoldSecret(t)).toBe(reference(t));
        expect(MASK_PREFILTER.test(t)).toBe(MASK_REFERENCE.test(t));
      }
    }
    // Runs of token characters around 15 long, broken by separators, Unicode look-alikes (ſ, K, İ fold to ASCII
    // only outside this mode) and the literals, in any case.
    const piece = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9+_=/-]{0,17}$/),
      fc.constantFrom(' ', '\n', '.', ':', '//', '"', '\u017f', '\u212a', '\u0130', 'é', '💥', 'PassW', 'PWD', 'sEcReT', 'api-KEY', 'access_token', 'AuthToken', 'begin', 'Bearer', 'AUTHORIZATION', 'eyj', 'EYJ', '://'),
      fc.constantFrom(...literals).chain((l) => fc.tuple(fc.nat(l.length), fc.nat(l.length)).map(([a, b]) => l.slice(Math.min(a, b), Math.max(a, b)))),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (parts) => {
        const text = parts.join('');
        expect(mayHoldSecret(text)).toBe(reference(text));
        expect(MASK_PREFILTER.test(text)).toBe(MASK_REFERENCE.test(text));
      }),
      { numRuns: 5000 },
    );
    for (const t of ['abcdefghijklmno', ' abcdefghijklmno', 'abcdefghijklmn', 'x abcdefghijklmn', 'é'.repeat(3) + 'a'.repeat(15), 'a'.repeat(14) + '.' + 'b'.repeat(14), 'abc\u017fdefghijklmnop']) {
      expect(mayHoldSecret(t)).toBe(reference(t));
    }
  });

  it('keeps every known kind in the one table of formats, each mask form global with match indices', () => {
    expect(new Set(SECRET_FORMATS.map((f) => f.kind))).toEqual(new Set(SECRET_KINDS.filter((k) => k !== 'high_entropy')));
    for (const f of SECRET_FORMATS) {
      expect(f.detect.re.global, f.kind).toBe(true);
      if (f.mask) expect(f.mask.re.flags, f.kind).toMatch(/^(?=.*d)(?=.*g)/);
    }
  });

  it('builds the key = value mask form from its one list of keys, as it was written by hand', () => {
    const form = SECRET_FORMATS.find((f) => f.mask?.spans !== undefined)!.mask!;
    const keys = 'passw(?:or)?d|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|authorization|cookie|session[_-]?id';
    expect(form.re.source).toBe(String.raw`(?:${keys})[A-Za-z0-9_-]*["']?\s*[:=]\s*["']?([^"'\s,;&}\]]{4,})`);
    expect(form.re.flags).toBe('dgi');
    // The hint is the list itself: every match holds one key, and a text with none skips the form.
    expect(form.hint!.source).toBe(keys);
    expect(form.hint!.flags).toBe('i');
  });

  it('lets through every sample, and skips ordinary short strings', () => {
    for (const s of SAMPLES) expect(mayHoldSecret(s)).toBe(true);
    for (const s of ['path', 'notes.txt', '/home/me/notes.txt', 'read_file', 'meeting notes, nothing secret'.replace('secret', 'else')]) expect(mayHoldSecret(s)).toBe(false);
  });
});
