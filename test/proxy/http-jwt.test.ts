import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JwtAuthSchema } from '../../src/config/schema.js';
import { createJwtVerifier, looksLikeJwt, type JwtVerifier } from '../../src/proxy/http-jwt.js';

/** The JWT verifier with a JWKS file: what it accepts, what it refuses and why (the reason stays server-side). */
describe('JWT verifier (jwks_file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qg-jwt-'));
  let verify: JwtVerifier;
  let key: Awaited<ReturnType<typeof generateKeyPair>>;
  let other: Awaited<ReturnType<typeof generateKeyPair>>;
  const cfg = (extra: Record<string, unknown> = {}) => JwtAuthSchema.parse({ jwks_file: join(dir, 'jwks.json'), issuer: 'https://idp.test/', audience: ['qg', 'qg2'], algorithms: ['EdDSA'], clock_skew_s: 30, ...extra });
  const sign = (claims: Record<string, unknown>, o: { aud?: string; iss?: string; exp?: number; k?: CryptoKey | Uint8Array; nbf?: number } = {}) => {
    const j = new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid: 'a' }).setIssuer(o.iss ?? 'https://idp.test/').setAudience(o.aud ?? 'qg').setExpirationTime(o.exp ?? Math.floor(Date.now() / 1000) + 300);
    if (o.nbf !== undefined) j.setNotBefore(o.nbf);
    return j.sign((o.k ?? key.privateKey) as CryptoKey);
  };

  beforeAll(async () => {
    key = await generateKeyPair('EdDSA');
    other = await generateKeyPair('EdDSA');
    writeFileSync(join(dir, 'jwks.json'), JSON.stringify({ keys: [{ ...(await exportJWK(key.publicKey)), kid: 'a', alg: 'EdDSA' }] }));
    verify = createJwtVerifier(cfg(), (a) => a === 'planner');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts a valid token and names the agent and issuer', async () => {
    expect(await verify(await sign({ sub: 'planner', jti: 'x1' }))).toEqual({ ok: true, identity: { agent: 'planner', issuer: 'https://idp.test/', id: 'x1' } });
    // Any of the configured audiences; exp just passed but within the skew.
    expect((await verify(await sign({ sub: 'planner' }, { aud: 'qg2', exp: Math.floor(Date.now() / 1000) - 10 }))).ok).toBe(true);
  });

  it.each([
    ['expired', { exp: Math.floor(Date.now() / 1000) - 120 }, 'expired'],
    ['wrong audience', { aud: 'other' }, 'audience'],
    ['wrong issuer', { iss: 'https://evil.test/' }, 'issuer'],
    ['not yet valid', { nbf: Math.floor(Date.now() / 1000) + 600 }, 'claims'],
  ] as const)('refuses a token %s', async (_what, o, reason) => {
    expect(await verify(await sign({ sub: 'planner' }, o))).toEqual({ ok: false, reason });
  });

  it('refuses a wrong key, alg none, an unknown agent and garbage', async () => {
    expect(await verify(await sign({ sub: 'planner' }, { k: other.privateKey as CryptoKey }))).toEqual({ ok: false, reason: 'signature' });
    const none = new UnsecuredJWT({ sub: 'planner' }).setIssuer('https://idp.test/').setAudience('qg').setExpirationTime('5m').encode();
    expect(looksLikeJwt(none)).toBe(true);
    expect((await verify(none)).ok).toBe(false);
    expect(await verify(await sign({ sub: 'intruder' }))).toEqual({ ok: false, reason: 'unknown_agent' });
    expect(await verify(await sign({ name: 'planner' }))).toEqual({ ok: false, reason: 'unknown_agent' });
    expect((await verify('a.b.c')).ok).toBe(false);
  });

  it('takes the agent from another claim when configured', async () => {
    const v = createJwtVerifier(cfg({ claim: 'agent' }), (a) => a === 'planner');
    expect((await v(await sign({ sub: 'someone', agent: 'planner' }))).ok).toBe(true);
  });

  it('refuses bad set-ups at start: not a JWKS, a private key in it, both or neither source, plain http off loopback', async () => {
    writeFileSync(join(dir, 'bad.json'), '{"nope":1}');
    expect(() => createJwtVerifier(cfg({ jwks_file: join(dir, 'bad.json') }), () => true)).toThrow(/not a JWKS/);
    const extractable = await generateKeyPair('EdDSA', { extractable: true });
    writeFileSync(join(dir, 'private.json'), JSON.stringify({ keys: [await exportJWK(extractable.privateKey)] }));
    expect(() => createJwtVerifier(cfg({ jwks_file: join(dir, 'private.json') }), () => true)).toThrow(/private key/);
    expect(JwtAuthSchema.safeParse({ issuer: 'i', audience: 'a' }).success).toBe(false);
    expect(JwtAuthSchema.safeParse({ jwks_file: 'x', jwks_url: 'https://a/', issuer: 'i', audience: 'a' }).success).toBe(false);
    expect(JwtAuthSchema.safeParse({ jwks_url: 'http://idp.example.com/jwks', issuer: 'i', audience: 'a' }).success).toBe(false);
    expect(JwtAuthSchema.safeParse({ jwks_url: 'http://127.0.0.1:8080/jwks', issuer: 'i', audience: 'a' }).success).toBe(true);
    expect(JwtAuthSchema.safeParse({ jwks_file: 'x', issuer: 'i', audience: 'a', algorithms: ['none'] }).success).toBe(false);
  });
});
