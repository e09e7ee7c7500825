import { silentLogger, type Logger } from '../../core/log.js';
import type { GuardStore } from '../engine.js';
import { PgApprovalStore } from './approvals.js';
import { PgAuditLog } from './audit.js';
import { PgDb, pgDefaults, type PgOptions } from './connection.js';
import { PgFlowStore } from './flow.js';
import { PgPinStore } from './pins.js';
import { PgStateStore } from './state.js';

export { redactUrl, type PgOptions } from './connection.js';

/**
 * Opens the PostgreSQL store at `url` (`postgres://user:pass@host:port/db`): a connection pool, the migrations
 * not yet run (unless `migrate: false`), and the four parts. Throws `store_unavailable` when the database
 * cannot be reached at start-up: a proxy does not start on a store it cannot write.
 */
export async function openPgStore(url: string, logger: Logger = silentLogger(), options: PgOptions = {}): Promise<GuardStore & { db: PgDb }> {
  const opts = pgDefaults(options);
  const log = logger.child({ mod: 'store' });
  const db = new PgDb(url, log, opts);
  try {
    if (opts.migrate || opts.mustExist) await db.migrate({ mustExist: opts.mustExist });
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  const audit = new PgAuditLog(db);
  log.debug({ store: db.location }, 'store opened');
  let closed = false;
  return {
    engine: 'postgres',
    location: db.location,
    shared: true,
    db,
    audit,
    state: new PgStateStore(db, audit),
    pins: new PgPinStore(db, audit),
    approvals: new PgApprovalStore(db, audit),
    flow: new PgFlowStore(db),
    async close() {
      if (closed) return;
      closed = true;
      await db.close();
    },
  };
}
