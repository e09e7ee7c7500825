import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Logger } from '../core/log.js';
import type { AuditRow } from './audit-schema.js';
import type { GuardStore } from './engine.js';

/**
 * Retention as an operator's setting (the config's `audit_retention`): a running proxy drops the audit rows older
 * than `days` itself, as `quadguard audit prune --older-than` does from cron, keeping the rest verifiable from the
 * MACed retention anchor (docs/audit.md). It runs in the background: the first run a few seconds after start, then
 * every `every_minutes`; each run drops the rows due in transactions of at most `batch` rows, yielding to the
 * event loop between them, so decisions keep being answered. Several processes on one store may all run it: each
 * batch re-reads the anchor inside the store's write lock (SQLite) or the chain head's lock (PostgreSQL), so a row
 * is dropped, and exported, once.
 */
export const AuditRetentionSchema = z.strictObject({
  /** Drop rows written more than this many days ago (fractions allowed: 0.5 is twelve hours). */
  days: z.number().positive().max(36_500),
  /**
   * Write the rows dropped first, as NDJSON (the `audit export` format), to `audit-pruned-<UTC date>.ndjson` in this
   * folder (appended, never overwritten; relative to the config). Nothing is dropped when the write fails.
   */
  export_dir: z.string().min(1).optional(),
  /** How often the proxy looks for rows to drop. */
  every_minutes: z.number().positive().max(10_080).default(60),
  /** Rows per transaction: the longest the store's write lock (and, on SQLite, the event loop) is held by one batch. */
  batch: z.number().int().positive().max(100_000).default(2000),
});
export type AuditRetention = z.output<typeof AuditRetentionSchema>;

/** When the first run starts after the proxy did (ms): not inside its start-up. */
const FIRST_RUN_MS = 2000;

/** The background retention of one store; `stop` waits for a batch in flight. */
export interface RetentionRunner {
  /** One run now: drops every row due, in batches; resolves with how many were dropped. */
  run(): Promise<number>;
  stop(): Promise<void>;
}

export function startAuditRetention(store: GuardStore, setting: AuditRetention, logger: Logger, now: () => number = Date.now): RetentionRunner {
  let stopped = false;
  let running: Promise<number> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const runOnce = async (): Promise<number> => {
    const before = now() - setting.days * 86_400_000;
    let total = 0;
    for (;;) {
      if (stopped) break;
      const { dropped, anchor } = await withExport(setting.export_dir, now(), (exportTo) => store.audit.prune(before, exportTo, setting.batch));
      total += dropped;
      if (dropped < setting.batch) {
        if (total > 0) logger.info({ mod: 'audit', dropped: total, from: anchor?.id }, `audit retention: dropped ${total} rows written before ${new Date(before).toISOString()}; the kept chain verifies from row ${anchor?.id}`);
        break;
      }
      // Other sessions are answered between batches.
      await new Promise((r) => setImmediate(r));
    }
    return total;
  };

  const run = (): Promise<number> => {
    running ??= runOnce().finally(() => {
      running = undefined;
    });
    return running;
  };

  const tick = (delay: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      run()
        .catch((err: unknown) => logger.warn({ mod: 'audit', err: (err as Error).message }, 'audit retention failed: nothing was dropped by the failed batch; tried again at the next run'))
        .finally(() => tick(setting.every_minutes * 60_000));
    }, delay);
    timer.unref();
  };
  tick(FIRST_RUN_MS);

  return {
    run,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}

/** Runs `prune` with an exporter appending to the day's file in `dir` (opened only when a row is written), or none. */
async function withExport<T>(dir: string | undefined, at: number, prune: (exportTo?: (row: AuditRow) => void) => Promise<T>): Promise<T> {
  if (dir === undefined) return prune();
  let fd: number | undefined;
  try {
    return await prune((row) => {
      if (fd === undefined) {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        fd = openSync(join(dir, `audit-pruned-${new Date(at).toISOString().slice(0, 10)}.ndjson`), 'a', 0o600);
      }
      writeSync(fd, `${JSON.stringify(row)}\n`);
    });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
