import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { StoreError } from '../core/errors.js';
import { faultReason, reportStoreFault } from './faults.js';

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

/**
 * Where the key and head of the store at `storeFile` live. The head belongs to the store, not to the key: verifying
 * with a copy of the key under another name (a backup) still finds the store's head. `QUADGUARD_AUDIT_HEAD_FILE`
 * puts it elsewhere, as for PostgreSQL. A head that earlier versions kept beside a key of another name is copied
 * to the store's place the first time it is missing there.
 */
export function auditKeyPaths(storeFile: string, keyFile?: string): { file: string; headFile: string } {
  const file = keyFile ?? process.env.QUADGUARD_AUDIT_KEY_FILE ?? `${storeFile}.key`;
  const headFile = process.env.QUADGUARD_AUDIT_HEAD_FILE ?? `${storeFile}.head`;
  const legacy = `${file.replace(/\.key$/, '')}.head`;
  if (legacy !== headFile && !existsSync(headFile) && existsSync(legacy)) {
    try {
      copyFileSync(legacy, headFile);
    } catch {
      // unwritable beside the store: verify then reports the head missing, naming where it looked
    }
  }
  return { file, headFile };
}

/**
 * Reads the key, or creates it (0600) when `create` is set and none exists. Returns undefined when there is none
 * and creating is not allowed (read-only commands).
 */
export function loadAuditKey(paths: { file: string; headFile: string }, create: boolean): AuditKey | undefined {
  refuseFolder(paths.file);
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

/** A key path that names a folder fails with what to do, not a bare EISDIR. */
function refuseFolder(file: string): void {
  let folder: boolean;
  try {
    folder = statSync(file).isDirectory();
  } catch {
    return; // absent or unreadable: the read or the create says so
  }
  if (folder) {
    throw new StoreError('store_open_failed', `the audit key path ${file} is a folder, not a file: point audit_key.file (or QUADGUARD_AUDIT_KEY_FILE) at the key file itself, e.g. ${join(file, 'audit.key')}`);
  }
}

/** A fresh in-memory key (`:memory:` stores). */
export function ephemeralAuditKey(): AuditKey {
  return { key: randomBytes(32), file: '(memory)', headFile: '' };
}

/** The MAC of a row, bound to its chain hash. */
export function rowMac(key: AuditKey, hash: string): string {
  return createHmac('sha256', keyObjectOf(key)).update(`row:${hash}`, 'utf8').digest('hex');
}

/** Each key's bytes as a `KeyObject`, made once: an HMAC over a Buffer key imports it again on every row (twice a row). */
const keyObjects = new WeakMap<Buffer, KeyObject>();
function keyObjectOf(key: AuditKey): KeyObject {
  let k = keyObjects.get(key.key);
  if (k === undefined) keyObjects.set(key.key, (k = createSecretKey(key.key)));
  return k;
}

function headMac(key: AuditKey, h: AuditHead): string {
  return createHmac('sha256', key.key).update(`head:${h.id}:${h.hash}:${h.rows}:${h.keyedSince}:${h.ts}`, 'utf8').digest('hex');
}

/** The MAC of a retention anchor (audit-chain.ts `RetentionAnchor`): the last dropped row, and how many were dropped. */
export function anchorMac(key: AuditKey, a: { id: number; hash: string; dropped: number; ts: number }): string {
  return createHmac('sha256', key.key).update(`anchor:${a.id}:${a.hash}:${a.dropped}:${a.ts}`, 'utf8').digest('hex');
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
  mkdirSync(dirname(key.headFile), { recursive: true });
  const tmp = `${key.headFile}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ ...head, mac: headMac(key, head) })}\n`, { mode: 0o600 });
  renameSync(tmp, key.headFile);
  try {
    chmodSync(key.headFile, 0o600);
  } catch {
    // best effort on filesystems without modes
  }
}

/**
 * The MAC of the chain head a PostgreSQL store keeps in its `audit_head` row. A database-only attacker who cuts
 * the tail must set that row back to an older (id, hash) with a valid MAC, so only to a head they saw earlier:
 * the replicas' signed head files (outside the database, `HeadAnchor`) catch that rollback too.
 */
