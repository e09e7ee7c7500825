import { describe, expect, it } from 'vitest';
import '../../src/detectors/secrets/index.js';
import { BIG, call, compile, configError, scan } from './helpers.js';

const S = { type: 'secrets' };
const kindOf = (text: string): string | undefined => /secrets: (\w+)/.exec(scan(S, text).evidence ?? '')?.[1];

// Fixtures are assembled at run time so that no scanner mistakes this file for a leak.
const j = (...parts: string[]): string => parts.join('');
const GH = j('ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8');
const AWS_ID = j('AKIA', 'Z7QW4K2M9XNB3VTL');
const AWS_SECRET = j('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCY9q2Lm4Zt8W');
const JWT = j(
  Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url'),
  '.',
  Buffer.from('{"sub":"1234567890","name":"x"}').toString('base64url'),
  '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
);

describe('secrets detector', () => {
  it.each([
    ['aws_access_key', `id=${AWS_ID}`],
    ['aws_secret_key', `aws_secret_access_key = ${AWS_SECRET}`],
    ['github_token', `token ${GH} here`],
    ['github_token', j('github_pat_', '11ABCDEFG0123456789_abcdefghijklmnopqrstuv')],
    ['slack_token', j('xoxb-', '1234567890-0987654321-AbCdEfGhIjKl')],
    ['stripe_key', j('sk_live_', '4eC39HqLyjWDarjtT1zdp7dc')],
    ['google_api_key', j('AIza', 'SyD4k3-9xQ2mN8vB7cF6gH5jK4lP3oI2uY1')],
    ['openai_key', j('sk-proj-', 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z')],
    ['anthropic_key', j('sk-ant-', 'api03-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z')],
    ['private_key', j('-----BEGIN RSA ', 'PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----')],
    ['private_key', j('-----BEGIN OPENSSH ', 'PRIVATE KEY-----\nb3Blbn')],
    ['jwt', `cookie=${JWT}`],
    ['bearer_token', j('Authorization: Bearer ', 'x9F2kQ7mZ1pL4vB8nW3c')],
    ['password_assignment', 'DB_PASSWORD=hunter22'],
    ['password_assignment', 'password: "Tr0ub4dor&3"'],
    ['password_assignment', 'postgres://admin:s3cretPw@db.example.com/app'],
    ['high_entropy', 'blob Zx8Kq2Lm9Wv4Rt7Yp3Nb6Hc1 end'],
  ])('finds %s', (kind, text) => {
    expect(kindOf(text)).toBe(kind);
  });

  it.each([
    ['English prose', 'The quick brown fox jumps over the lazy dog; passwords should be rotated regularly.'],
    ['a UUID', 'request 3f2b8c1e-9d4a-4b7e-8f6a-1c2d3e4f5a6b failed'],
    ['git SHAs and hashes', 'commit 9fceb02d0ae598e95dc970b74767f19372d61af8 and md5 d41d8cd98f00b204e9800998ecf8427e'],
    ['URLs and paths', 'see https://example.com/docs/getting-started/installation2024 and /usr/local/lib/node_modules/typescript/lib/tsc.js'],
    ['code identifiers', 'getUserAccountByIdAndName2 handleOAuth2CallbackForUser MAX_RETRY_COUNT_FOR_HTTP_2_REQUESTS'],
    ['placeholders', 'password: ${DB_PASSWORD}\napi_key = <your-api-key>\npassword=******** token: string'],
    ['code references', "const password = config.password; apiKey: process.env.API_KEY; password = request.form['password']"],
    ['environment paths', 'PWD=/home/me/project\nOLDPWD=/home/me'],
    ['prose after a colon', 'Password: please reset it'],
    ['base64 images', `<img src="data:image/png;base64,${'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk'.repeat(4)}">`],
    ['slugs', 'slides at OWASP-Top-10-for-LLMs-2023-slides-v1_0.pdf and release-2024-06-01-build-1234-final'],
    ['integrity hashes', '"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+kP6z7hxWkpAyEs/GtcplKPbcnKTHrzDwR8+DoQ=="'],
    ['long base64 content', `file: ${Buffer.from('x'.repeat(50).split('').map((_, k) => String.fromCharCode(33 + ((k * 37) % 90))).join('').repeat(8)).toString('base64')}`],
    ['hyphenated names after sk-', 'use sk-learn-style-pipelines-for-everything'],
    ['a JWT-looking string whose header is not JSON', 'eyJub3Rqc29uIjp9.eyJzdWIiOiIxIn0.abcdefghijklmn'],
    ['publishable Stripe keys', j('pk_live_', '4eC39HqLyjWDarjtT1zdp7dc')],
  ])('ignores %s', (_name, text) => {
    expect(scan(S, text)).toEqual({ value: 'false' });
  });

  it('never shows a caught secret in evidence, and spans cover the secret only', () => {
    const text = `export GH=${GH} AWS_SECRET_ACCESS_KEY=${AWS_SECRET} password=hunter22`;
    const r = scan(S, text);
    expect(r.value).toBe('true');
    for (const s of [GH, AWS_SECRET, 'hunter22']) expect(r.evidence).not.toContain(s);
    expect(r.evidence).toContain('ghp_…40');
    const caught = (r.spans ?? []).map((s) => text.slice(s.start, s.end));
    expect(caught).toEqual(expect.arrayContaining([GH, AWS_SECRET, 'hunter22']));
  });

  it('restricts to the listed kinds and honours min_entropy', () => {
    expect(scan({ type: 'secrets', kinds: ['github_token'] }, `id=${AWS_ID}`).value).toBe('false');
    expect(scan({ type: 'secrets', kinds: ['high_entropy'], min_entropy: 7 }, 'blob Zx8Kq2Lm9Wv4Rt7Yp3Nb6Hc1').value).toBe('false');
  });

  it('is false when the field is absent', () => {
    expect(compile({ type: 'secrets', field: 'content' })(call({ a: GH })).value).toBe('false');
    expect(compile({ type: 'secrets', field: 'arguments' })(call({ a: GH })).value).toBe('true');
  });

  it('rejects unknown kinds and options', () => {
    expect(configError({ type: 'secrets', kinds: ['ssh'] }).code).toBe('detector_invalid_options');
    expect(configError({ type: 'secrets', min_entropy: 9 }).code).toBe('detector_invalid_options');
    expect(configError({ type: 'secrets', entropy: 3 }).code).toBe('detector_invalid_options');
  });

  it('bounds work on a 5 MB argument', () => {
    const d = compile(S);
    expect(d(call({ blob: BIG })).value).toBe('false');
    expect(d(call({ blob: `${GH} ${BIG}` })).value).toBe('true');
    expect(d(call({ blob: 'A'.repeat(5_000_000) })).value).toBe('false');
  });
});

describe('secrets detector on structured arguments', () => {
  it('treats a password-named argument value as a password', () => {
    const d = compile({ type: 'secrets', field: 'arguments' });
    const r = d(call({ db: { host: 'db.local', password: 'Sup3rS3cret' } }));
    expect(r.value).toBe('true');
    expect(r.evidence).toContain('password_assignment');
    expect(r.evidence).not.toContain('Sup3rS3cret');
    expect(r.spans).toEqual([{ field: 'arguments.db.password', start: 0, end: 11 }]);
    expect(d(call({ db: { password: '${DB_PASSWORD}' } })).value).toBe('false');
    expect(d(call({ password_hint: 'Sup3rS3cret' })).value).toBe('false');
  });
  it('treats each element of a list under a password-named argument as a password', () => {
    const d = compile({ type: 'secrets', field: 'arguments' });
    const r = d(call({ db: { passwords: 'x', password: ['Sup3rS3cret', 'An0therOne'] } }));
    expect(r.value).toBe('true');
    expect(r.spans).toEqual([
      { field: 'arguments.db.password.0', start: 0, end: 11 },
      { field: 'arguments.db.password.1', start: 0, end: 10 },
    ]);
  });
  it('needs a header or Bearer for bearer tokens', () => {
    expect(scan(S, 'a Token refreshIntervalSeconds2 setting').value).toBe('false');
    expect(scan(S, j('curl -H "Authorization: Token ', 'x9F2kQ7mZ1pL4vB8nW3c"')).value).toBe('true');
  });
});
