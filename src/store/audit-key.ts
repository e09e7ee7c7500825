import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { StoreError } from '../core/errors.js';

/**
 * The audit chain's key and its signed head, both kept outside the database.
 *
 * Every audit row carries `mac = HMAC-SHA256(key, hash)`, and the head of the chain (last id, its hash, the row
 * count and the first keyed row) is written, signed with the same key, to a file beside the key at most once a
 * second and at close. Someone who can write the database but not read the key can neither rewrite rows with
 * recomputed hashes (the MACs no longer match) nor cut the tail and rewind the sequence (the signed head names a
 * row that is gone). Keep the key out of reach of the people you want to detect: by default it sits beside the
 * database (`<store>.key`, mode 0600); `QUADGUARD_AUDIT_KEY_FILE` or the `audit_key_file` setting moves it.
 */
export interface AuditKey {
  /** 32 random bytes. */
  readonly key: Buffer;
  /** Created by this open (a fresh key: the store must not already hold rows keyed by another). */
  readonly created?: boolean;
  /** Where the key lives, for messages. */
  readonly file: string;
  /** The signed head file. */
  readonly headFile: string;
}

/** The signed head of the chain (the body of the head file). */
export interface AuditHead {
  id: number;
  hash: string;
  rows: number;
  /** First row written with a MAC; rows before it predate keying. */
  keyedSince: number;
  ts: number;
}

const KEY_HEX = /^[0-9a-f]{64}$/;

/** Where the key and head of the store at `storeFile` live. */
export function auditKeyPaths(storeFile: string, keyFile?: string): { file: string; headFile: string } {
  const file = keyFile ?? process.env.QUADGUARD_AUDIT_KEY_FILE ?? `${storeFile}.key`;
  return { file, headFile: `${file.replace(/\.key$/, '')}.head` };
}

/**
 * Reads the key, or creates it (0600) when `create` is set and none exists. Returns undefined when there is none
 * and creating is not allowed (read-only commands).
 */
export function loadAuditKey(paths: { file: string; headFile: string }, create: boolean): AuditKey | undefined {
  if (!existsSync(paths.file)) {
    if (!create) return undefined;
    const key = randomBytes(32);
    try {
      writeFileSync(paths.file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process created it first: read theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new StoreError('store_open_failed', `cannot create the audit key ${paths.file}: ${(err as Error).message}`, { cause: err });
      }
      return loadAuditKey(paths, false);
    }
    return { key, created: true, ...paths };
  }
  const text = readFileSync(paths.file, 'utf8').trim().toLowerCase();
  if (!KEY_HEX.test(text)) {
    throw new StoreError('store_open_failed', `the audit key ${paths.file} is not 64 hex digits; restore it from your backup`);
  }
  return { key: Buffer.from(text, 'hex'), ...paths };
}

/** A fresh in-memory key (`:memory:` stores). */
export function ephemeralAuditKey(): AuditKey {
  return { key: randomBytes(32), file: '(memory)', headFile: '' };
}

/** The MAC of a row, bound to its chain hash. */
export function rowMac(key: AuditKey, hash: string): string {
  return createHmac('sha256', key.key).update(`row:${hash}`, 'utf8').digest('hex');
}

function headMac(key: AuditKey, h: AuditHead): string {
  return createHmac('sha256', key.key).update(`head:${h.id}:${h.hash}:${h.rows}:${h.keyedSince}:${h.ts}`, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex MACs. */
export function macEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** The signed head on disk: `absent`, `invalid` (bad signature or shape: forged or corrupted) or the head. */
export function readHead(key: AuditKey): { state: 'absent' } | { state: 'invalid'; reason: string } | { state: 'ok'; head: AuditHead } {
  if (!key.headFile || !existsSync(key.headFile)) return { state: 'absent' };
  try {
    const raw = JSON.parse(readFileSync(key.headFile, 'utf8')) as AuditHead & { mac?: unknown };
    const { mac, ...head } = raw;
    const shapeOk = [head.id, head.rows, head.keyedSince, head.ts].every((n) => Number.isSafeInteger(n)) && typeof head.hash === 'string';
    if (!shapeOk || typeof mac !== 'string') return { state: 'invalid', reason: 'the head file is malformed' };
    if (!macEqual(mac, headMac(key, head))) return { state: 'invalid', reason: 'the head file does not carry a valid signature of the audit key' };
    return { state: 'ok', head };
  } catch (err) {
    return { state: 'invalid', reason: `the head file cannot be read: ${(err as Error).message}` };
  }
}

/** Writes the signed head atomically (temp file + rename), unless the file already holds a later head. */
export function writeHead(key: AuditKey, head: AuditHead): void {
  if (!key.headFile) return;
  const current = readHead(key);
  if (current.state === 'ok' && current.head.id > head.id) return;
  const tmp = `${key.headFile}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ ...head, mac: headMac(key, head) })}\n`, { mode: 0o600 });
  renameSync(tmp, key.headFile);
  try {
    chmodSync(key.headFile, 0o600);
  } catch {
    // best effort on filesystems without modes
  }
}
