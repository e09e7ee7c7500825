import { mkdtemp, readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PolicyError } from '../../src/core/errors.js';
import { canonicalJson } from '../../src/core/canonical.js';
import { generateSigningKeys, signBook, verifyBook } from '../../src/policy/index.js';
import { registerTestDetectors, sampleBook } from './support.js';

registerTestDetectors();

async function bookDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'qg-sign-'));
  await writeFile(join(dir, 'book.json'), JSON.stringify(sampleBook(), null, 2));
  return dir;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof PolicyError) return e.code;
    throw e;
  }
  return 'no error';
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[{"y":2,"z":1}]},"b":1}');
  });
});

describe('sign and verify', () => {
  const keys = generateSigningKeys();
  const other = generateSigningKeys();

  it('signs beside the book and verifies with the matching key', async () => {
    const dir = await bookDir();
    const { sigFile, signature } = await signBook(dir, keys.privateKeyPem);
    expect(sigFile).toBe(join(dir, 'book.sig'));
    const onDisk = JSON.parse(await readFile(sigFile, 'utf8'));
    expect(onDisk).toEqual(signature);
    expect(onDisk).toMatchObject({ alg: 'ed25519', keyId: keys.keyId, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const v = await verifyBook(dir, keys.publicKeyPem);
    expect(v.compiled.hash).toBe(signature.hash);
  });

  it('survives reformatting that does not change meaning (YAML instead of JSON, key order)', async () => {
    const dir = await bookDir();
    await signBook(dir, keys.privateKeyPem);
    const book = sampleBook();
    const reordered = { rules: book.rules, predicates: book.predicates, version: book.version, name: book.name };
    await writeFile(join(dir, 'book.json'), JSON.stringify(reordered));
    await expect(verifyBook(dir, keys.publicKeyPem)).resolves.toBeDefined();
  });

  it('refuses a tampered book, a wrong key, a forged signature and an unsigned book', async () => {
    const dir = await bookDir();
    await signBook(dir, keys.privateKeyPem);
    expect(await codeOf(verifyBook(dir, other.publicKeyPem))).toBe('policy_signature_invalid');

    const sigFile = join(dir, 'book.sig');
    const sig = JSON.parse(await readFile(sigFile, 'utf8'));
    const forged = { ...sig, signature: Buffer.alloc(64, 1).toString('base64') };
    await writeFile(sigFile, JSON.stringify(forged));
    expect(await codeOf(verifyBook(dir, keys.publicKeyPem))).toBe('policy_signature_invalid');
    await writeFile(sigFile, JSON.stringify(sig));

    const tampered = sampleBook();
    tampered.rules[0]!.hard = false;
    await writeFile(join(dir, 'book.json'), JSON.stringify(tampered));
    expect(await codeOf(verifyBook(dir, keys.publicKeyPem))).toBe('policy_signature_invalid');

    await writeFile(sigFile, '{"alg":"rsa"}');
    expect(await codeOf(verifyBook(dir, keys.publicKeyPem))).toBe('policy_signature_invalid');

    await rm(sigFile);
    expect(await codeOf(verifyBook(dir, keys.publicKeyPem))).toBe('policy_unsigned');
  });

  it('rejects keys that are not ed25519 PEM', async () => {
    const dir = await bookDir();
    expect(await codeOf(signBook(dir, 'not a key'))).toBe('policy_key_error');
  });
});
