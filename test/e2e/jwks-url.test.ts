/**
 * `http.jwt.jwks_url` through the built CLI, against a JWKS served on 127.0.0.1 that counts its fetches
 * (docs/operations.md, "Signed client identities"): many requests share one fetch within `cache_ms`; a key id the
 * cached set lacks (a rotation) fetches it again, at most once per `refetch_ms`; with the JWKS server down, tokens
 * whose key is cached still verify, and a key that is not is refused with 401, a warning and a metric.
 */
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey as JoseKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, server, startHttpProxy, waitFor, writeConfig, type HttpProxy } from '../support/proxy-harness.js';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'quadguard-jwks';
const REFETCH_MS = 3000;
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

type Pair = { privateKey: JoseKey; publicKey: JoseKey };

describe('serve --http with a JWKS URL', () => {
  const sb = makeSandbox();
  const keys = new Map<string, Pair>();
  /** The key ids the JWKS server publishes now. */
  let published = ['k1'];
  let fetches = 0;
  let jwks: Server;
  let proxy: HttpProxy;

  const sign = (kid: string) =>
    new SignJWT({ sub: 'planner' }).setProtectedHeader({ alg: 'ES256', kid }).setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt().setExpirationTime('5m').sign(keys.get(kid)!.privateKey);
  const status = async (token: string) =>
    (
      await fetch(`${proxy.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
        body: JSON.stringify(INIT),
      })
    ).status;
  const statuses = async (kid: string, n: number) => Promise.all(Array.from({ length: n }, async () => status(await sign(kid))));
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  beforeAll(async () => {
    for (const kid of ['k1', 'k2', 'k3']) keys.set(kid, await generateKeyPair('ES256'));
    const jwk = async (kid: string) => ({ ...(await exportJWK(keys.get(kid)!.publicKey)), kid, alg: 'ES256', use: 'sig' });
    const bodies = new Map<string, string>();
    for (const set of [['k1'], ['k1', 'k2']]) bodies.set(set.join(), JSON.stringify({ keys: await Promise.all(set.map(jwk)) }));
    jwks = createServer((req, res) => {
      if (req.url !== '/jwks.json') return void res.writeHead(404).end();
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(bodies.get(published.join()));
    });
    await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
    const cfg = writeConfig(sb.dir, {
      servers: { ws: server('workspace', '--root', sb.workspace) },
      agents: { planner: {} },
      http: { jwt: { jwks_url: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`, issuer: ISSUER, audience: AUDIENCE, algorithms: ['ES256'], cache_ms: 600_000, refetch_ms: REFETCH_MS } },
      store: join(sb.dir, 'state.db'),
    });
    proxy = await startHttpProxy(cfg, {}, ['--no-ui']);
  }, 60_000);
  afterAll(async () => {
    await proxy?.stop();
    jwks?.closeAllConnections();
    await new Promise((r) => jwks?.close(r));
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('fetches the JWKS once for many requests, concurrent and one after another', async () => {
    expect(fetches).toBe(0); // fetched on first use, not at start
    expect(await statuses('k1', 20)).toEqual(Array(20).fill(200));
    for (let k = 0; k < 10; k++) expect(await status(await sign('k1'))).toBe(200);
    expect(fetches).toBe(1);
  }, 60_000);

  it('fetches again for a key id it lacks, at most once per refetch_ms', async () => {
    await sleep(REFETCH_MS + 200);
    published = ['k1', 'k2']; // the IdP rotates in a new key
    expect(await statuses('k2', 10)).toEqual(Array(10).fill(200));
    expect(fetches).toBe(2);
    // A key nobody publishes, right after: refused from the cache, no fetch (cooling down)
    expect(await statuses('k3', 10)).toEqual(Array(10).fill(401));
    expect(fetches).toBe(2);
    // Past the cool-down, a burst of it costs one fetch, not one per request
    await sleep(REFETCH_MS + 200);
    expect(await statuses('k3', 10)).toEqual(Array(10).fill(401));
    expect(fetches).toBe(3);
    expect(await status(await sign('k1'))).toBe(200);
  }, 60_000);

  it('with the JWKS server down, cached keys still verify and others are refused with 401, a warning and a metric', async () => {
    jwks.close();
    jwks.closeAllConnections();
    await sleep(REFETCH_MS + 200);
    expect(await status(await sign('k1'))).toBe(200);
    expect(await status(await sign('k2'))).toBe(200);
    const refused = await fetch(`${proxy.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${await sign('k3')}` },
      body: JSON.stringify(INIT),
    });
    const body = await refused.text();
    expect(refused.status, body).toBe(401);
    expect(body).not.toMatch(/127\.0\.0\.1|jwks|k3|planner/i);
    // The warning reaches the test through the stderr pipe, which may deliver it after the response.
    const warning = /"reason":"jwks_unavailable"[^\n]*the JWKS URL cannot be fetched/;
    await waitFor(() => warning.test(proxy.stderr()), 10_000, 'the jwks_unavailable warning on stderr');
    expect(await (await fetch(`${proxy.url}/metrics`)).text()).toMatch(/quadguard_auth_refused_total\{reason="jwks_unavailable"\} 1/);
    expect(await status(await sign('k1'))).toBe(200);
  }, 60_000);
});
