import { once } from 'node:events';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { StoreError } from '../core/errors.js';
import {
  AuditEntrySchema,
  AuditRowSchema,
  formatAuditId,
  parseAuditId,
  quickAuditEntry,
  RawAuditRowSchema,
  type AuditEntry,
  type AuditRow,
  type ParsedAuditEntry,
  type RawAuditRow,
} from './audit-schema.js';
import { bodyDigest, recordInteraction, ROW_NAME_CAP, rowName, type InteractionRecord } from './audit-interaction.js';
import { canonicalJson, sha256Hex } from '../core/canonical.js';
import { maskPrefix, maskSecretKeys, schemaCredentialKeysOf } from './redact.js';
import { HeadAnchor, macEqual, readHead, rowMac, type AuditHead, type AuditKey } from './audit-key.js';

export * from './audit-schema.js';

/** `prev_hash` of the first row. */
export const GENESIS_HASH = '0'.repeat(64);

/** Size caps: a row stays small whatever passes through the proxy. */
const CAP = { preview: 240, rationale: 2000, uri: 1000, name: ROW_NAME_CAP, witness: 8000, list: 100 } as const;
const PAGE = 500;

/** What `verify` checks beyond the rows. */
export interface VerifyOptions {
  /** A head printed by an earlier verify (or an auditId): row `id` must still exist with that hash (a prefix is enough). */
  anchor?: { id: number; hash: string };
  /** Further signed head files to check (other replicas' local anchors), each with the audit key. */
  heads?: string[];
}

/** Result of `verify()`: the first row that breaks the chain, and the chain head to anchor elsewhere. */
export interface VerifyResult {
  ok: boolean;
  rows: number;
  firstBad?: { id: number; reason: string };
  head?: { id: number; hash: string };
  /** Not tampering by themselves, but worth knowing (e.g. the append-only triggers are gone). */
  warnings: string[];
  /** Rows whose MAC was checked with the audit key. */
  keyed?: number;
  /** Signed head files checked (this store's or process's own, and any given). */
  heads?: number;
}

/** How often, at most, the signed head is written to its file (ms); it is also written at close. */
const HEAD_INTERVAL_MS = 1000;

/**
 * The append-only, hash-chained decisions log. Every row carries `hash = sha256(prev_hash ‖ canonical row JSON)`
 * where the row JSON includes its own id, so editing, deleting or renumbering a row breaks the chain.
 *
 * Durability choice: no batching. Each `append` is one synchronous IMMEDIATE transaction (~10–30 µs with WAL and
 * `synchronous=NORMAL`), so a denial is committed — it survives a crash of the proxy — before the denial is
 * returned, the row id is known to the caller (`Decision.auditId`), and a second process (the CLI releasing an
 * agent) can append to the same chain safely because the chain head is read inside the write lock.
 */
export class AuditLog {
  private readonly head: Database.Statement<[], { id: number | null; hash: string | null; seq: number | null }>;
  private readonly insert: Database.Statement;
  private readonly byId: Database.Statement<[number], unknown>;
  private readonly page: Database.Statement<[number, number], unknown>;
  private readonly tailStmt: Database.Statement<[number], unknown>;
  private readonly insertInteraction: Database.Statement;
  private readonly insertBody: Database.Statement;
  private readonly interactionById: Database.Statement<[number], { body: string | null; masked: number; truncated: number }>;
  private readonly appendTx: (row: Omit<RawAuditRow, 'id' | 'prev_hash' | 'hash' | 'mac'>, rec?: InteractionRecord) => { id: number; hash: string };
  private readonly firstKeyed: Database.Statement<[], { id: number }>;
  private readonly count: Database.Statement<[], { n: number }>;
  private readonly anchor: HeadAnchor | undefined;

