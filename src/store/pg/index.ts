import { join } from 'node:path';
import { sha256Hex } from '../../core/canonical.js';
import { silentLogger, type Logger } from '../../core/log.js';
import { AuditJournal } from '../audit-journal.js';
import { sharedAuditKey } from '../audit-key.js';
import { faultReason, reportStoreFault } from '../faults.js';
import { quadguardHome } from '../store-path.js';
import type { GuardStore } from '../engine.js';
import { PgApprovalStore } from './approvals.js';
import { PgAuditLog } from './audit.js';
import { PgDb, pgDefaults, type PgOptions } from './connection.js';
import { PgFlowStore } from './flow.js';
import { pgJournalDir, replayOrphans } from './journal.js';
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
  let audit: PgAuditLog;
  try {
    const key = sharedAuditKey({
      ...(opts.auditKeyFile !== undefined ? { keyFile: opts.auditKeyFile } : {}),
      ...(opts.auditKeyEnv !== undefined ? { keyEnv: opts.auditKeyEnv } : {}),
      ...(opts.auditHeadFile !== undefined ? { headFile: opts.auditHeadFile } : {}),
      defaultHeadFile: join(quadguardHome(), `audit-${sha256Hex(db.location).slice(0, 8)}.head`),
    });
    audit = new PgAuditLog(db, key);
    // Read-only commands (verify) check whatever they find; a writer refuses a log it cannot extend honestly.
    if (!opts.mustExist && opts.migrate) await audit.open();
    if (!key && !opts.mustExist) {
      log.warn({ store: db.location }, 'no audit key (QUADGUARD_AUDIT_KEY_FILE or QUADGUARD_AUDIT_KEY): audit rows are hash-chained but not MACed, so a rewrite with recomputed hashes would pass `audit verify`');
    }
    // What a replica killed on this disk journaled and did not commit, whoever opens the store here next (the
    // restarted proxy, `audit verify`); then, for the proxy, its own journal.
    const dir = opts.auditJournalDir ?? pgJournalDir(db.location);
    await replayOrphans(dir, (rows) => audit.replay(rows), log, opts.auditJournal === true);
    if (opts.auditJournal) {
      audit.attachJournal(new AuditJournal(dir, false), (err, pending) => {
        reportStoreFault({ engine: 'postgres', op: 'audit.commit', reason: faultReason(err) ?? 'error', err });
        log.warn({ err, pending }, 'committing the audit journal failed; its rows are kept in the journal and tried again');
      });
    }
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
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
      try {
        await audit.closeJournal();
      } catch (err) {
        log.warn({ err }, 'committing the audit journal at close failed: its rows are replayed when this replica next opens the store');
      }
      audit.flushHead();
      await db.close();
    },
  };
}
