import { mkdirSync, existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { StoreError } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/log.js';
import { ApprovalStore } from './approvals.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { AuditLog } from './audit.js';
import { AuditJournal, journalDir, orphanJournals } from './audit-journal.js';
import { faultReason, reportStoreFault } from './faults.js';
import { isPostgresUrl, redactUrl } from './location.js';
import { auditKeyPaths, ephemeralAuditKey, loadAuditKey, type AuditKey } from './audit-key.js';
import { rmSync } from 'node:fs';
import type { ApprovalApi, AuditApi, GuardStore, PinApi, StateApi } from './engine.js';
import { SqliteFlowStore, type FlowStore } from './flow.js';
import { MIGRATIONS } from './migrations.js';
import { PinStore } from './pins.js';
import { openDatabase, pragma } from './sqlite.js';
import { SqliteCalls } from './sqlite-calls.js';
import { StateStore } from './state.js';

/** Options of `openStore`; every default is here. */
export interface StoreOptions {
  /** Fail with `store_not_found` instead of creating a missing file (CLI read commands). Default false. */
  mustExist?: boolean;
  /**
   * `NORMAL` (default): with WAL, every committed row survives a process crash; the last commits may be lost
   * on power loss. `FULL` also survives power loss, at about 4× the cost of a single append.
   */
  synchronous?: 'NORMAL' | 'FULL';
  /** How long a writer waits for another process's lock, ms, in all. Default 5000. */
  busyTimeoutMs?: number;
  /**
   * How long one try of a locked write blocks the event loop (SQLite's own busy timeout), ms; the async calls of
   * `GuardStore` (sqlite-calls.ts) sleep between tries until `busyTimeoutMs`. Default: `busyTimeoutMs` (a CLI
   * command waits in one go); the proxy uses 20, so one session's wait for a lock never freezes the others.
   */
  lockSliceMs?: number;
  /**
   * The audit key file (audit-key.ts). Default: `QUADGUARD_AUDIT_KEY_FILE`, else `<store>.key` beside the database;
   * created (0600) on first open unless `mustExist`.
   */
  auditKeyFile?: string;
  /**
   * Checkpoint the write-ahead log from a worker thread instead of on commit (checkpointer.ts): for the long-running
   * proxy, so no decision waits for a checkpoint. Default false (CLI commands and tests open a store briefly).
   */
  backgroundCheckpoint?: boolean;
  /**
   * The data-flow key a store that has none yet takes (32 bytes; default random). Only for reproducible runs:
   * `quadguard eval` gives every case's fresh memory store the same key, so which fingerprints winnowing keeps, and
   * so every data-flow decision, is the same on every run. A store that already has a key keeps it.
   */
  flowKey?: Buffer;
  /**
   * Journal the decisions' audit rows (audit-journal.ts) and commit them in groups: for the proxy, which answers
   * once a row is in its journal. Default false (every append commits before it returns).
   */
  auditJournal?: boolean;
}

type Defaults = Required<Omit<StoreOptions, 'auditKeyFile' | 'lockSliceMs' | 'flowKey' | 'auditJournal'>> & { auditJournal?: boolean } & { lockSliceMs?: number };
const DEFAULTS: Defaults = { mustExist: false, synchronous: 'NORMAL', busyTimeoutMs: 5000, backgroundCheckpoint: false };

/** Commits between SQLite's own checkpoints while the background checkpointer runs: only a bound, should it lag. */
const FALLBACK_AUTOCHECKPOINT = 10_000;

/**
 * The SQLite store: audit log, guard state, tool pins, approvals and data flow over one connection, behind the
 * engines' one interface. Each area is its class (audit.ts, state.ts, pins.ts, approvals.ts, flow.ts), whose async
 * methods run their statements at once; `SqliteCalls` (sqlite-calls.ts) wraps them all in its lock wait.
 */
export interface Store extends GuardStore {
  readonly engine: 'sqlite';
  /** Absolute path of the database file, or `:memory:`. */
  readonly path: string;
  /**
   * Checkpoints the WAL (TRUNCATE) and closes the connection, once every `openStore` of this path has closed. Done
   * by the time it returns: the Promise is only the interface's.
   */
  close(): Promise<void>;
}

/** One connection per process and file: a second `openStore` of the same path shares it (reference-counted). */
const open = new Map<string, { store: Store; refs: number }>();

/**
 * Opens (creating folder and file unless `mustExist`) the store at `path`, applies pragmas and migrations,
 * and prepares every statement once.
 *
 * @example
 * const store = openStore('.quadguard/state.db', log);
 * const { auditId } = await store.audit.append(auditEntryFor(interaction, decision));
 * await store.close();
 */
export function openStore(path: string, logger: Logger = silentLogger(), options: StoreOptions = {}): Store {
  if (isPostgresUrl(path)) {
    throw new StoreError('store_engine_unsupported', `this command works on a SQLite store file only, not on ${redactUrl(path)}; the PostgreSQL store is opened with openGuardStore`);
  }
  const opts = { ...DEFAULTS, ...options };
  const memory = path === ':memory:';
  const file = memory ? path : resolve(path);
  const shared = memory ? undefined : open.get(file);
  if (shared) {
    shared.refs++;
    return shared.store;
  }
  const log = logger.child({ mod: 'store' });
  const db = connect(file, memory, opts);
  let closed = false;
  const audit = new AuditLog(db, memory ? ephemeralAuditKey() : openAuditKey(db, file, opts));
  const state = new StateStore(db, audit, log);
  if (!memory) openJournal(audit, file, opts, log);
  let checkpointer: Checkpointer | undefined;
  if (!memory && opts.backgroundCheckpoint) {
    pragma(db, `wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT}`);
    checkpointer = startCheckpointer(file, log, () => {
      if (!closed) pragma(db, 'wal_autocheckpoint = 1000');
    });
  }
  const calls = new SqliteCalls(file, opts.busyTimeoutMs);
  const store: Store = {
    engine: 'sqlite',
    path: file,
    location: file,
    shared: false,
    audit: calls.wrap<AuditApi>(audit, 'audit'),
    state: calls.wrap<StateApi>(state, 'state'),
    pins: calls.wrap<PinApi>(new PinStore(db, audit), 'pins'),
    approvals: calls.wrap<ApprovalApi>(new ApprovalStore(db, audit), 'approvals'),
    flow: calls.wrap<FlowStore>(new SqliteFlowStore(db, opts.flowKey), 'flow'),
    async close() {
      const entry = open.get(file);
      if (entry && entry.store === store && --entry.refs > 0) return;
      if (closed) return;
      closed = true;
      open.delete(file);
      try {
        state.flushBurst();
      } catch (err) {
        log.warn({ err }, 'writing the pending burst counts at close failed');
      }
      try {
        audit.closeJournal();
      } catch (err) {
        log.warn({ err }, 'committing the audit journal at close failed: its rows are replayed when the store is next opened');
      }
      try {
        audit.flushHead();
      } catch (err) {
        log.warn({ err }, 'writing the signed audit head at close failed');
      }
      // Awaited: a worker still starting opens the file after this close and would leave a new -wal beside it.
      if (checkpointer) await checkpointer.stop();
      try {
        if (!memory) pragma(db, 'wal_checkpoint(TRUNCATE)');
      } catch (err) {
        log.warn({ err }, 'WAL checkpoint at close failed');
      }
      db.close();
    },
  };
  if (!memory) open.set(file, { store, refs: 1 });
  log.debug({ file }, 'store opened');
  return store;
}

/**
 * Replays the audit journals of processes that ended without committing them (a `kill -9`, a power cut), then,
 * for the proxy, journals this process's decisions. A journal that cannot be replayed (the store is locked) stays
 * for the next open; the open goes on.
 */
function openJournal(audit: AuditLog, file: string, opts: Defaults, log: Logger): void {
  const dir = journalDir(file);
  audit.journalFolder = dir;
  for (const orphan of orphanJournals(dir)) {
    try {
      const done = audit.replay(orphan.rows);
      rmSync(orphan.file, { force: true });
      const refused = done.forged + orphan.bad;
      const msg = `replayed the audit journal ${orphan.file} of a process that ended without committing it`;
      if (refused > 0) log.warn({ journal: orphan.file, refused }, `${msg}: ${refused} line(s) refused (malformed, or a hash or MAC that does not match: the file was edited)`);
      else log.info({ journal: orphan.file, rows: orphan.rows.length }, msg);
    } catch (err) {
      log.warn({ err, journal: orphan.file }, 'replaying an audit journal failed; it is tried again at the next open');
    }
  }
  if (!opts.auditJournal) return;
  audit.attachJournal(new AuditJournal(dir, opts.synchronous === 'FULL'), {
    onFault: (err, pending) => {
      reportStoreFault({ engine: 'sqlite', op: 'audit.commit', reason: faultReason(err) ?? 'error', err });
      log.warn({ err, pending }, 'committing the audit journal failed; its rows are kept in the journal and tried again');
    },
  });
}

/**
 * The audit key of a file store. A key created now for a log that already holds keyed rows would make every
 * later row unverifiable against the old ones: refuse (fail closed) and say where the key was expected.
 */
function openAuditKey(db: Database.Database, file: string, opts: StoreOptions): AuditKey | undefined {
  let key: AuditKey | undefined;
  try {
    key = loadAuditKey(auditKeyPaths(file, opts.auditKeyFile), !opts.mustExist);
  } catch (err) {
    db.close();
    throw err;
  }
  if (key?.created && db.prepare('SELECT 1 FROM audit WHERE mac IS NOT NULL LIMIT 1').get() !== undefined) {
    rmSync(key.file, { force: true });
    db.close();
    throw new StoreError(
      'store_audit_key_missing',
      `the audit key ${key.file} is missing, but the audit log of ${file} was written with one: restore the key (or set QUADGUARD_AUDIT_KEY_FILE to it)`,
    );
  }
  return key;
}

function connect(file: string, memory: boolean, opts: Defaults): Database.Database {
  if (!memory) {
    if (opts.mustExist && !existsSync(file)) {
      throw new StoreError('store_not_found', `no QuadGuard store at ${file} (pass --store FILE or --config FILE)`);
    }
    try {
      mkdirSync(dirname(file), { recursive: true });
    } catch (err) {
      throw new StoreError('store_open_failed', `cannot create the folder of ${file}: ${(err as Error).message}`, { cause: err });
    }
  }
  let db: Database.Database | undefined;
  try {
    db = openDatabase(file);
    pragma(db, 'journal_mode = WAL');
    pragma(db, `synchronous = ${opts.synchronous}`);
    pragma(db, `busy_timeout = ${Math.max(0, Math.floor(Math.min(opts.lockSliceMs ?? opts.busyTimeoutMs, opts.busyTimeoutMs)))}`);
    pragma(db, 'foreign_keys = ON');
    migrate(db, file);
    return db;
  } catch (err) {
    db?.close();
    if (err instanceof StoreError) throw err;
    const msg = (err as Error).message;
    const hint = /not a database|file is encrypted/i.test(msg) ? ' (this file is not a SQLite database; check --store)' : '';
    throw new StoreError('store_open_failed', `cannot open store ${file}: ${msg}${hint}`, { cause: err });
  }
}

/** Runs the migrations this file has not seen yet, each in its own transaction. */
function migrate(db: Database.Database, file: string): void {
  const version = pragma(db, 'user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new StoreError(
      'store_version_unsupported',
      `store ${file} has schema version ${version}, newer than this QuadGuard understands (${MIGRATIONS.length}); upgrade QuadGuard`,
    );
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!.sqlite);
      pragma(db, `user_version = ${v + 1}`);
    }).immediate();
  }
}