  /**
   * `key`: the audit key (audit-key.ts). Without one, rows are appended without MACs and `verify` checks the
   * unkeyed chain only (read-only opens of a store whose key is elsewhere).
   */
  constructor(
    private readonly db: Database.Database,
    private readonly key?: AuditKey,
  ) {
    // The chain head and the highest id ever used, in one statement (this runs inside every append's lock).
    this.head = db.prepare(
      `SELECT (SELECT id FROM audit ORDER BY id DESC LIMIT 1) AS id, (SELECT hash FROM audit ORDER BY id DESC LIMIT 1) AS hash,
        (SELECT seq FROM sqlite_sequence WHERE name = 'audit') AS seq`,
    );
    // Positional parameters: binding 25 named ones costs more than the insert itself.
    this.insert = db.prepare(
      `INSERT INTO audit (id, ts, agent, session, kind, server, tool, uri, recipient, digest, preview, size, decision,
        rules, flagged, witness, threat, rationale, elapsed_ms, policy_hash, source, llm, prev_hash, hash, mac)
       VALUES (${Array(25).fill('?').join(', ')})`,
    );
    this.firstKeyed = db.prepare('SELECT id FROM audit WHERE mac IS NOT NULL ORDER BY id LIMIT 1');
    this.count = db.prepare('SELECT count(*) AS n FROM audit');
    this.anchor = key?.headFile
      ? new HeadAnchor(key, (last) => ({ ...last, rows: this.count.get()?.n ?? 0, keyedSince: this.firstKeyed.get()?.id ?? last.id, ts: 0 }), HEAD_INTERVAL_MS)
      : undefined;
    this.byId = db.prepare('SELECT * FROM audit WHERE id = ?');
    this.page = db.prepare('SELECT * FROM audit WHERE id > ? ORDER BY id LIMIT ?');
    this.tailStmt = db.prepare('SELECT * FROM (SELECT * FROM audit ORDER BY id DESC LIMIT ?) ORDER BY id');
    this.insertInteraction = db.prepare('INSERT INTO audit_interaction (id, body, masked, truncated, body_digest) VALUES (?, NULL, ?, ?, ?)');
    this.insertBody = db.prepare('INSERT OR IGNORE INTO audit_body (digest, body) VALUES (?, ?)');
    this.interactionById = db.prepare(
      'SELECT coalesce(i.body, b.body) AS body, i.masked, i.truncated FROM audit_interaction i LEFT JOIN audit_body b ON b.digest = i.body_digest WHERE i.id = ?',
    );
    const tx = db.transaction((fields: Omit<RawAuditRow, 'id' | 'prev_hash' | 'hash' | 'mac'>, rec?: InteractionRecord) => {
      const head = this.head.get();
      // The next id follows the highest id ever used, so a deleted tail shows up as a gap.
      const id = Math.max(head?.id ?? 0, head?.seq ?? 0) + 1;
      const prev = head?.hash ?? GENESIS_HASH;
      const row = { id, ...fields, prev_hash: prev };
      const hash = rowHash(row);
      const f = fields;
      this.insert.run(
        id, f.ts, f.agent, f.session, f.kind, f.server, f.tool, f.uri, f.recipient, f.digest, f.preview, f.size, f.decision,
        f.rules, f.flagged, f.witness, f.threat, f.rationale, f.elapsed_ms, f.policy_hash, f.source, f.llm ?? null, prev, hash,
        this.key ? rowMac(this.key, hash) : null,
      );
      if (rec) {
        const digest = rec.body !== null ? bodyDigest(rec.body) : null;
        if (digest !== null) this.insertBody.run(digest, rec.body);
        this.insertInteraction.run(id, rec.masked ? 1 : 0, rec.truncated ? 1 : 0, digest);
      }
      return { id, hash };
    });
    this.appendTx = (row, rec) => tx.immediate(row, rec);
  }

  /** Records one entry; returns its id, stable string id and chain hash. Throws `store_invalid_entry` on a bad entry. */
  append(entry: AuditEntry): { id: number; auditId: string; hash: string } {
    const { fields, rec } = auditFields(entry);
    try {
      const { id, hash } = this.appendTx(fields, rec);
      this.noteHead(id, hash);
      return { id, auditId: formatAuditId(id, hash), hash };
    } catch (err) {
      throw new StoreError('store_write_failed', `cannot append to the audit log: ${(err as Error).message}`, { cause: err });
    }
  }

  /** One row by numeric id or stable string id (`42` or `42-3fa9c1d2`); undefined when absent or the hash prefix differs. */
  get(id: number | string): AuditRow | undefined {
    const ref = typeof id === 'number' ? { id } : parseAuditId(id);
    if (!ref) throw new StoreError('store_invalid_id', `not an audit id: ${String(id)} (expected 42 or 42-3fa9c1d2)`);
    const raw = this.byId.get(ref.id);
    if (raw === undefined) return undefined;
    const row = parseRow(raw);
    if ('hashPrefix' in ref && ref.hashPrefix && !row.hash.startsWith(ref.hashPrefix)) return undefined;
    return row;
  }

