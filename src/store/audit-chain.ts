import { RawAuditRowSchema } from './audit-schema.js';
import { anchorMac, macEqual, readHead, rowMac, type AuditHead, type AuditKey } from './audit-key.js';
import { rowHash } from './audit-row.js';

/** The verification of the audit hash chain, shared by both engines (`audit verify`). */

/** `prev_hash` of the first row. */
export const GENESIS_HASH = '0'.repeat(64);

/** What `verify` checks beyond the rows. */
export interface VerifyOptions {
  /** A head printed by an earlier verify (or an auditId): row `id` must still exist with that hash (a prefix is enough). */
  anchor?: { id: number; hash: string };
  /** Further signed head files to check (other replicas' local anchors), each with the audit key. */
  heads?: string[];
}

/**
 * Where the kept chain starts after `audit prune` dropped old rows: row `id` (the last dropped) had `hash`, `dropped`
 * rows were dropped in all (rows 1..id), the last prune ran at `ts`. `mac`: the audit key's (`anchorMac`).
 */
export interface RetentionAnchor {
  id: number;
  hash: string;
  dropped: number;
  ts: number;
  mac: string | null;
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
  /** Rows before this were dropped by retention: the chain was verified from the retention anchor. */
  from?: { id: number; dropped: number; ts: number };
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
  /** The retention anchor, when old rows were dropped: the walk starts after it. */
  retention?: RetentionAnchor | undefined;
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
    const ret = ctx.retention;
    if (ret) {
      // The walk starts after the last dropped row; only the key's MAC makes that start more than a claim.
      if (key && (ret.mac === null || !macEqual(ret.mac, anchorMac(key, ret)))) {
        early ??= this.bad(ret.id + 1, `the retention anchor (rows 1–${ret.id} dropped) does not carry the audit key's MAC: it was forged or edited, so where the kept chain starts cannot be trusted`);
      } else if (!key) warnings.push(`rows 1–${ret.id} were dropped by retention and no audit key is at hand: the retention anchor could not be checked`);
      this.lastId = ret.id;
      this.lastHash = ret.hash;
      // A head or operator anchor naming a dropped row cannot be checked against it.
      for (const id of [...this.seen.keys()]) if (id <= ret.id) this.seen.delete(id);
      if (ctx.anchor && ctx.anchor.id <= ret.id) warnings.push(`the anchor names row ${ctx.anchor.id}, which retention dropped: it was not checked`);
    }
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
        : prevId === this.ctx.retention?.id
        ? `prev_hash does not match the hash of row ${prevId} the retention anchor recorded (the first kept row was rewritten, or the anchor edited)`
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
    const dropped = this.ctx.retention?.dropped ?? 0;
    for (const { file, head } of this.heads) {
      // A head written before the last prune may name a dropped row: its count still holds (rows kept + dropped).
      if (this.ctx.retention && head.id <= this.ctx.retention.id) {
        if (this.rows + dropped < head.rows) return this.bad(prevId + 1, `the signed head counted ${head.rows} rows, the log has ${this.rows} and ${dropped} dropped by retention: rows were removed (${file})`);
        continue;
      }
      const held = this.seen.get(head.id);
      if (head.id > prevId || held === undefined) return this.bad(Math.min(head.id, prevId + 1), `the signed head names row ${head.id}, but the log ends at row ${prevId}: it was truncated (${file})`);
      if (held !== head.hash) return this.bad(head.id, `row ${head.id} does not have the hash the signed head recorded: the log was rewritten from there (${file})`);
      if (this.rows + dropped < head.rows) return this.bad(prevId + 1, `the signed head counted ${head.rows} rows, the log has ${this.rows}${dropped ? ` and ${dropped} dropped by retention` : ''}: rows were removed (${file})`);
    }
    const anchor = this.ctx.anchor && this.ctx.anchor.id > (this.ctx.retention?.id ?? 0) ? this.ctx.anchor : undefined;
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
      ...(this.ctx.retention ? { from: { id: this.ctx.retention.id, dropped: this.ctx.retention.dropped, ts: this.ctx.retention.ts } } : {}),
    };
  }

  /** A failure found by the engine after the walk (e.g. PostgreSQL's head row). */
  fail(id: number, reason: string): VerifyResult {
    return this.bad(id, reason);
  }
}

