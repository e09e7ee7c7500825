import Database from 'better-sqlite3';

/**
 * The one way QuadGuard opens a better-sqlite3 database. Every Database and Statement object it makes stays
 * referenced until the process ends, and pragmas go through kept statements too (better-sqlite3's own `pragma()`
 * makes a throw-away Statement per call).
 *
 * Why: with better-sqlite3 12 on Node 24, a Database or Statement object that the garbage collector destroys in a
 * collection V8 runs as a background task (no JavaScript context entered) aborts the process: its destructor
 * (node::ObjectWrap's) asks for the current context's Environment, gets none, and fails "Assertion failed: (env) !=
 * nullptr" (exit 134; `quadguard eval` and `policy explain` hit it: each opens an in-memory store, and the
 * pragmas that set it up leave garbage Statements behind). Objects that never become garbage are only destroyed
 * when the process (or worker) ends, with its Environment still there. A closed database keeps only the small
 * wrappers: closing finalizes the SQLite statements and frees their memory. (better-sqlite3 13 fixes this, but
 * needs Node ≥ 22; QuadGuard supports Node 20 too.)
 */
const kept: object[] = [];

/** Opens `file` (or `:memory:`) with better-sqlite3; see the module comment for why every object is kept. */
export function openDatabase(file: string, options?: Database.Options): Database.Database {
  const db = new Database(file, options);
  kept.push(db);
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const stmt = prepare(source);
    kept.push(stmt);
    return stmt;
  }) as typeof db.prepare;
  return db;
}

/** A pragma through a kept statement: its rows (or the first value with `simple`); none for a pragma that sets. */
export function pragma(db: Database.Database, source: string, options: { simple?: boolean } = {}): unknown {
  const stmt = db.prepare(`PRAGMA ${source}`);
  if (!stmt.reader) {
    stmt.run();
    return options.simple ? undefined : [];
  }
  return options.simple ? stmt.pluck().get() : stmt.all();
}
