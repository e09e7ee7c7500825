import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { FlowSourceSchema, type FlowSource } from '../core/flow.js';

/**
 * The data-flow store (docs/data-flow.md): per identity, the reads of private data and the keyed-hash
 * fingerprints of what they returned, with a time to live. Never the data itself. Async so it can be implemented
 * over a networked database as well as over SQLite.
 */
export interface FlowStore {
  /** The per-store key of the fingerprint hash (created on first use, 32 bytes). */
  key(): Promise<Buffer>;
  /** Records a read by `agent` and its fingerprints; both expire at `expires` (ms since the epoch). */
  recordRead(agent: string, source: FlowSource, fingerprints: readonly string[], expires: number): Promise<void>;
  /** For each unexpired read of `agent` that shares fingerprints with `fingerprints`: the read and how many. */
  match(agent: string, fingerprints: readonly string[], now: number): Promise<FlowMatch[]>;
  /** Deletes expired reads and fingerprints; returns how many reads went. */
  sweep(now: number): Promise<number>;
}

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
 * What a fingerprint row is kept once per (with the identity and the hash): the server the data was read from, or
 * the URI naming where it came from (`agent:<sender>` for a message). A re-read from the same origin refreshes the
 * row; the same data from another origin gets its own, so data returned to one origin still matches the other.
 */
export function originOf(source: FlowSource): string {
  return source.server ?? source.uri ?? '';
}

/** SQLite lookups are batched so a query stays under SQLite's bound-parameter limit; batch sizes are bucketed
 * (padded by repeating a hash) so a handful of prepared statements serve every query. */
const BUCKETS = [8, 64, 500] as const;
const BATCH = 500;

export class SqliteFlowStore implements FlowStore {
  private cachedKey: Buffer | undefined;
  private readonly keyGet: Database.Statement<[], { key: Buffer } | undefined>;
  private readonly keyPut: Database.Statement;
  private readonly sourcePut: Database.Statement;
  private readonly fpPut: Database.Statement;
  private readonly sweepSources: Database.Statement;
  private readonly sweepFps: Database.Statement;
  private readonly matchStmts = new Map<number, Database.Statement>();
  private readonly recordTx: (agent: string, source: FlowSource, fingerprints: readonly string[], expires: number) => void;

  /** `seedKey`: the key to take when the store has none yet (see `StoreOptions.flowKey`); default random. */
  constructor(private readonly db: Database.Database, private readonly seedKey?: Buffer) {
    if (seedKey !== undefined && seedKey.length !== 32) throw new RangeError(`the data-flow key must be 32 bytes, got ${seedKey.length}`);
    this.keyGet = db.prepare('SELECT key FROM flow_key WHERE id = 1');
    this.keyPut = db.prepare('INSERT OR IGNORE INTO flow_key (id, key) VALUES (1, ?)');
    this.sourcePut = db.prepare(
      'INSERT OR REPLACE INTO flow_sources (id, agent, session, kind, server, tool, uri, at, expires) VALUES (@id, @agent, @session, @kind, @server, @tool, @uri, @at, @expires)',
    );
    this.fpPut = db.prepare(
      'INSERT INTO flow_fingerprints (agent, hash, origin, source, expires) VALUES (?, ?, ?, ?, ?) ON CONFLICT (agent, hash, origin) DO UPDATE SET source = excluded.source, expires = excluded.expires',
    );
    this.sweepFps = db.prepare('DELETE FROM flow_fingerprints WHERE expires <= ?');
    this.sweepSources = db.prepare('DELETE FROM flow_sources WHERE expires <= ?');
    // Built once: wrapping a new function in a transaction on every read cost more than a fingerprint's insert.
    this.recordTx = db.transaction((agent: string, source: FlowSource, fingerprints: readonly string[], expires: number) => {
      this.sourcePut.run({ id: source.id, agent, session: source.session, kind: source.kind, server: source.server ?? null, tool: source.tool ?? null, uri: source.uri ?? null, at: source.at, expires });
      const origin = originOf(source);
      for (const h of fingerprints) this.fpPut.run(agent, h, origin, source.id, expires);
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

  async recordRead(agent: string, source: FlowSource, fingerprints: readonly string[], expires: number): Promise<void> {
    this.recordTx(agent, source, fingerprints, expires);
  }

  private matchStmt(n: number): Database.Statement {
    let s = this.matchStmts.get(n);
    if (!s) {
      s = this.db.prepare(
        `SELECT s.id, s.session, s.kind, s.server, s.tool, s.uri, s.at, f.hash FROM flow_fingerprints f JOIN flow_sources s ON s.id = f.source
         WHERE f.agent = ? AND f.expires > ? AND f.hash IN (${Array(n).fill('?').join(',')})`,
      );
      this.matchStmts.set(n, s);
    }
    return s;
  }

  async match(agent: string, fingerprints: readonly string[], now: number): Promise<FlowMatch[]> {
    const bySource = new Map<string, FlowMatch>();
    const unique = [...new Set(fingerprints)];
    for (let at = 0; at < unique.length; at += BATCH) {
      const batch = unique.slice(at, at + BATCH);
      const size: number = BUCKETS.find((b) => b >= batch.length) ?? BATCH;
      while (batch.length < size) batch.push(batch[0]!);
      matchesFromRows(this.matchStmt(size).all(agent, now, ...batch), bySource);
    }
    return [...bySource.values()];
  }

  async sweep(now: number): Promise<number> {
    return this.db.transaction(() => {
      this.sweepFps.run(now);
      return this.sweepSources.run(now).changes;
    })();
  }
}
