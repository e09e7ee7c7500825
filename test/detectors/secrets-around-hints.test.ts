import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AROUND_HINTS_MIN_CHARS, matchesAroundHints, scanSpans, SECRET_FORMATS } from '../../src/detectors/secrets/catalogue.js';
import { corpusTexts, devTexts, joined, redteamTexts } from './support/injection-texts.js';

/**
 * A long text's secrets are matched only where a match can start (`matchesAroundHints`, src/detectors/secrets/
 * catalogue.ts): from each format's `lead` characters before every occurrence of its hint. The matches (where,
 * what, every capture) must be those of `matchAll` over the whole text, for every format, on the corpora, the
 * red-team and dev texts, and generated texts built from every hint, the longest name and scheme before it, the
 * separators and values of each format, secrets planted side by side and overlapping, in any case; and the
 * detector's spans on long texts those of the plain scan (no hints, every expression over the whole text).
 */

const NAME_40 = 'a_b.c-d'.repeat(6).slice(0, 40);
const PIECES = [
  ' ', '\n', '\t', '  ', 'x', 'the value ', NAME_40, NAME_40.toUpperCase(), 'DB_', 'my.', 'password', 'PASSWORD', 'Passwd', 'passphrase', 'pwd', 'secret',
  'SECRET', 'client_secret', 'client-secret', 'clientsecret', 'api_key', 'API-KEY', 'apikey', 'access_token', 'auth-token', 'AUTH_TOKEN', '=', ':=', ':', '=>',
  '"', "'", 'hunter2Value', 'S3cr3tV4lue9', 'p4ssw0rd', '${PW}', 'https://', 'postgres://', 'a+b.c-d-e-f-g-h-i://', 'scheme0123456789://', 'user', '@',
  'db.example.com', 'https://hooks.slack.com/services/T0123ABC/B0456DEF/abcdefghijklmnop1234', 'hooks.slack.com', 'Authorization: Bearer ',
  'proxy-authorization: Basic ', 'PROXY-AUTHORIZATION=Token ', 'Bearer ', 'bearer', 'abcDEF123456ghiJKL7890', 'eyJhbGciOiJIUzI1NiJ9', '.',
  'eyJzdWIiOiIxMjM0NTY3ODkwIn0', 'SflKxwRJSMeKKF2QT4fwpM', 'AKIA', 'ASIA', 'A3TX', 'ABCDEFGHIJKLMNOP', 'QRSTUVWX12345678', 'ghp_', 'github_pat_',
  'abcdefghijklmnopqrstuvwxyz0123456789', 'xoxb-', 'xoxp-1234-5678-abcdefgh', 'sk-', 'sk-ant-', 'sk-proj-', 'sk_live_', 'rk_test_', 'AIza', 'Sy',
  'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t', '-----BEGIN RSA PRIVATE KEY-----', '-----BEGIN PRIVATE KEY-----', 'MIIEowIBAAKCAQEA', '-----END RSA PRIVATE KEY-----',
  'aws', 'AWS', 'aws_secret_access_key', 'aws_sk', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'é', '\u200b',
];
/** `name=value` with a name of up to 40 characters before each keyword (the longest lead: `client_secret`). */
const assignment = fc
  .tuple(
    fc.stringMatching(/^[A-Za-z0-9_.-]{0,40}$/),
    fc.constantFrom('password', 'passwd', 'Passphrase', 'pwd', 'secret', 'api_key', 'apikey', 'access-token', 'auth_token', 'client_secret', 'client-secret', 'ClientSecret'),
    fc.constantFrom('', '"', "'"),
    fc.constantFrom('', ' ', '    '),
    fc.constantFrom('=', ':=', ':', '=>'),
    fc.constantFrom('hunter2Value', '"S3cr3t value"', "'p4ssw0rd'", 'x'),
  )
  .map((p) => p.join(''));
/** URL credentials with a scheme of 2 to 16 characters (the lead before `://`). */
const urlCredentials = fc
  .tuple(fc.stringMatching(/^[a-zA-Z][a-z0-9+.-]{1,15}$/), fc.constantFrom('user', 'a', 'x'.repeat(128)), fc.constantFrom('p4ss', 'pw', 's3cr3tPass'), fc.constantFrom('db.example.com', 'h'))
  .map(([scheme, user, pass, host]) => `${scheme}://${user}:${pass}@${host}`);
const generated = fc.array(fc.oneof(fc.constantFrom(...PIECES), assignment, urlCredentials), { maxLength: 80 }).map((p) => p.join(''));

const plainMatches = (text: string, re: RegExp) => [...text.matchAll(re)].map((m) => ({ index: m.index, groups: [...m] }));
const aroundMatches = (text: string, f: (typeof SECRET_FORMATS)[number]) =>
  matchesAroundHints(text, f.detect.re, f.detect.hint, f.detect.lead ?? 0).map((m) => ({ index: m.index, groups: [...m] }));

describe('matchesAroundHints', () => {
  it('gives every format the matches of matchAll on generated texts', () => {
    fc.assert(
      fc.property(generated, (t) => {
        for (const f of SECRET_FORMATS) expect(aroundMatches(t, f), `${f.kind} ${f.detect.re.source}`).toEqual(plainMatches(t, f.detect.re));
      }),
      { numRuns: 5_000 },
    );
  });

  it('gives every format the matches of matchAll on the corpora, the red-team texts and the dev cases, joined', () => {
    const texts = joined([...corpusTexts(), ...redteamTexts(), ...devTexts()], 100_000);
    for (const t of texts) for (const f of SECRET_FORMATS) expect(aroundMatches(t, f), f.kind).toEqual(plainMatches(t, f.detect.re));
  }, 300_000);

  it('leaves the detector\'s spans on long texts as the plain scan finds them', () => {
    const samples = fc.sample(generated, 300);
    for (let i = 0; i < samples.length; i += 30) {
      const t = `${'plain words, a path /srv/data and a number 42. '.repeat(Math.ceil(AROUND_HINTS_MIN_CHARS / 45))}${samples.slice(i, i + 30).join('\n')}`;
      expect(t.length).toBeGreaterThanOrEqual(AROUND_HINTS_MIN_CHARS);
      expect(scanSpans(t)).toEqual(scanSpans(t, {}, false));
    }
  });
});
