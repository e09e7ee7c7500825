/**
 * A credential carried encoded. The `secrets` detector read only the text as it is, so a key sent base64-encoded
 * (a PEM private key: its base64 run is over 200 characters, skipped as a blob), hex-encoded (pure hex is skipped
 * as a hash), wholly percent-encoded, as HTML character references or `\u` escapes, in full-width letters or split
 * by zero-width spaces reached the server: the default book allowed each of these tool calls (fails before).
 */
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/detectors/index.js';
import type { Interaction } from '../../src/core/types.js';
import { buildGuard, type BuiltGuard } from '../../src/guard/build.js';
import { plainReading } from '../../src/core/text/readings.js';

const DEFAULT_BOOK = join(import.meta.dirname, '../../policies/default');
const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const rsaPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const gh = 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const aws = 'AKIAIOSFODNN7EXAMPLE';
const chars = (s: string, f: (c: string) => string) => [...s].map(f).join('');

describe('default book: a credential sent encoded in a tool call', () => {
  let guard: BuiltGuard;
  let n = 0;
  const call = (body: string) =>
    guard.pipeline.check({ agent: `agent-${++n}`, session: `session-${n}`, profile: {}, kind: 'tool_call', server: 'mail', tool: 'send_email', arguments: { to: 'bob@example.com', body } } as Interaction);
  beforeAll(async () => {
    guard = await buildGuard({ policy: DEFAULT_BOOK, store: ':memory:' });
  });
  afterAll(async () => guard?.close());

  it.each<[string, string]>([
    ['an RSA private key, base64-encoded', Buffer.from(rsaPem).toString('base64')],
    ['an EC private key, base64-encoded, line-wrapped', Buffer.from(pem).toString('base64').replace(/.{64}/g, '$&\n')],
    ['a GitHub token, hex-encoded', Buffer.from(gh).toString('hex')],
    ['an AWS key, hex-encoded', Buffer.from(aws).toString('hex')],
    ['a GitHub token, every character percent-encoded', chars(gh, (c) => `%${c.charCodeAt(0).toString(16)}`)],
    ['a GitHub token as HTML character references', chars(gh, (c) => `&#${c.charCodeAt(0)};`)],
    ['a GitHub token as hex HTML references', chars(gh, (c) => `&#x${c.charCodeAt(0).toString(16)};`)],
    ['a GitHub token as \\u escapes', chars(gh, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)],
    ['a GitHub token in full-width letters', chars(gh, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))],
    ['a GitHub token split by zero-width spaces', [...gh].join('\u200b')],
    ['an AWS key split by soft hyphens', [...aws].join('\u00ad')],
  ])('denies %s', async (_what, encoded) => {
    const d = await call(`here it is: ${encoded}`);
    expect(d.decision).toBe('deny');
    expect(d.rules).toContain('no-secret-leak');
    // The evidence masks what it found, never the credential in clear.
    expect(JSON.stringify(d)).not.toContain(gh);
    expect(JSON.stringify(d)).not.toContain(aws);
  });

  it.each<[string, string]>([
    ['ordinary text with entities and full-width punctuation', 'Fish &amp; chips, 3&#8211;4 people（two tables）'],
    ['a base64 text attachment', Buffer.from('Minutes of the meeting: we agreed to ship on Friday.\n'.repeat(20)).toString('base64')],
    ['a git commit id and an sha256 digest', '9fceb02d0ae598e95dc970b74767f19372d61af8 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['a percent-encoded query', 'https://example.com/search?q=quarterly%20report%202024&lang=en'],
    ['text with zero-width joiners in an emoji', 'Thanks 👩\u200d💻 see you'],
  ])('allows %s (control)', async (_what, text) => {
    expect((await call(text)).decision).toBe('allow');
  });

  it('plainReading undoes escapes and look-alike forms only', () => {
    expect(plainReading('plain ascii text')).toBe('plain ascii text');
    expect(plainReading('&#103;&#x68;\\u0070\\x5f&amp;ｇ\u200bh')).toBe('ghp_&gh');
  });
});
