/**
 * `createAuth` across a reload: the signed tokens of an agent the re-read config no longer names are refused, and a
 * newly named agent's are taken (the verifier checks agents against the config it was built from), through express
 * on 127.0.0.1 as `serve --http` mounts it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey as JoseKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/core/log.js';
import { createAuth } from '../../src/ops/auth.js';

describe('the HTTP front end\'s authentication across a reload', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qg-auth-reload-'));
  const jwks = join(dir, 'jwks.json');
  let key: JoseKey;
  let server: Server;
  let url: string;
  const configOf = (agents: string[]) =>
    validateConfig({ servers: {}, agents: Object.fromEntries(agents.map((a) => [a, {}])), http: { jwt: { jwks_file: jwks, issuer: 'https://idp.test/', audience: 'qg', algorithms: ['ES256'] } } }, { baseDir: dir, env: {} });
  const sign = (sub: string) => new SignJWT({ sub }).setProtectedHeader({ alg: 'ES256', kid: 'a' }).setIssuer('https://idp.test/').setAudience('qg').setExpirationTime('5m').sign(key);
  const asAgent = async (sub: string) => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${await sign(sub)}` } });
    return { status: res.status, agent: res.ok ? await res.text() : undefined };
  };
  let auth: ReturnType<typeof createAuth>;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    key = pair.privateKey;
    writeFileSync(jwks, JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'a', alg: 'ES256' }] }));
    auth = createAuth(configOf(['planner', 'writer']), undefined, undefined, silentLogger());
    const app = express();
    app.get('/', auth.handler, (_req, res) => void res.send((res.locals.identity as { agent: string }).agent));
    server = await new Promise<Server>((r) => {
      const s = app.listen(0, '127.0.0.1', () => r(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a removed agent\'s token and takes a newly named one\'s after the reload, not before', async () => {
    expect(await asAgent('writer')).toEqual({ status: 200, agent: 'writer' });
    expect((await asAgent('reviewer')).status).toBe(401);
    const commit = auth.prepare(configOf(['planner', 'reviewer']));
    expect(await asAgent('writer')).toEqual({ status: 200, agent: 'writer' }); // prepared, not yet in force
    commit();
    expect((await asAgent('writer')).status).toBe(401);
    expect(await asAgent('reviewer')).toEqual({ status: 200, agent: 'reviewer' });
    expect(await asAgent('planner')).toEqual({ status: 200, agent: 'planner' });
  });
});