  /**
   * The masked, capped interaction recorded with row `id` (see audit-interaction.ts); undefined for admin rows and
   * rows written before the store kept interactions. Not covered by the hash chain: the chain's `digest` is of the
   * unmasked payload, which the store never keeps.
   */
  interaction(id: number): InteractionRecord | undefined {
    const r = this.interactionById.get(id);
    return r === undefined ? undefined : { body: r.body, masked: r.masked === 1, truncated: r.truncated === 1 };
  }

  /** The last `n` rows, oldest first. */
  tail(n: number): AuditRow[] {
    return this.tailStmt.all(Math.max(0, Math.floor(n))).map(parseRow);
  }

  /** Every row with id ≥ `fromId`, in id order, read in pages so the connection is never held between steps. */
  *iterate(fromId = 1): Generator<AuditRow> {
    for (const raw of this.rawPages(fromId - 1)) yield parseRow(raw);
  }

  /**
   * Walks the whole chain and names the first row that breaks it: an edited row (its hash no longer matches),
   * a deleted row (a gap in ids, or a missing tail), a rewritten or reordered row (a `prev_hash` that does not
   * link to the row before). An attacker who deletes the tail and also rewinds `sqlite_sequence` leaves no
   * trace inside the file, but the signed head file beside the key does (and `anchor`, a head kept elsewhere:
   * row `anchor.id` must still exist with that hash; any prefix of it is accepted, e.g. an auditId's 8 digits).
   * The checks are `ChainWalker`'s, shared with PostgreSQL.
   */
  verify(options: VerifyOptions = {}): VerifyResult {
    const warnings: string[] = [];
    const triggers = this.db
      .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name IN ('audit_no_update', 'audit_no_delete')")
      .get() as { n: number };
    if (triggers.n < 2) warnings.push('the append-only triggers of the audit table are missing (someone dropped them)');
    const walk = new ChainWalker(warnings, {
      key: this.key,
      ...(options.heads ? { extraHeads: options.heads } : {}),
      ownHeadRequired: true,
      firstKeyed: this.firstKeyed.get()?.id,
      rowCount: this.count.get()?.n ?? 0,
      anchor: options.anchor,
    });
    if (walk.early) return walk.early;
    for (const raw of this.rawPages(0)) {
      const bad = walk.push(raw);
      if (bad) return bad;
    }
    return walk.finish(this.head.get()?.seq ?? 0);
  }

  /** Writes every row as one JSON line, respecting back-pressure; resolves with the number of rows written. */
  async exportNdjson(out: NodeJS.WritableStream, fromId = 1): Promise<number> {
    let n = 0;
    for (const row of this.iterate(fromId)) {
      if (!out.write(`${JSON.stringify(row)}\n`)) await once(out, 'drain');
      n++;
    }
    return n;
  }

  /** Writes the signed head now if it has not been written for a second, else soon (timer, unref'd). */
  private noteHead(id: number, hash: string): void {
    this.anchor?.note(id, hash);
  }

  /** Writes the pending signed head (at close, and from the timer). */
  flushHead(): void {
    this.anchor?.flush();
  }

  private *rawPages(afterId: number): Generator<unknown> {
    let after = afterId;
    for (;;) {
      const page = this.page.all(after, PAGE);
      for (const raw of page) yield raw;
      if (page.length < PAGE) return;
      after = (page[page.length - 1] as { id: number }).id;
    }
  }
}

