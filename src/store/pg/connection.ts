import pg from 'pg';
import { StoreError } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import { redactUrl } from '../location.js';
import { MIGRATIONS } from '../migrations.js';
import { faultReason, reportStoreFault } from '../faults.js';
import type { AuditWatchHandlers, AuditWatcher } from '../engine.js';
import { watchAudit } from './notify.js';

export { redactUrl } from '../location.js';

/** Options of the PostgreSQL engine; every default is here. */
export interface PgOptions {
  /** Connections per process. Default 10. */
  poolSize?: number;
  /** How long to wait for a connection (also when the database is down), ms. Default 3000. */
  connectTimeoutMs?: number;
  /** How long one statement may run, ms. Default 5000: a stuck database becomes a denial, not a hang. */
  queryTimeoutMs?: number;
  /** Fail with `store_not_found` when the schema is missing instead of creating it (CLI read commands). */
  mustExist?: boolean;
  /** Run migrations when opening (default true; `quadguard migrate` is the explicit way). */
  migrate?: boolean;
  /** The audit key file every replica shares (else `QUADGUARD_AUDIT_KEY` / `QUADGUARD_AUDIT_KEY_FILE`; audit-key.ts). */
  auditKeyFile?: string;
  /** Or the environment variable that holds it (the config's `audit_key.env`). */
  auditKeyEnv?: string;
  /** This process's signed head file (else `QUADGUARD_AUDIT_HEAD_FILE`, else under `$QUADGUARD_HOME`). */
  auditHeadFile?: string;
  /**
   * Answer a decision once its row is in this replica's journal and commit rows in groups (pg/journal.ts; the
   * config's `audit_journal`, off by default on PostgreSQL: docs/audit.md). Default false.
   */
  auditJournal?: boolean;
  /** The folder of this replica's journals (else `QUADGUARD_AUDIT_JOURNAL_DIR`, else under `$QUADGUARD_HOME`). */
  auditJournalDir?: string;
}

type Defaults = Required<Omit<PgOptions, 'auditKeyFile' | 'auditKeyEnv' | 'auditHeadFile' | 'auditJournal' | 'auditJournalDir'>>;
const DEFAULTS: Defaults = { poolSize: 10, connectTimeoutMs: 3000, queryTimeoutMs: 5000, mustExist: false, migrate: true };

/** After a statement timed out waiting, how long transactions use the short lock timeout, ms. */
const LOCK_TROUBLE_MS = 2000;
const SHORT_LOCK_TIMEOUT_MS = 200;

/** How much later than the server's statement_timeout the client gives up on a statement, ms. */
const CLIENT_TIMEOUT_MARGIN_MS = 1000;

/** BIGINT columns (ids, milliseconds) fit a double: read them as numbers, as SQLite does. */
const INT8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export type Query = (text: string, params?: unknown[]) => Promise<pg.QueryResult>;

/**
 * A pool of connections to one database, with the engine's two habits: every failure is a `StoreError` that
 * names the database (never the password), and losing and regaining the database is logged once each way.
 */
export class PgDb {
  readonly pool: pg.Pool;
  readonly location: string;
  private healthy = true;
  /**
   * Counts the losses. A statement sent before the last loss and answered after it (a commit already on its way
   * when the server stopped) says nothing of the database now: only one sent after the loss is a recovery.
   */
  private losses = 0;
  /** When a statement last timed out waiting (lock_timeout, statement_timeout); 0: not lately. */
  private lockTroubleAt = 0;
  private readonly log: Logger;

  constructor(url: string, logger: Logger, opts: Defaults) {
    this.location = redactUrl(url);
    this.log = logger;
    this.pool = new pg.Pool({
      connectionString: url,
      max: opts.poolSize,
      connectionTimeoutMillis: opts.connectTimeoutMs,
      // The server stops a statement (and a wait for a lock) itself, so the connection is free for the ROLLBACK
      // at once; the client-side timeout is only the backstop for a server that answers nothing at all.
      statement_timeout: opts.queryTimeoutMs,
      lock_timeout: opts.queryTimeoutMs,
      idle_in_transaction_session_timeout: opts.queryTimeoutMs * 2,
      query_timeout: opts.queryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
      idleTimeoutMillis: 30_000,
      types,
      application_name: 'quadguard',
    });
    // An idle connection that dies (server restart) is an event, not a crash of the proxy.
    this.pool.on('error', (err) => this.lost(err));
    // And so is one that dies as it is handed out: one read from the server can hold both the ReadyForQuery that
    // hands a new connection to `inTransaction` and the server's cut, emitted before that caller listens (the pool
    // stops listening as it hands the connection out). Every connection listens for its whole life.
    this.pool.on('connect', (client) => client.on('error', (err) => this.lost(err)));
  }

