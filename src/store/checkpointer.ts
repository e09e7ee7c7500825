import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../core/log.js';

/**
 * Checkpoints a SQLite store's write-ahead log from a worker thread with its own connection, so that a long-running
 * proxy never pays for a checkpoint inside a decision: with SQLite's default auto-checkpoint every thousandth commit
 * copies the log back into the database (a 5–10 ms stall on this kind of machine, and ~25% of the mean cost of
 * a commit). A PASSIVE checkpoint never blocks the proxy's writes. If the worker fails, the connection goes back to
 * SQLite's own auto-checkpoint.
 */
export interface Checkpointer {
  stop(): Promise<void>;
}

/** The worker, as a CommonJS script (`eval`), so it runs the same from the sources and from `dist/`. */
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { fileMustExist: true });
db.exec('PRAGMA busy_timeout = 0');
// One statement for the worker's life: a throw-away one per tick (db.pragma) would be garbage, and on Node 24 a
// better-sqlite3 12 Statement collected by a background GC aborts the process (see src/store/sqlite.ts).
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const timer = setInterval(() => {
  try { checkpoint.run(); } catch { /* busy: the next tick tries again */ }
}, workerData.everyMs);
parentPort.once('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

/** How often the worker checkpoints, ms. */
export const CHECKPOINT_EVERY_MS = 250;

/**
 * Starts checkpointing `file` in the background. `fallback` is called (once) when the worker stops on its own, to
 * turn SQLite's auto-checkpoint back on.
 */
export function startCheckpointer(file: string, logger: Logger, fallback: () => void, everyMs = CHECKPOINT_EVERY_MS): Checkpointer {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  // No execArgv: the worker needs none of the proxy's flags (a loader hook, --cpu-prof writing a second profile).
  const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { file, module, everyMs } });
  worker.unref();
  let stopping = false;
  const exited = new Promise<void>((done) => worker.once('exit', () => done()));
  worker.once('error', (err) => {
    logger.warn({ err }, 'background WAL checkpointing stopped; SQLite checkpoints on commit again');
  });
  void exited.then(() => {
    if (!stopping) fallback();
  });
  return {
    async stop() {
      if (stopping) return exited;
      stopping = true;
      // Held while it stops, so a process with nothing else to do does not exit in the middle of a store's close.
      worker.ref();
      worker.postMessage('stop');
      // A worker stuck in a checkpoint is not worth waiting for at exit.
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((done) => (timer = setTimeout(done, 2000)));
      await Promise.race([exited, timeout]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}