/** The columns of a new row (all but id, the chain hashes and the MAC), and its interaction record: shared by both engines. */
export function auditFields(entry: AuditEntry): { fields: Omit<RawAuditRow, 'id' | 'prev_hash' | 'hash' | 'mac'>; rec: InteractionRecord | undefined } {
  const e = quickAuditEntry(entry) ?? parseEntry(entry);
  const payload = e.payload === undefined ? undefined : canonicalJson(e.payload);
  // The preview is of the payload with values in credential fields replaced (the digest is of the payload).
  const keyed = maskSecretKeys(e.payload, schemaCredentialKeysOf(e.interaction));
  const text = payload === undefined ? undefined : typeof e.payload === 'string' ? e.payload : keyed === e.payload ? payload : canonicalJson(keyed);
  const fields = {
    ts: e.ts ?? Date.now(),
    agent: capName(e.agent),
    session: capName(e.session),
    kind: e.kind,
    // Names a client chooses (a tools/call or prompts/get name, the server prefix split from it, a recipient) are
    // masked as any other text the store keeps; the agent and session come from the proxy and its config.
    server: e.server === undefined ? null : rowName(e.server),
    tool: e.tool === undefined ? null : rowName(e.tool),
    uri: e.uri === undefined ? null : maskPrefix(e.uri, CAP.uri),
    recipient: e.recipient === undefined ? null : rowName(e.recipient),
    digest: payload === undefined ? null : sha256Hex(payload),
    preview: text === undefined ? null : maskPrefix(text, CAP.preview),
    size: payload === undefined ? null : Buffer.byteLength(payload),
    decision: e.decision,
    rules: JSON.stringify(e.rules.slice(0, CAP.list).map(capName)),
    flagged: JSON.stringify(e.flagged.slice(0, CAP.list).map(capName)),
    witness: capWitness(e.witness),
    threat: e.threatLevel ?? null,
    rationale: maskPrefix(e.rationale, CAP.rationale),
    elapsed_ms: e.elapsedMs ?? null,
    policy_hash: e.policyHash === undefined ? null : capName(e.policyHash),
    source: capName(e.source),
    llm: e.llm === undefined ? null : JSON.stringify(e.llm),
  };
  return { fields, rec: e.interaction === undefined ? undefined : recordInteraction(e.interaction) };
}