  /** One statement on any connection. */
  query: Query = async (text, params) => {
    const sent = this.losses;
    try {
      const r = await this.pool.query(text, params as unknown[]);
      this.ok(sent);
      return r;
    } catch (err) {
      throw this.fail(err);
    }
  };

  /**
   * Runs `fn` in one transaction on one connection (BEGIN … COMMIT; ROLLBACK on any throw). `begin` is sent with
   * BEGIN in the same round trip (e.g. the lock of the chain head).
   */
  async tx<R>(fn: (q: Query, first: pg.QueryResult | undefined) => Promise<R>, begin?: string): Promise<R> {
    return this.inTransaction(async (client) => {
      const q: Query = async (text, params) => client.query(text, params as unknown[]);
      let first: pg.QueryResult | undefined;
      const open = this.begin();
      if (begin) {
        const r = (await client.query(`${open.sql}; ${begin}`)) as unknown as pg.QueryResult[];
        first = r[open.results];
      } else {
        await client.query(open.sql);
      }
      const out = await fn(q, first);
      await client.query('COMMIT');
      return out;
    });
  }

  /**
   * A write in two round trips: `BEGIN; <begin>` (e.g. lock the chain head), then the statement `write` builds
   * from its result sent together with COMMIT. `write` returns SQL with its values inlined as literals (see
   * `literal`): the simple-query protocol that allows two statements in one message takes no parameters. `begin`
   * may be several statements: `write` gets the first one's result, and all of them in order.
   */
  async lockedWrite<R>(begin: string, write: (first: pg.QueryResult, all: pg.QueryResult[]) => { sql: string; value: R }): Promise<R> {
    return this.inTransaction(async (client) => {
      const open = this.begin();
      const r = (await client.query(`${open.sql}; ${begin}`)) as unknown as pg.QueryResult[];
      const { sql, value } = write(r[open.results]!, r.slice(open.results));
      await client.query(`${sql}; COMMIT`);
      return value;
    });
  }

  /**
   * How a transaction starts. After a wait for a lock timed out moments ago (a table locked by someone else), the
   * next transactions give up on the lock quickly: the steps of one interaction (its state, then its audit row)
   * would otherwise each wait the whole bound in turn. `results`: how many results come before the caller's own.
   */
  private begin(): { sql: string; results: number } {
    if (Date.now() - this.lockTroubleAt > LOCK_TROUBLE_MS) return { sql: 'BEGIN', results: 1 };
    return { sql: `BEGIN; SET LOCAL lock_timeout = ${SHORT_LOCK_TIMEOUT_MS}`, results: 2 };
  }