export function dbHeadMac(key: AuditKey, id: number, hash: string): string {
  return createHmac('sha256', key.key).update(`dbhead:${id}:${hash}`, 'utf8').digest('hex');
}

/** A key given as 64 hex digits (a file's content or an environment variable), or a clear error naming `where`. */
export function parseAuditKey(text: string, where: string): Buffer {
  const hex = text.trim().toLowerCase();
  if (!KEY_HEX.test(hex)) throw new StoreError('store_open_failed', `the audit key ${where} is not 64 hex digits (make one with \`openssl rand -hex 32\`)`);
  return Buffer.from(hex, 'hex');
}

/**
 * The audit key of a PostgreSQL store, which every replica must share, so it is never created here (two replicas
 * creating their own would each sign rows the other cannot verify): `QUADGUARD_AUDIT_KEY` (64 hex digits, e.g. from
 * a secret manager), else the file `keyFile` or `QUADGUARD_AUDIT_KEY_FILE`. Undefined when none is given. Each
 * process keeps its own signed head file (its local monotonic anchor): `headFile`, else
 * `QUADGUARD_AUDIT_HEAD_FILE`, else `$QUADGUARD_HOME/audit-<8 hex of the store URL>.head`.
 */
export function sharedAuditKey(
  opts: { keyFile?: string; keyEnv?: string; headFile?: string; defaultHeadFile: string },
  env: NodeJS.ProcessEnv = process.env,
): AuditKey | undefined {
  const headFile = opts.headFile ?? nonEmpty(env.QUADGUARD_AUDIT_HEAD_FILE) ?? opts.defaultHeadFile;
  if (opts.keyEnv !== undefined) {
    const v = nonEmpty(env[opts.keyEnv]);
    if (v === undefined) throw new StoreError('store_audit_key_missing', `the audit key variable ${opts.keyEnv} is not set or empty`);
    return { key: parseAuditKey(v, `in ${opts.keyEnv}`), file: `(${opts.keyEnv})`, headFile };
  }
  const inline = opts.keyFile === undefined ? nonEmpty(env.QUADGUARD_AUDIT_KEY) : undefined;
  if (inline !== undefined) return { key: parseAuditKey(inline, 'in QUADGUARD_AUDIT_KEY'), file: '(QUADGUARD_AUDIT_KEY)', headFile };
  const file = opts.keyFile ?? nonEmpty(env.QUADGUARD_AUDIT_KEY_FILE);
  if (file === undefined) return undefined;
  refuseFolder(file);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new StoreError('store_audit_key_missing', `cannot read the audit key ${file}: ${(err as Error).message}`, { cause: err });
  }
  return { key: parseAuditKey(text, file), file, headFile };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v !== undefined && v.length > 0 ? v : undefined;
}

/**
 * Writes a process's signed head file at most once a second after appends, and at `flush()` (close): the local
 * monotonic anchor of the chain. `snapshot` builds the head to sign from the last appended row.
 */
export class HeadAnchor {
  private writtenAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private pending: { id: number; hash: string } | undefined;

  constructor(
    private readonly key: AuditKey,
    private readonly snapshot: (last: { id: number; hash: string }) => AuditHead,
    private readonly intervalMs = 1000,
  ) {}

  /** Notes the last appended row: written now if the file has not been written for `intervalMs`, else soon. */
  note(id: number, hash: string): void {
    if (!this.key.headFile) return;
    if (this.pending && this.pending.id > id) return;
    this.pending = { id, hash };
    const now = Date.now();
    if (now - this.writtenAt >= this.intervalMs) {
      this.flush();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.intervalMs - (now - this.writtenAt)).unref();
  }

  /** Writes the pending head (at close, and from the timer). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.writtenAt = Date.now();
    try {
      writeHead(this.key, { ...this.snapshot(pending), ts: this.writtenAt });
    } catch (err) {
      // The chain in the database is intact; a missed head write only weakens truncation detection until the next.
      this.pending = pending;
      reportStoreFault({ engine: 'file', op: 'audit.head', reason: faultReason(err) ?? 'error', err });
    }
  }
}
