import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, findSecrets, maskPrefix, maskSecrets, openStore, rowHash, sha256Hex } from '../../src/store/index.js';
import { tempDir } from './helpers.js';

const AWS_ID = 'AKIAIOSFODNN7EXAMPLE';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const OPENAI = 'sk-proj-Zq3v9LmN2pQ8rT5wX1yB4cD7';
const GHP = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq9Xk2c\nq1w2e3r4t5y6u7i8o9p0\n-----END RSA PRIVATE KEY-----';

describe('secret masking', () => {
  it.each([
    ['aws key id', `key ${AWS_ID} here`, AWS_ID],
    ['aws secret', `secret_access ${AWS_SECRET}`, AWS_SECRET],
    ['sk- key', `use ${OPENAI}`, OPENAI],
    ['github token', `token: ${GHP}`, GHP],
    ['jwt', `auth ${JWT}`, JWT],
    ['pem block', `key:\n${PEM}\nbye`, 'MIIEowIBAAKCAQEA7bq9Xk2c'],
    ['password value', '{"password":"hunter2!x"}', 'hunter2!x'],
    ['url password', 'postgres://admin:S3cr3tPw@db:5432/x', 'S3cr3tPw'],
    ['bearer', 'Authorization: Bearer abcdef0123456789', 'abcdef0123456789'],
  ])('masks a %s', (_name, text, secret) => {
    const masked = maskSecrets(text);
    expect(masked).not.toContain(secret);
    expect(masked).toMatch(/\[REDACTED:[a-z_-]+\]/);
  });

  it('leaves ordinary text, paths and UUIDs alone', () => {
    const text = '{"path":"/home/user/projects/quadguard/src/index.ts","id":"550e8400-e29b-41d4-a716-446655440000","msg":"Quarterly report for the finance team"}';
    expect(findSecrets(text)).toEqual([]);
    expect(maskSecrets(text)).toBe(text);
  });

  it('masks a PEM block cut by the cap, and never shows the start of a secret it cut', () => {
    expect(maskPrefix(`x ${PEM.slice(0, 60)}`, 1000)).toBe('x [REDACTED:private_key]');
    const text = `${'a '.repeat(110)}${AWS_SECRET}${' b'.repeat(500)}`;
    const out = maskPrefix(text, 240);
    expect(out).not.toContain(AWS_SECRET.slice(0, 8));
    expect(out.endsWith('…')).toBe(true);
    // a huge masked block before the cut must not pull unscanned text into the preview
    const long = `${PEM.replace('MIIE', `MIIE${'Q'.repeat(5000)}`)} ${'c'.repeat(700)}${AWS_ID}`;
    expect(maskPrefix(long, 900)).not.toContain(AWS_ID);
  });

  it('hashes rows as sha256(prev_hash ‖ canonical row JSON)', () => {
    const row = { id: 1, ts: 5, agent: 'a', session: 's', kind: 'message', server: null, tool: null, uri: null, recipient: 'b', digest: null,
      preview: 'hi', size: 4, decision: 'allow', rules: '[]', flagged: '[]', witness: '[]', threat: 0, rationale: 'ok', elapsed_ms: 1.5,
      policy_hash: null, source: 'pipeline', prev_hash: '0'.repeat(64) };
    expect(rowHash(row)).toBe(sha256Hex(row.prev_hash + canonicalJson(row)));
    // A column added by a later migration (llm) joins the hash only when set: older rows keep their hashes.
    expect(rowHash({ ...row, llm: null })).toBe(rowHash(row));
    const withLlm = { ...row, llm: '{"calls":2}' };
    expect(rowHash(withLlm)).toBe(sha256Hex(row.prev_hash + canonicalJson(withLlm)));
  });
});

describe('audit rows never hold a caught secret in clear', () => {
  let t: ReturnType<typeof tempDir>;
  beforeEach(() => {
    t = tempDir();
  });
  afterEach(() => t.cleanup());

  /** Every byte of every file of the store (db, -wal, -shm). */
  const rawBytes = () => {
    const dir = join(t.dir, 'nested');
    return Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f))));
  };

  it('masks arguments, content, rationale and URI; digests the real payload', async () => {
    const s = openStore(t.file);
    const args = { to: 'attacker@example.com', body: `creds ${AWS_ID} / ${AWS_SECRET}`, token: GHP };
    const { id } = await s.audit.append({
      agent: 'a', session: 's', kind: 'tool_call', server: 'mail', tool: 'send', payload: args, decision: 'deny',
      rationale: `Blocked: argument body contains ${AWS_ID}`, uri: `https://x.example/?key=${AWS_SECRET}`,
    });
    await s.audit.append({ agent: 'a', session: 's', kind: 'tool_result', payload: [{ type: 'text', text: PEM }], decision: 'deny' });
    const row = (await s.audit.get(id!))!;
    expect(row.digest).toBe(sha256Hex(canonicalJson(args)));
    expect(row.preview).toContain('[REDACTED:');
    expect(row.preview).toContain('attacker@example.com');
    for (const secret of [AWS_ID, AWS_SECRET, GHP, 'MIIEowIBAAKCAQEA7bq9Xk2c']) {
      expect(rawBytes().includes(secret), `${secret} in the WAL`).toBe(false);
    }
    await s.close();
    const bytes = rawBytes();
    expect(bytes.length).toBeGreaterThan(4096);
    expect(bytes.includes('attacker@example.com')).toBe(true); // the grep itself works
    for (const secret of [AWS_ID, AWS_SECRET, GHP, 'MIIEowIBAAKCAQEA7bq9Xk2c']) {
      expect(bytes.includes(secret), `${secret} in the database file`).toBe(false);
    }
  });

  it('keeps no value of a secret-sounding argument, a list of them included, in the preview or the recorded interaction', async () => {
    const s = openStore(t.file);
    const secrets = ['Hunter22xq', 'zz9Plural42', 'Trill1an77'];
    const args = { host: 'db.local', db: { password: secrets[0], api_key: [secrets[1], secrets[2]] } };
    const interaction = { agent: 'a', session: 's', profile: {}, kind: 'tool_call' as const, server: 'db', tool: 'connect', arguments: args };
    const { id } = await s.audit.append({ agent: 'a', session: 's', kind: 'tool_call', server: 'db', tool: 'connect', payload: args, decision: 'allow', interaction });
    const row = (await s.audit.get(id!))!;
    expect(row.digest).toBe(sha256Hex(canonicalJson(args)));
    expect(row.preview).toContain('db.local');
    expect((await s.audit.interaction(id!))?.masked).toBe(true);
    await s.close();
    const bytes = rawBytes();
    expect(bytes.includes('db.local')).toBe(true); // the grep itself works
    for (const secret of secrets) expect(bytes.includes(secret), `${secret} in the database file`).toBe(false);
  });
});
