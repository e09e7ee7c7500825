import { createHash, randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { FlowSourceSchema, type FlowSource } from '../core/flow.js';

/**
 * The data-flow store (docs/data-flow.md): per identity, the reads of private data and the keyed-hash fingerprints of
 * what they returned, with a time to live. Never the data itself. Async so it can be implemented over a networked
 * database as well as over SQLite.
 *
 * A read is kept once per identity, origin and content: a `digest` of what was read (a keyed hash of the whole text,
 * or of its fingerprints when none is given). Reading the same content from the same origin again refreshes that one
 * row (its expiry and the newest read's name); its fingerprints are stored once and expire with it.
 */
export interface FlowStore {
  /** The per-store key of the fingerprint hash (created on first use, 32 bytes). */
  key(): Promise<Buffer>;
  /**
   * Records a read by `agent` and its fingerprints, until `expires` (ms since the epoch). `digest` names its content
   * (default: a hash of the fingerprints): the same agent, origin and digest again only refreshes the read.
   */
  recordRead(agent: string, source: FlowSource, fingerprints: readonly string[], expires: number, digest?: string): Promise<void>;
  /**
   * When `agent` holds an unexpired read of `digest` from `source`'s origin: names it `source`, sets its expiry to
   * `expires` and answers true (one row written, whatever its fingerprints). False when none is held: record it.
   */
  refresh(agent: string, source: FlowSource, digest: string, expires: number, now: number): Promise<boolean>;
  /** For each unexpired read of `agent` that shares fingerprints with `fingerprints`: the read and how many. */
  match(agent: string, fingerprints: readonly string[], now: number): Promise<FlowMatch[]>;
  /**
   * Deletes reads that expired by `now`, oldest first, with their fingerprints: at most `budget` fingerprints' worth
   * (and at least one read) per call, so a sweep's work is bounded. Returns how many reads went.
   */
  sweep(now: number, budget?: number): Promise<number>;
}

/**
 * Fingerprints a SQLite transaction of `recordRead` inserts at most (about a millisecond of work: 1.3–1.5 ms of CPU
 * at load 14, where 256 took 2.5–3 ms; the total is the same): a long read's are inserted over several turns of the
 * event loop, so other sessions are answered in between. Each transaction's are one statement over a JSON array
 * (`json_each`), in sorted order: consecutive keys of the (hash, read) index, so a transaction touches a few pages
 * of it instead of one per fingerprint (bench/README.md "The soak mix (thirteenth round)").
 */
export const PRINTS_PER_TX = 128;

/** Fingerprints a sweep deletes at most by default (a few milliseconds of work). */
export const SWEEP_BUDGET = 8192;
/** Expired reads a sweep looks at per call. */
const SWEEP_READS = 64;

export interface FlowMatch {
  source: FlowSource;
  /** The distinct fingerprints of the query this read shares. */
  hashes: string[];
}

/** A fingerprint hit joined with its read, as both engines select it. */
const SourceRowSchema = z.object({
  id: z.string(),
  session: z.string(),
  kind: z.string(),
  server: z.string().nullable(),
  tool: z.string().nullable(),
  uri: z.string().nullable(),
  at: z.coerce.number(),
  hash: z.string(),
});

/** The reads that `rows` (fingerprint hits joined with their reads) name, each with the hashes it shares. */
export function matchesFromRows(rows: Iterable<unknown>, into = new Map<string, FlowMatch>()): Map<string, FlowMatch> {
  for (const raw of rows) {
    const r = SourceRowSchema.parse(raw);
    let m = into.get(r.id);
    if (!m) {
      const source = FlowSourceSchema.parse({
        id: r.id, session: r.session, kind: r.kind, at: r.at,
        ...(r.server !== null ? { server: r.server } : {}), ...(r.tool !== null ? { tool: r.tool } : {}), ...(r.uri !== null ? { uri: r.uri } : {}),
      });
      m = { source, hashes: [] };
      into.set(r.id, m);
    }
    m.hashes.push(r.hash);
  }
  return into;
}

/**
 * The matches in one order whatever the engine's query plan: the earliest read first, ties by read id, each read's
 * hashes sorted. Which read and which field a rule names must not change with the order rows come back in.
 */
export function inReadOrder(matches: Map<string, FlowMatch>): FlowMatch[] {
  const list = [...matches.values()];
  for (const m of list) m.hashes.sort();
  return list.sort((a, b) => a.source.at - b.source.at || (a.source.id < b.source.id ? -1 : a.source.id > b.source.id ? 1 : 0));
}

/**
 * Where a read's data came from, part of what a read is kept once per (with the identity and the digest): the server
 * it was read from, or the URI naming where it came from (`agent:<sender>` for a message). The same data from two
 * origins is kept under each, so data returned to one origin still matches the other.
 */
export function originOf(source: FlowSource): string {
  return source.server ?? source.uri ?? '';
}

/** The digest of a read given without one: its distinct fingerprints, sorted and hashed (so the same set gives the same digest). */
export function printsDigest(fingerprints: readonly string[]): string {
  const h = createHash('sha256');
  for (const f of [...new Set(fingerprints)].sort()) h.update(f).update(',');
  return `p:${h.digest('base64')}`;
}

/**
 * A read's distinct fingerprints in sorted order (the order they are inserted in, see PRINTS_PER_TX). A list sorted
 * already (read-hashes.ts sorts a read's, in the worker pool for a long read) is checked in one pass, not sorted again.
 */
export function sortedPrints(fingerprints: readonly string[]): string[] {
  let sorted = true;
  for (let n = 1; n < fingerprints.length && sorted; n++) sorted = fingerprints[n - 1]! < fingerprints[n]!;
  return sorted ? [...fingerprints] : [...new Set(fingerprints)].sort();
}

/** A read's fingerprints as its row keeps them, for the sweep to delete them by key (no index from read to fingerprint). */
export function printList(fingerprints: readonly string[]): string {
  const unique = sortedPrints(fingerprints);
  if (unique.some((f) => f.includes(','))) throw new RangeError('a data-flow fingerprint must not contain a comma');
  return unique.join(',');
}

/** A read's row values beside its fingerprints, in the column order both engines' INSERT use. */
export function readRow(agent: string, source: FlowSource, digest: string, expires: number): unknown[] {
  return [agent, originOf(source), digest, source.id, source.session, source.kind, source.server ?? null, source.tool ?? null, source.uri ?? null, source.at, expires];
}

/** SQLite lookups are batched so a query stays under SQLite's bound-parameter limit; batch sizes are bucketed
 * (padded by repeating a hash) so a handful of prepared statements serve every query. */
const BUCKETS = [8, 64, 500] as const;
const BATCH = 500;

/** A match's row: the read (named by its newest source) and one fingerprint it shares. */
const MATCH_COLUMNS = 'r.source AS id, r.session, r.kind, r.server, r.tool, r.uri, r.at, p.hash';
export const READ_COLUMNS = 'agent, origin, digest, source, session, kind, server, tool, uri, at, expires';

export class SqliteFlowStore implements FlowStore {
  private cachedKey: Buffer | undefined;
  private readonly keyGet: Database.Statement<[], { key: Buffer } | undefined>;
  private readonly keyPut: Database.Statement;
  private readonly readPut: Database.Statement<unknown[], { id: number }>;
  private readonly printsPut: Database.Statement<[number, string]>;
  private readonly refreshStmt: Database.Statement;
  private readonly expiredReads: Database.Statement<[number, number], { id: number; prints: string }>;
  private readonly readDelete: Database.Statement;
  private readonly printsDelete: Database.Statement<[number, string]>;
  private readonly matchStmts = new Map<number, Database.Statement>();
  private readonly recordTx: (agent: string, source: FlowSource, fingerprints: readonly string[], expires: number, digest: string) => void;
  private readonly readByDigest: Database.Statement<[string, string, string], { id: number }>;
  private readonly readName: Database.Statement;
  private readonly readRename: Database.Statement;
  private readonly readExpire: Database.Statement;
  private readonly startTx: (agent: string, source: FlowSource, list: string, expires: number, digest: string, pending: string, first: readonly string[]) => number | undefined;
  private readonly nameTx: (id: number, agent: string, source: FlowSource, digest: string, expires: number) => void;
  private readonly sweepTx: (now: number, budget: number) => number;

  /** `seedKey`: the key to take when the store has none yet (see `StoreOptions.flowKey`); default random. */
  constructor(private readonly db: Database.Database, private readonly seedKey?: Buffer) {
    if (seedKey !== undefined && seedKey.length !== 32) throw new RangeError(`the data-flow key must be 32 bytes, got ${seedKey.length}`);
    this.keyGet = db.prepare('SELECT key FROM flow_key WHERE id = 1');
    this.keyPut = db.prepare('INSERT OR IGNORE INTO flow_key (id, key) VALUES (1, ?)');
    // A read of content already held (even expired, not yet swept: its fingerprints are the same) takes the newest
    // read's name and expiry; its fingerprints are already there.
    this.readPut = db.prepare(
      `INSERT INTO flow_reads (${READ_COLUMNS}, prints) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent, origin, digest) DO UPDATE SET source = excluded.source, session = excluded.session, kind = excluded.kind,
         server = excluded.server, tool = excluded.tool, uri = excluded.uri, at = excluded.at, expires = excluded.expires RETURNING id`,
    );
    // A batch of a read's fingerprints (a JSON array of them) in one statement.
    this.printsPut = db.prepare('INSERT OR IGNORE INTO flow_prints (hash, read) SELECT value, ? FROM json_each(?)');
    this.refreshStmt = db.prepare(
      'UPDATE flow_reads SET source = ?, session = ?, kind = ?, server = ?, tool = ?, uri = ?, at = ?, expires = ? WHERE agent = ? AND origin = ? AND digest = ? AND expires > ?',
    );
    this.expiredReads = db.prepare('SELECT id, prints FROM flow_reads WHERE expires <= ? ORDER BY expires LIMIT ?');
    this.readDelete = db.prepare('DELETE FROM flow_reads WHERE id = ?');
    this.printsDelete = db.prepare('DELETE FROM flow_prints WHERE read = ? AND hash IN (SELECT value FROM json_each(?))');
    // Built once: wrapping a new function in a transaction on every read cost more than a fingerprint's insert.
    this.recordTx = db.transaction((agent: string, source: FlowSource, fingerprints: readonly string[], expires: number, digest: string) => {
      const list = printList(fingerprints);
      const { id } = this.readPut.get(...readRow(agent, source, digest, expires), list)!;
      const hashes = list.split(',').filter((h) => h !== '');
      if (hashes.length > 0) this.printsPut.run(id, JSON.stringify(hashes));
    });
    this.readByDigest = db.prepare('SELECT id FROM flow_reads WHERE agent = ? AND origin = ? AND digest = ?');
    this.readName = db.prepare('UPDATE flow_reads SET source = ?, session = ?, kind = ?, server = ?, tool = ?, uri = ?, at = ?, expires = ? WHERE id = ?');
    this.readRename = db.prepare('UPDATE flow_reads SET digest = ? WHERE id = ?');
    this.readExpire = db.prepare('UPDATE flow_reads SET expires = 0 WHERE id = ?');
    // A long read (see `recordRead`): its row under a pending digest with its first fingerprints, then the rest, then
    // its digest.
    this.startTx = db.transaction((agent: string, source: FlowSource, list: string, expires: number, digest: string, pending: string, first: readonly string[]) => {
      // Content already held (even expired, not yet swept) has its fingerprints: it takes this read's name and expiry.
      const held = this.readByDigest.get(agent, originOf(source), digest);
      if (held !== undefined) {
        this.readName.run(source.id, source.session, source.kind, source.server ?? null, source.tool ?? null, source.uri ?? null, source.at, expires, held.id);
        return undefined;
      }
      const { id } = this.readPut.get(...readRow(agent, source, pending, expires), list)!;
      this.printsPut.run(id, JSON.stringify(first));
      return id as number | undefined;
    });
    this.nameTx = db.transaction((id: number, agent: string, source: FlowSource, digest: string, expires: number) => {
      const held = this.readByDigest.get(agent, originOf(source), digest);
      if (held === undefined) {
        this.readRename.run(digest, id);
        return;
      }
      // The same content was recorded meanwhile (another process): that read takes this one's name and expiry, as
      // the single transaction's upsert does, and this one's copy of the same fingerprints goes with the next sweep.
      this.readName.run(source.id, source.session, source.kind, source.server ?? null, source.tool ?? null, source.uri ?? null, source.at, expires, held.id);
      this.readExpire.run(id);
    });
    this.sweepTx = db.transaction((now: number, budget: number) => {
      let left = budget;
      let gone = 0;
      for (const r of this.expiredReads.all(now, SWEEP_READS)) {
        const prints = r.prints === '' ? [] : r.prints.split(',');
        if (gone > 0 && prints.length > left) break;
        if (prints.length > 0) this.printsDelete.run(r.id, JSON.stringify(prints));
        this.readDelete.run(r.id);
        left -= prints.length;
        gone++;
      }
      return gone;
    });
  }

  async key(): Promise<Buffer> {
    if (this.cachedKey) return this.cachedKey;
    let row = this.keyGet.get();
    if (!row) {
      this.keyPut.run(this.seedKey ?? randomBytes(32));
      row = this.keyGet.get();
    }
    this.cachedKey = Buffer.from(row!.key);
    return this.cachedKey;
  }

  /**
   * A read of at most PRINTS_PER_TX fingerprints in one transaction. A longer one in several, one per turn of the
   * event loop: its row first, under a pending digest (`refresh` does not find it, so a read of the same content
   * meanwhile records it again rather than taking a read whose fingerprints are not all there), then its
   * fingerprints, then its digest. It resolves once all are in, so the answer that waits for it is released only
   * then, as with one transaction; a send checked meanwhile is matched against the fingerprints already in.
   */
  async recordRead(agent: string, source: FlowSource, fingerprints: readonly string[], expires: number, digest?: string): Promise<void> {
    const named = digest ?? printsDigest(fingerprints);
    if (fingerprints.length <= PRINTS_PER_TX) {
      this.recordTx(agent, source, fingerprints, expires, named);
      return;
    }
    const list = printList(fingerprints);
    const hashes = list.split(',');
    // Named by the read's source too: a call retried after a lock (sqlite-calls.ts) finds its own row again.
    const id = this.startTx(agent, source, list, expires, named, `pending:${named}:${source.id}`, hashes.slice(0, PRINTS_PER_TX));
    if (id === undefined) return;
    for (let at = PRINTS_PER_TX; at < hashes.length; at += PRINTS_PER_TX) {
      await nextTurn();
      // One statement: a transaction of its own.
      this.printsPut.run(id, JSON.stringify(hashes.slice(at, at + PRINTS_PER_TX)));
    }
    await nextTurn();
    this.nameTx(id, agent, source, named, expires);
  }

  async refresh(agent: string, source: FlowSource, digest: string, expires: number, now: number): Promise<boolean> {
    const r = this.refreshStmt.run(source.id, source.session, source.kind, source.server ?? null, source.tool ?? null, source.uri ?? null, source.at, expires, agent, originOf(source), digest, now);
    return r.changes > 0;
  }

  private matchStmt(n: number): Database.Statement {
    let s = this.matchStmts.get(n);
    if (!s) {
      s = this.db.prepare(
        // CROSS JOIN fixes the loop order: each fingerprint's range of the (hash, read) key, then its read by id.
        // Left to itself the planner walked every unexpired read by the `expires` index and probed each for all the
        // fingerprints (reads × fingerprints lookups: ~30 ms a send against 500 reads of one identity).
        `SELECT ${MATCH_COLUMNS} FROM flow_prints p CROSS JOIN flow_reads r ON r.id = p.read
         WHERE p.hash IN (${Array(n).fill('?').join(',')}) AND r.agent = ? AND r.expires > ?`,
      );
      this.matchStmts.set(n, s);
    }
    return s;
  }

  /**
   * A long send's lookup (more than one batch) takes a turn of the event loop between its batches (each a few
   * milliseconds), so other sessions are answered in between; a short one is one query, no turn.
   */
  async match(agent: string, fingerprints: readonly string[], now: number): Promise<FlowMatch[]> {
    const bySource = new Map<string, FlowMatch>();
    const unique = [...new Set(fingerprints)];
    for (let at = 0; at < unique.length; at += BATCH) {
      if (at > 0) await nextTurn();
      const batch = unique.slice(at, at + BATCH);
      const size: number = BUCKETS.find((b) => b >= batch.length) ?? BATCH;
      while (batch.length < size) batch.push(batch[0]!);
      matchesFromRows(this.matchStmt(size).all(...batch, agent, now), bySource);
    }
    return inReadOrder(bySource);
  }

  async sweep(now: number, budget = SWEEP_BUDGET): Promise<number> {
    return this.sweepTx(now, budget);
  }
}
