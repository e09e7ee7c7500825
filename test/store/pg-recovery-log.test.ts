/**
 * Losing and regaining the PostgreSQL store is logged once each way, and "reachable again" only for a statement sent
 * after the loss. A statement already on its way when the server stopped (a group commit) can be answered just after
 * the loss is noticed; that answer said "reachable again" and the next check logged the loss a second time
 * (test/store/outage.test.ts failed so, once, in a full run).
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { PgDb, pgDefaults } from '../../src/store/pg/connection.js';
import { usePostgres } from '../support/postgres.js';

const server = usePostgres();

describe('PgDb: the loss and the recovery of the store in the log', () => {
  it('takes an answer to a statement sent before the loss for no recovery, and one sent after it for one', async () => {
    let logs = '';
    const sink = new Writable({ write: (c: Buffer, _e, cb) => { logs += c.toString(); cb(); } });
    const db = new PgDb(await server.freshDatabase('recovery_log'), pino({ level: 'info' }, sink), pgDefaults({}));
    const count = (what: RegExp) => logs.match(new RegExp(what, 'g'))?.length ?? 0;
    try {
      await db.query('SELECT 1');
      const inFlight = db.query('SELECT pg_sleep(0.3)');
      // The loss noticed meanwhile, as an idle connection cut by a stopping server reports it.
      db.pool.emit('error', new Error('Connection terminated unexpectedly'));
      expect(count(/lost the PostgreSQL store/)).toBe(1);
      await inFlight;
      expect(count(/store is reachable again/)).toBe(0);
      await db.query('SELECT 1');
      expect(count(/store is reachable again/)).toBe(1);
      expect(count(/lost the PostgreSQL store/)).toBe(1);
    } finally {
      await db.close();
    }
  }, 60_000);
});
