import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { z } from 'zod';
import { PolicyError } from '../core/errors.js';
import { canonicalBook } from './book-hash.js';
import type { CompiledBook } from './compiled.js';
import { loadBook, resolveBookFile } from './load.js';
import type { CompileResult } from './compile.js';

/**
 * ed25519 signatures over a book's canonical form. The signature sits beside the book as `book.sig` (for a
 * file `x.yaml`: `x.sig`), JSON `{ alg, hash, signature, keyId }`. The proxy verifies at start-up and refuses
 * a tampered or unsigned book.
 */
export const BookSignatureSchema = z.strictObject({
  alg: z.literal('ed25519'),
  /** sha256 hex of the canonical form that was signed. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  /** base64 ed25519 signature over the canonical form's UTF-8 bytes. */
  signature: z.string().min(1),
  /** First 16 hex digits of sha256 over the public key (SPKI DER). */
  keyId: z.string().min(1),
});
export type BookSignature = z.infer<typeof BookSignatureSchema>;

/** Where the signature of the book file `file` lives. */
export function signaturePath(file: string): string {
  return join(dirname(file), `${basename(file, extname(file))}.sig`);
}

function keyError(what: string, e: unknown): PolicyError {
  return new PolicyError('policy_key_error', `${what}: ${e instanceof Error ? e.message : String(e)}`);
}

/** Stable id of a public key (or of the public half of a private key). */
export function keyId(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
}

function privateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (e) {
    throw keyError('cannot read the private key', e);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new PolicyError('policy_key_error', `expected an ed25519 private key, got ${key.asymmetricKeyType}`);
  return key;
}

function publicKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (e) {
    throw keyError('cannot read the public key', e);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new PolicyError('policy_key_error', `expected an ed25519 public key, got ${key.asymmetricKeyType}`);
  return key;
}

/** Signs a compiled book's canonical form. */
export function signCompiled(compiled: CompiledBook, privateKeyPem: string): BookSignature {
  const key = privateKey(privateKeyPem);
  const signature = sign(null, Buffer.from(canonicalBook(compiled.book), 'utf8'), key).toString('base64');
  return { alg: 'ed25519', hash: compiled.hash, signature, keyId: keyId(key) };
}

/** Checks a signature against a compiled book; throws `policy_signature_invalid`. */
export function verifyCompiled(compiled: CompiledBook, sig: BookSignature, publicKeyPem: string): void {
  const key = publicKey(publicKeyPem);
  const id = keyId(key);
  if (sig.keyId !== id) throw new PolicyError('policy_signature_invalid', `book was signed by key ${sig.keyId}, not by the given key ${id}`);
  if (sig.hash !== compiled.hash) {
    throw new PolicyError('policy_signature_invalid', `book content changed since it was signed (hash ${compiled.hash.slice(0, 12)}…, signed ${sig.hash.slice(0, 12)}…); after reviewing the change, sign it again: quadguard policy sign <book> --key <private.pem>`);
  }
  const ok = verify(null, Buffer.from(canonicalBook(compiled.book), 'utf8'), key, Buffer.from(sig.signature, 'base64'));
  if (!ok) throw new PolicyError('policy_signature_invalid', 'signature does not verify with the given key');
}

/**
 * The signature file beside a book and whether it still covers the book's content (the hash it signed), without
 * a key: `undefined` when the book is unsigned. `policy check` and `policy add` use it to say a book needs signing.
 */
export async function signatureState(file: string, compiled: CompiledBook): Promise<{ sigFile: string; matches: boolean; signedHash: string } | undefined> {
  const sigFile = signaturePath(file);
  let text: string;
  try {
    text = await readFile(sigFile, 'utf8');
  } catch {
    return undefined;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  const parsed = BookSignatureSchema.safeParse(raw);
  const signedHash = parsed.success ? parsed.data.hash : '';
  return { sigFile, matches: signedHash === compiled.hash, signedHash };
}

/** Loads, compiles and signs the book at `path`; writes the signature beside it and returns its path. */
export async function signBook(path: string, privateKeyPem: string): Promise<{ sigFile: string; signature: BookSignature }> {
  const { compiled, file } = await loadBook(path);
  const signature = signCompiled(compiled, privateKeyPem);
  const sigFile = signaturePath(file);
  await writeFile(sigFile, `${JSON.stringify(signature, null, 2)}\n`, 'utf8');
  return { sigFile, signature };
}

/**
 * Loads the book at `path` (directory or file) and verifies its signature file with the public key. Throws
 * `PolicyError` `policy_unsigned` when there is no signature, `policy_signature_invalid` when it does not match.
 */
export async function verifyBook(path: string, publicKeyPem: string): Promise<CompileResult & { signature: BookSignature }> {
  const { file } = await resolveBookFile(path);
  const sigFile = signaturePath(file);
  let text: string;
  try {
    text = await readFile(sigFile, 'utf8');
  } catch {
    throw new PolicyError('policy_unsigned', `policy book is not signed: ${sigFile} is missing (run quadguard policy sign)`, { location: { file: sigFile } });
  }
  let parsed: BookSignature;
  try {
    parsed = BookSignatureSchema.parse(JSON.parse(text));
  } catch (e) {
    throw new PolicyError('policy_signature_invalid', `malformed signature file: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`, { location: { file: sigFile } });
  }
  const result = await loadBook(path);
  verifyCompiled(result.compiled, parsed, publicKeyPem);
  return { ...result, signature: parsed };
}

/** A fresh ed25519 key pair as PEM (private: PKCS#8, public: SPKI). */
export function generateSigningKeys(): { privateKeyPem: string; publicKeyPem: string; keyId: string } {
  const { privateKey: priv, publicKey: pub } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: priv.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: pub.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: keyId(pub),
  };
}
