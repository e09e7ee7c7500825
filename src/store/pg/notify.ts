import pg from 'pg';
import { errorMessage } from '../../core/errors.js';
import type { Logger } from '../../core/log.js';
import type { AuditWatchHandlers, AuditWatcher } from '../engine.js';

/** The channel every audit append notifies (the INSERT of pg/audit.ts), with the new row's id as payload. */
export const AUDIT_CHANNEL = 'quadguard_audit';
/** The `application_name` of the listening connection (operators see it in pg_stat_activity). */
export const LISTEN_APPLICATION = 'quadguard-listen';
/** Waits between reconnection attempts after the connection was lost, ms (doubling up to the last). */
const RECONNECT_MS = [250, 500, 1000, 2000, 5000];

/**
 * Follows new audit rows of every process on the store with PostgreSQL LISTEN/NOTIFY, on one dedicated connection
 * (not the pool's: a LISTEN belongs to its connection and would be lost when a pooled client is reused). When the
 * connection is lost (a backend terminated, the database restarted) `onState(false)` says so and it reconnects with
 * a growing wait until it listens again (`onState(true)`); the caller polls meanwhile. Rows committed while no one
 * listened are not notified again: the caller catches up by reading after its cursor.
 */
export function watchAudit(options: pg.ClientConfig, logger: Logger, h: AuditWatchHandlers): AuditWatcher {
  const log = logger.child({ mod: 'store', listen: AUDIT_CHANNEL });
  let client: pg.Client | undefined;
  let closed = false;
  let attempt = 0;
  let timer: NodeJS.Timeout | undefined;
  let listening = false;

  const lost = (why: string) => {
    const c = client;
    client = undefined;
    c?.removeAllListeners();
    c?.on('error', () => {});
    void c?.end().catch(() => {});
    if (closed) return;
    if (listening) {
      listening = false;
      h.onState(false, why);
    }
    const wait = RECONNECT_MS[Math.min(attempt++, RECONNECT_MS.length - 1)]!;
    timer = setTimeout(() => void connect(), wait);
    timer.unref();
  };

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ ...options, application_name: LISTEN_APPLICATION });
    client = c;
    c.on('error', (err) => lost(errorMessage(err)));
    c.on('end', () => client === c && lost('the connection ended'));
    c.on('notification', (n) => {
      if (n.channel !== AUDIT_CHANNEL) return;
      const id = Number(n.payload);
      h.onRow(Number.isSafeInteger(id) ? id : undefined);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${AUDIT_CHANNEL}`);
    } catch (err) {
      if (client === c) {
        if (attempt === 0) log.warn({ err: errorMessage(err) }, 'cannot LISTEN for new audit rows; retrying');
        lost(errorMessage(err));
      }
      return;
    }
    if (closed || client !== c) {
      void c.end().catch(() => {});
      return;
    }
    attempt = 0;
    listening = true;
    h.onState(true);
  };

  void connect();
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = undefined;
      c?.removeAllListeners();
      c?.on('error', () => {});
      void c?.end().catch(() => {});
    },
  };
}