function parseEntry(entry: AuditEntry): ParsedAuditEntry {
  const parsed = AuditEntrySchema.safeParse(entry);
  if (!parsed.success) throw new StoreError('store_invalid_entry', `audit entry is invalid: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** What a verifier knows from outside the rows: shared by both engines' `verify`. */
export interface ChainContext {
  /** The audit key: rows from `keyedSince` on must carry its MAC, and signed heads must carry its signature. */
  key: AuditKey | undefined;
  /** The signed head file of this process/store (`key.headFile`), then any other given (`audit verify --head`). */
  extraHeads?: string[];
  /**
   * True when this store's own head file must exist once rows carry MACs (SQLite: the file sits beside the
   * database). PostgreSQL replicas keep theirs where they run, so a verifier elsewhere may not have one.
   */
  ownHeadRequired: boolean;
  /**
   * True when a log with rows, verified with a key, must carry MACs (PostgreSQL: without a head file nothing else
   * tells a log that was never keyed from one whose every MAC was stripped after a full rewrite).
   */
  macsRequired?: boolean;
  /** The first row of the store carrying a MAC, if any. */
  firstKeyed: number | undefined;
  /** Rows in the store (only for the warning that none is keyed). */
  rowCount: number;
  anchor?: { id: number; hash: string } | undefined;
}

/**
 * The verification of a chain, shared by both engines: walks the rows in id order (`push`) and names the first
 * that breaks the chain — a gap in ids, a `prev_hash` that does not link, a hash that does not match the row, a
 * MAC that is not the key's — then (`finish`) checks the tail against the highest id the store ever used, every
 * signed head file (a head naming a row that is gone, or with another hash, is a truncation or a rewrite) and the
 * operator's anchor. Construct it, return `early` if set, push every row, return `finish(seq)`.
 */
export class ChainWalker {
  rows = 0;
  keyed = 0;
  lastId = 0;
  lastHash = GENESIS_HASH;
  /** Set when the key or a signed head already fails before any row is read. */
  readonly early: VerifyResult | undefined;
  /** Rows from this id on must carry a valid MAC. */
  readonly keyedSince: number;
  private readonly heads: Array<{ file: string; head: AuditHead }> = [];
  /** Hashes of the rows the heads and the anchor name, as they are walked. */
  private readonly seen = new Map<number, string | undefined>();

  constructor(
    private readonly warnings: string[],
    private readonly ctx: ChainContext,
  ) {
    const key = ctx.key;
    let early: VerifyResult | undefined;
    const files = [...(key?.headFile ? [key.headFile] : []), ...(ctx.extraHeads ?? [])];
    for (const [i, file] of files.entries()) {
      if (!key) {
        warnings.push(`no audit key available: the signed head ${file} cannot be checked`);
        continue;
      }
      const isOwn = i === 0 && key.headFile !== '';
      const signed = readHead({ ...key, headFile: file });
      if (signed.state === 'invalid') early ??= this.bad(1, `the signed head ${file}: ${signed.reason}`);
      else if (signed.state === 'ok') this.heads.push({ file, head: signed.head });
      else if (!isOwn) early ??= this.bad(1, `the signed head ${file} does not exist`);
    }
    const own = key?.headFile ? this.heads.find((h) => h.file === key.headFile)?.head : undefined;
    const fromHeads = this.heads.length > 0 ? Math.min(...this.heads.map((h) => h.head.keyedSince)) : undefined;
    this.keyedSince = Math.min(fromHeads ?? Number.POSITIVE_INFINITY, ctx.firstKeyed ?? Number.POSITIVE_INFINITY);
    if (!key) {
      warnings.push('no audit key available: only the unkeyed hash chain was checked (a full rewrite would pass)');
    } else if (!Number.isFinite(this.keyedSince)) {
      if (ctx.rowCount > 0 && ctx.macsRequired) {
        early ??= this.bad(1, 'no row carries a MAC although the audit key was given: every MAC was stripped (a rewrite), or the log was never keyed (then verify it without the key)');
      } else if (ctx.rowCount > 0) warnings.push('no row carries a MAC: the log predates its key (or every MAC was stripped); only the unkeyed chain was checked');
    } else if (!own && key.headFile) {
      if (ctx.ownHeadRequired) {
        early ??= this.bad(this.keyedSince, `the signed head ${key.headFile} is missing although rows carry MACs: it was deleted, so truncation cannot be ruled out`);
      } else if (this.heads.length === 0) {
        warnings.push(`no signed head file of a replica was available (${key.headFile} does not exist): a truncation that also rolled back the store's head cannot be ruled out; pass the replicas' head files with --head`);
      }
    }
    for (const h of this.heads) this.seen.set(h.head.id, undefined);
    if (ctx.anchor) this.seen.set(ctx.anchor.id, undefined);
    this.early = early;
  }

  private bad(id: number, reason: string): VerifyResult {
    return { ok: false, rows: this.rows, firstBad: { id, reason }, warnings: this.warnings, keyed: this.keyed };
  }

  /** Checks the next row; a result means the chain is broken there. */
  push(raw: unknown): VerifyResult | undefined {
    const prevId = this.lastId;
    const parsed = RawAuditRowSchema.safeParse(raw);
    const id = (raw as { id?: unknown }).id;
    if (!parsed.success) return this.bad(typeof id === 'number' ? id : prevId + 1, 'row has malformed columns');
    const row = parsed.data;
    if (row.id !== prevId + 1) {
      const span = row.id - 1 === prevId + 1 ? `row ${prevId + 1} is` : `rows ${prevId + 1}–${row.id - 1} are`;
      return this.bad(prevId + 1, `${span} missing (deleted); the next row is ${row.id}`);
    }
    if (row.prev_hash !== this.lastHash) {
      return this.bad(row.id, prevId === 0
        ? 'first row does not start from the genesis hash (rows before it were removed or it was forged)'
        : `prev_hash does not match the hash of row ${prevId} (row ${prevId} was rewritten, or rows were reordered or inserted)`);
    }
    const { hash, ...rest } = row;
    if (rowHash(rest) !== hash) return this.bad(row.id, 'hash mismatch: the row was edited after it was written');
    const key = this.ctx.key;
    if (key && row.id >= this.keyedSince) {
      if (row.mac === null || !macEqual(row.mac, rowMac(key, hash))) {
        return this.bad(row.id, 'MAC mismatch: the row was written or rewritten without the audit key');
      }
      this.keyed++;
    }
    if (this.seen.has(row.id)) this.seen.set(row.id, hash);
    this.rows++;
    this.lastId = row.id;
    this.lastHash = hash;
    return undefined;
  }

  /** `seq`: the highest id the store says it ever used. */
  finish(seq: number): VerifyResult {
    const prevId = this.lastId;
    if (seq > prevId) return this.bad(prevId + 1, `rows ${prevId + 1}–${seq} are missing at the end (deleted)`);
    for (const { file, head } of this.heads) {
      const held = this.seen.get(head.id);
      if (head.id > prevId || held === undefined) return this.bad(Math.min(head.id, prevId + 1), `the signed head names row ${head.id}, but the log ends at row ${prevId}: it was truncated (${file})`);
      if (held !== head.hash) return this.bad(head.id, `row ${head.id} does not have the hash the signed head recorded: the log was rewritten from there (${file})`);
      if (this.rows < head.rows) return this.bad(prevId + 1, `the signed head counted ${head.rows} rows, the log has ${this.rows}: rows were removed (${file})`);
    }
    const anchor = this.ctx.anchor;
    if (anchor) {
      const held = this.seen.get(anchor.id);
      if (anchor.id > prevId || held === undefined) return this.bad(Math.min(anchor.id, prevId + 1), `anchored row ${anchor.id} is missing: the log was truncated after row ${prevId}`);
      if (!held.startsWith(anchor.hash.toLowerCase())) {
        return this.bad(anchor.id, `row ${anchor.id} does not have the anchored hash ${anchor.hash}: the log was rewritten from there`);
      }
    }
    // Rows carry MACs, so a key wrote them: without it, a deleted key file and a recomputed chain would pass. The walk
    // above still names a break it finds first; a chain that looks whole is not reported as verified.
    if (!this.ctx.key && this.ctx.firstKeyed !== undefined) {
      return this.bad(this.ctx.firstKeyed, `rows from ${this.ctx.firstKeyed} on carry MACs, but no audit key is at hand to check them (was its file deleted or moved?): the log cannot be verified; give the key (QUADGUARD_AUDIT_KEY, or the key file beside the store)`);
    }
    return this.ok();
  }

  /** The result of a chain that passed every check. */
  ok(): VerifyResult {
    return {
      ok: true,
      rows: this.rows,
      ...(this.lastId > 0 ? { head: { id: this.lastId, hash: this.lastHash } } : {}),
      warnings: this.warnings,
      keyed: this.keyed,
      heads: this.heads.length,
    };
  }

  /** A failure found by the engine after the walk (e.g. PostgreSQL's head row). */
  fail(id: number, reason: string): VerifyResult {
    return this.bad(id, reason);
  }
}

/** Columns added after the chain began (migration 4 on). */
const LATER_COLUMNS = new Set<string>(['llm']);

/** Every hashed column, sorted: the key order of the canonical row JSON. The MAC covers the hash, not the reverse. */
const HASHED_COLUMNS = Object.keys(RawAuditRowSchema.shape).filter((k) => k !== 'hash' && k !== 'mac').sort() as (keyof Omit<RawAuditRow, 'hash' | 'mac'>)[];

/**
 * The chain hash of a row: sha256 of its `prev_hash` followed by the canonical JSON of its columns (all but
 * `hash`, keys sorted). Columns are strings, numbers or null, so native `JSON.stringify` over an object built in
 * sorted key order is exactly `canonicalJson(row)`, at a fraction of the cost (this runs on every append).
 */
export function rowHash(row: Omit<RawAuditRow, 'hash' | 'llm' | 'mac'> & { llm?: string | null; mac?: string | null }): string {
  const sorted: Record<string, unknown> = {};
  for (const k of HASHED_COLUMNS) {
    // Columns added by later migrations join the hash only when set, so rows written before them still verify.
    if (LATER_COLUMNS.has(k) && (row[k] ?? null) === null) continue;
    sorted[k] = row[k] ?? null;
  }
  return sha256Hex(row.prev_hash + JSON.stringify(sorted));
}

export function parseRow(raw: unknown): AuditRow {
  const r = AuditRowSchema.safeParse(raw);
  if (!r.success) {
    const id = (raw as { id?: unknown } | undefined)?.id;
    throw new StoreError('store_corrupt_row', `audit row ${String(id)} is malformed: ${z.prettifyError(r.error)}; run \`quadguard audit verify\``);
  }
  return r.data;
}

function capName(s: string): string {
  return s.length > CAP.name ? `${s.slice(0, CAP.name)}…` : s;
}

/** Witnesses hold predicate names and truth values only; still capped, dropping whole witnesses past the cap. */
function capWitness(witness: AuditRow['witness']): string {
  const kept: AuditRow['witness'] = [];
  let size = 2;
  for (const w of witness.slice(0, CAP.list)) {
    const s = JSON.stringify(w).length + 1;
    if (size + s > CAP.witness) break;
    kept.push(w);
    size += s;
  }
  return JSON.stringify(kept);
}
