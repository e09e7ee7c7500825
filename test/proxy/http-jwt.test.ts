import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JwtAuthSchema } from '../../src/config/schema.js';
import { createJwtVerifier, looksLikeJwt, VerifiedTokens, type JwtVerifier } from '../../src/proxy/http-jwt.js';

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

/** Verified tokens are taken again without a signature check, never past their expiry or the cache's age. */
describe('JWT verifier: verified tokens', () => {
  it('keeps a token until the earlier of its expiry and the age bound, for its key set only, oldest dropped first when full', () => {
    let now = 1_000_000;
    const id = { agent: 'planner', issuer: 'https://idp.test/' };
    const cache = new VerifiedTokens(60_000, () => now, 2);
    cache.set('t1', id, now + 5_000, 0);
    cache.set('t2', id, Number.POSITIVE_INFINITY, 0);
    expect(cache.get('t1', 0)).toBe(id);
    now += 4_999;
    expect(cache.get('t1', 0)).toBe(id);
    now += 1;
    expect(cache.get('t1', 0)).toBeUndefined(); // at its expiry: verified again (and refused as expired)
    expect(cache.get('t2', 0)).toBe(id);
    now += 60_000 - 5_000;
    expect(cache.get('t2', 0)).toBeUndefined(); // at the age bound, though it never expires
    cache.set('a', id, Number.POSITIVE_INFINITY, 0);
    cache.set('b', id, Number.POSITIVE_INFINITY, 0);
    cache.set('c', id, Number.POSITIVE_INFINITY, 0);
    expect([cache.get('a', 0), cache.get('b', 0), cache.get('c', 0)]).toEqual([undefined, id, id]);
    expect(cache.size).toBe(2);
    cache.set('gone', id, now - 1, 0); // already expired: not kept
    expect(cache.get('gone', 0)).toBeUndefined();
    expect(cache.get('b', 1)).toBeUndefined(); // the keys were fetched again since it verified: verified again
  });

  it('answers a verified token again until it expires, then refuses it as expired; its agent is checked on every use', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qg-jwt-cache-'));
    try {
      const key = await generateKeyPair('EdDSA');
      writeFileSync(join(dir, 'jwks.json'), JSON.stringify({ keys: [{ ...(await exportJWK(key.publicKey)), kid: 'a', alg: 'EdDSA' }] }));
      let agents = new Set(['planner']);
      const verify = createJwtVerifier(JwtAuthSchema.parse({ jwks_file: join(dir, 'jwks.json'), issuer: 'https://idp.test/', audience: 'qg', algorithms: ['EdDSA'], clock_skew_s: 0 }), (a) => agents.has(a));
      const exp = Math.floor(Date.now() / 1000) + 2;
      const token = await new SignJWT({ sub: 'planner' }).setProtectedHeader({ alg: 'EdDSA', kid: 'a' }).setIssuer('https://idp.test/').setAudience('qg').setExpirationTime(exp).sign(key.privateKey);
      const first = await verify(token);
      expect(first).toEqual({ ok: true, identity: { agent: 'planner', issuer: 'https://idp.test/' } });
      expect(await verify(token)).toEqual(first);
      agents = new Set(['other']);
      expect(await verify(token)).toEqual({ ok: false, reason: 'unknown_agent' });
      agents = new Set(['planner']);
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(exp * 1000);
        expect(await verify(token)).toEqual({ ok: false, reason: 'expired' });
      } finally {
        vi.useRealTimers();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes a cached token no longer once a fetched JWKS no longer holds its key (rotation), nor once the JWKS is stale', async () => {
    const [a, b] = [await generateKeyPair('EdDSA'), await generateKeyPair('EdDSA')];
    const jwk = async (k: typeof a, kid: string) => ({ ...(await exportJWK(k.publicKey)), kid, alg: 'EdDSA' });
    let served = { keys: [await jwk(a, 'a')] };
    let fetches = 0;
    const server = createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
      const verify = createJwtVerifier(JwtAuthSchema.parse({ jwks_url: url, issuer: 'https://idp.test/', audience: 'qg', algorithms: ['EdDSA'], refetch_ms: 1000, cache_ms: 2500 }), () => true);
      const sign = (k: typeof a, kid: string) => new SignJWT({ sub: 'planner' }).setProtectedHeader({ alg: 'EdDSA', kid }).setIssuer('https://idp.test/').setAudience('qg').setExpirationTime('5m').sign(k.privateKey);
      const tokenA = await sign(a, 'a');
      expect((await verify(tokenA)).ok).toBe(true);
      expect((await verify(tokenA)).ok).toBe(true);
      expect(fetches).toBe(1);
      // The provider withdraws key a for key b; the first token of key b fetches the JWKS again (after refetch_ms).
      served = { keys: [await jwk(b, 'b')] };
      await new Promise((r) => setTimeout(r, 1100));
      expect((await verify(await sign(b, 'b'))).ok).toBe(true);
      expect(fetches).toBe(2);
      expect(await verify(tokenA)).toEqual({ ok: false, reason: 'no_key' });
      // A stale JWKS (past cache_ms) is fetched again before a cached token is taken: the server is asked.
      const tokenB = await sign(b, 'b');
      expect((await verify(tokenB)).ok).toBe(true);
      await new Promise((r) => setTimeout(r, 2600));
      expect((await verify(tokenB)).ok).toBe(true);
      expect(fetches).toBe(3);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