  /**
   * One connection for `run`, which opens and commits its own transaction: a throw rolls it back (a connection whose
   * ROLLBACK fails is dropped, not reused), store errors pass as they are, anything else becomes a store error.
   */
  private async inTransaction<R>(run: (client: pg.PoolClient) => Promise<R>): Promise<R> {
    const sent = this.losses;
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw this.fail(err);
    }
    let broken = false;
    // A connection cut while checked out between two statements (the server stopped, the backend terminated)
    // emits 'error' on the client, which the pool listens for only while it is idle: unheard, it would end the
    // process. The next statement fails and says so; the connection is not reused.
    const onError = (err: Error) => {
      broken = true;
      this.lost(err);
    };
    client.on('error', onError);
    try {
      const out = await run(client);
      this.ok(sent);
      this.lockTroubleAt = 0;
      return out;
    } catch (err) {
      // A statement the client gave up on may still run on this connection: a ROLLBACK would queue behind it.
      // Drop the connection instead (the server rolls the transaction back when it goes).
      if (/Query read timeout/i.test((err as Error).message)) broken = true;
      else {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
      }
      if (err instanceof StoreError) throw err;
      throw this.fail(err);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** Applies the migrations the database has not run, each in a transaction, one process at a time. */
  async migrate(opts: { mustExist: boolean }): Promise<{ from: number; to: number }> {
    return this.tx(async (q) => {
      // Two replicas starting together: the second waits here, then finds nothing to do.
      await q('SELECT pg_advisory_xact_lock(hashtext($1))', ['quadguard:migrate']);
      const exists = await q("SELECT to_regclass('quadguard_schema') IS NOT NULL AS present");
      if (!exists.rows[0].present) {
        if (opts.mustExist) throw new StoreError('store_not_found', `no QuadGuard store in ${this.location} (run \`quadguard migrate --store URL\`, or start the proxy once)`);
        await q('CREATE TABLE quadguard_schema (version INTEGER NOT NULL, applied_at BIGINT NOT NULL, name TEXT NOT NULL)');
      }
      const v = await q('SELECT coalesce(max(version), 0) AS v FROM quadguard_schema');
      const from = Number(v.rows[0].v);
      if (from > MIGRATIONS.length) {
        throw new StoreError('store_version_unsupported', `store ${this.location} has schema version ${from}, newer than this QuadGuard understands (${MIGRATIONS.length}); upgrade QuadGuard`);
      }
      for (let i = from; i < MIGRATIONS.length; i++) {
        await q(MIGRATIONS[i]!.postgres);
        await q('INSERT INTO quadguard_schema (version, applied_at, name) VALUES ($1, $2, $3)', [i + 1, Date.now(), MIGRATIONS[i]!.name]);
      }
      return { from, to: MIGRATIONS.length };
    });
  }

  /** Follows new audit rows on a connection of its own (LISTEN/NOTIFY, notify.ts), with the pool's settings. */
  watch(h: AuditWatchHandlers): AuditWatcher {
    return watchAudit({ ...this.pool.options }, this.log, h);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** A statement sent when `losses` was `sent` was answered. */
  private ok(sent: number): void {
    if (this.healthy || sent !== this.losses) return;
    this.healthy = true;
    this.log.warn({ store: this.location }, 'the PostgreSQL store is reachable again; deciding normally');
  }

  private lost(err: unknown): void {
    if (!this.healthy) return;
    this.healthy = false;
    this.losses++;
    this.log.error(
      { store: this.location, err: (err as Error).message },
      'lost the PostgreSQL store: every interaction is denied (fail closed) until it is reachable again',
    );
  }

  /** A database error as a StoreError; a lost connection is logged once. */
  private fail(err: unknown): StoreError {
    if (err instanceof StoreError) return err;
    const e = err as Error & { code?: string };
    const connection = /^(08|57P)|^E(CONN|HOST|NET|PIPE|TIMEDOUT)/.test(e.code ?? '') || /ECONNREFUSED|ECONNRESET|timeout|terminat|Connection/i.test(e.message);
    if (connection) this.lost(err);
    if (e.code === '55P03' || e.code === '57014') this.lockTroubleAt = Date.now();
    const what = connection ? 'cannot reach' : 'error from';
    const wrapped = new StoreError(connection ? 'store_unavailable' : 'store_write_failed', `${what} the PostgreSQL store ${this.location}: ${e.message}`, { cause: err });
    reportStoreFault({ engine: 'postgres', op: 'query', reason: faultReason(wrapped) ?? 'error', err: wrapped });
    return wrapped;
  }
}

export function pgDefaults(opts: PgOptions): Defaults & PgOptions {
  return { ...DEFAULTS, ...opts };
}

/** A value as an SQL literal (strings escaped by pg's escapeLiteral; only finite numbers). */
export function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new StoreError('store_invalid_entry', `not a finite number: ${v}`);
    return String(v);
  }
  if (typeof v === 'string') return pg.escapeLiteral(v);
  throw new StoreError('store_invalid_entry', `cannot store a ${typeof v} as a column value`);
}

/** `text` with `$1…$n` replaced by the literals of `params` (one pass over the template, never over values). */
export function inline(text: string, params: unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => literal(params[Number(n) - 1]));
}
