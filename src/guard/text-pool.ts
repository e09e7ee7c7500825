import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { silentLogger, type Logger } from '../core/log.js';
import type { BookPayload, PoolAnswer, PoolJob, PoolMessage } from './pool-worker.js';

/**
 * The worker pool for long texts (docs/architecture.md). Reading a 10 MB result (every detector, the data-flow
 * fingerprints of a private read) takes the better part of a second; on the event loop every other session of the
 * proxy would wait for it. The guard sends that work here: worker threads run the very functions the loop runs
 * (pool-worker.ts) and hand back their results, so the decision is the same, only where the work runs differs.
 *
 * - Sized to the machine (`guard.pool.workers`, `auto`: available parallelism − 1, at least 1), started on demand,
 *   each stopped after a while idle.
 * - A bounded queue (`guard.pool.queue`): a job that finds every worker busy and the queue full is refused with
 *   `PoolBusyError` (the guard answers that it is busy, with a retry-after), never read on the loop instead.
 * - A worker that stops while reading (a crash, out of memory) is replaced; its job fails (`PoolWorkerError`) and the
 *   guard denies that interaction (fail closed).
 * - A worker that cannot start (its module missing from a broken install, a book it cannot compile) makes `run`
 *   answer undefined: the caller reads on the loop as before and says so in the log (a start is tried again a
 *   minute later).
 */

/** Refused: every worker busy and the queue full. */
export class PoolBusyError extends Error {
  readonly code = 'guard_busy';
  constructor(
    /** A fair wait before trying again: the queue ahead at the recent pace of a job. */
    readonly retryAfterMs: number,
    readonly workers: number,
    readonly queue: number,
  ) {
    super(`the guard is busy: its ${workers} worker thread${workers === 1 ? ' is' : 's are'} reading long texts and ${queue} more wait (guard.pool.queue)`);
    this.name = 'PoolBusyError';
  }
}

/** The worker reading this job stopped (crashed, ran out of memory) or answered an error. */
export class PoolWorkerError extends Error {
  constructor(message: string, readonly code?: string) {
    super(message);
    this.name = 'PoolWorkerError';
  }
}

export interface TextPoolOptions {
  /** Worker threads at most; 0: no pool (`run` answers undefined). */
  workers: number;
  /** Jobs waiting beyond the running ones. */
  queue: number;
  /** The worker module (default: pool-worker beside this module); tests give one of their own. */
  url?: string;
  logger?: Logger;
  /** An idle worker stops after this long (ms). */
  idleMs?: number;
  /** The nice value each worker gives its own thread at start (Linux; `guard.pool.nice`); 0 or none: the process's. */
  nice?: number;
}

/** Worker threads for `auto`: the machine's available parallelism less the event loop's own, at least one. */
export function poolSize(workers: 'auto' | number): number {
  return workers === 'auto' ? Math.max(1, availableParallelism() - 1) : workers;
}

/** Whether a pipeline reads ahead in the spare thread (`guard.pool.read_ahead`; `auto`: with 4 cores or more). */
export function readsAhead(setting: 'auto' | boolean, cores = availableParallelism()): boolean {
  return setting === 'auto' ? cores >= 4 : setting;
}

/**
 * The worker module for code at `here` (this module's URL): `pool-worker` beside it in the sources and in tsc's
 * `dist/src/guard/`, and in the CLI bundle (scripts/bundle.ts), where this code sits in a chunk of `dist/cli/` beside
 * the bundle's `pool-worker.js` entry.
 */
export function poolWorkerUrl(here: string = import.meta.url): string {
  return new URL(here.endsWith('.ts') ? './pool-worker.ts' : './pool-worker.js', here).href;
}

/**
 * The worker, a CommonJS script (`eval`) that imports the worker module: as it is from `dist/`, from the sources
 * (tests, benches) through tsx's `tsImport`. It says `ready` once loaded, or why it could not load.
 *
 * First it lowers its own thread's priority to `workerData.nice`: on Linux a thread has a nice value of its own, and
 * `setpriority` of the thread's id (the last part of /proc/thread-self) needs no privilege to lower it. The event
 * loop's thread stays at the process's, so it gets a busy core first. Elsewhere, or where that fails, the worker runs
 * at the process's priority and says why with `ready`.
 */
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
let niceError;
if (workerData.nice > 0) {
  try {
    if (process.platform !== 'linux') throw new Error('no per-thread priority on ' + process.platform);
    const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
    require('node:os').setPriority(tid, workerData.nice);
  } catch (err) { niceError = String((err && err.message) || err); }
}
const load = workerData.tsx ? import(workerData.tsx).then((t) => t.tsImport(workerData.url, workerData.url)) : import(workerData.url);
load.then((m) => {
  const handle = m.poolHandler();
  parentPort.on('message', ({ id, message }) => {
    let answer;
    try { answer = { id, ok: true, result: handle(message) }; }
    catch (err) { answer = { id, ok: false, error: String((err && err.message) || err), code: err && err.code }; }
    parentPort.postMessage(answer);
  });
  parentPort.postMessage({ ready: true, niceError });
}, (err) => parentPort.postMessage({ loadError: String((err && err.stack) || err) }));
`;

/** After a worker could not start, the next start is tried after this long (ms); meanwhile jobs run on the loop. */
const RESTART_MS = 60_000;
/** An idle worker stops after this long (ms) unless told otherwise; the next job starts another. */
const IDLE_MS = 30_000;
/**
 * Compiled books a worker keeps: the current one and the one before it (jobs of a check that began before a reload
 * still use it). A `serve` that reloads often would otherwise grow by one compiled book per reload in each worker.
 */
export const BOOKS_PER_WORKER = 2;

interface Pending {
  id: number;
  message: PoolMessage;
  book: BookPayload | undefined;
  resolve(answer: PoolAnswer | undefined): void;
  reject(err: Error): void;
  started?: number | undefined;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** Stopped on purpose (idle, close): its exit is no crash. */
  stopping: boolean;
  job?: Pending | undefined;
  /** The books this worker holds, least recently used first. */
  books: Set<string>;
  idle?: NodeJS.Timeout | undefined;
}

export class TextPool {
  readonly workers: number;
  readonly queue: number;
  private readonly url: string;
  private readonly tsx: string | undefined;
  private readonly log: Logger;
  private readonly idleMs: number;
  private readonly slots: Slot[] = [];
  private readonly waiting: Pending[] = [];
  /** Jobs accepted and not answered (waiting and running). */
  private inFlight = 0;
  private seq = 0;
  /** When a worker last failed to start with none running: jobs go back to the loop until RESTART_MS later. */
  private failedAt: number | undefined;
  private closed = false;
  /** After a worker failed to start beside running ones, no other is started until then (no start loop). */
  private noStartUntil = 0;
  /** Recent time a job took (ms), for the busy answer's retry-after. */
  private pace = 500;
  private readonly nice: number;
  /** A worker said it could not lower its priority (logged once: the next ones would say the same). */
  private niceLogged = false;

  constructor(o: TextPoolOptions) {
    this.workers = o.workers;
    this.queue = o.queue;
    this.url = o.url ?? poolWorkerUrl();
    this.log = (o.logger ?? silentLogger()).child({ mod: 'pool' });
    this.idleMs = o.idleMs ?? IDLE_MS;
    this.nice = o.nice ?? 0;
    this.tsx = this.url.endsWith('.ts') ? tsxLoader() : undefined;
  }

  /** Workers running now (started, not stopped), for tests and the bench. */
  get running(): number {
    return this.slots.length;
  }

  /**
   * Runs `job` in a worker (sending `book` first to a worker that does not hold it yet). Answers undefined when the
   * pool cannot run it (no workers, none could start, a worker cannot compile the book): the caller reads on the
   * loop. Rejects with `PoolBusyError` when every worker is busy and the queue is full, unless `admitted` (a later
   * job of a check already let in, which must not be refused half way), and with `PoolWorkerError` when the
   * worker stopped while reading it.
   */
  run(job: PoolJob, book?: BookPayload, admitted = false): Promise<PoolAnswer | undefined> {
    if (this.closed || this.workers <= 0) return Promise.resolve(undefined);
    if (this.failedAt !== undefined) {
      if (Date.now() - this.failedAt < RESTART_MS) return Promise.resolve(undefined);
      this.failedAt = undefined;
    }
    if (!admitted && this.inFlight >= this.workers + this.queue) {
      const ahead = this.inFlight - this.workers + 1;
      const retryAfterMs = Math.min(60_000, Math.max(100, Math.ceil((this.pace * Math.ceil(ahead / this.workers)) / 10) * 10));
      return Promise.reject(new PoolBusyError(retryAfterMs, this.workers, this.queue));
    }
    this.inFlight++;
    return new Promise((resolve, reject) => {
      this.waiting.push({ id: ++this.seq, message: job, book, resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.waiting.splice(0)) p.resolve(undefined);
    await Promise.all(
      this.slots.splice(0).map((s) => {
        s.stopping = true;
        clearTimeout(s.idle);
        s.job?.reject(new PoolWorkerError('the worker pool was closed'));
        return s.worker.terminate();
      }),
    );
    this.inFlight = 0;
  }

  /** Gives waiting jobs to idle workers, and starts workers (up to the size) for those left. */
  private pump(): void {
    for (const slot of this.slots) {
      if (this.waiting.length === 0) break;
      if (slot.ready && !slot.job) this.assign(slot, this.waiting.shift()!);
    }
    if (Date.now() < this.noStartUntil) return;
    let starting = this.slots.filter((s) => !s.ready).length;
    while (this.waiting.length > starting && this.slots.length < this.workers) {
      this.spawn();
      starting++;
    }
  }

  private assign(slot: Slot, p: Pending): void {
    clearTimeout(slot.idle);
    slot.job = p;
    p.started = performance.now();
    if (p.book) this.holdBook(slot, p.book);
    try {
      slot.worker.postMessage({ id: p.id, message: p.message });
    } catch (err) {
      // Nothing a worker could read (a value that does not clone): that job fails, the worker stays.
      slot.job = undefined;
      this.inFlight--;
      p.reject(new PoolWorkerError(`the job could not be sent to a worker: ${(err as Error).message}`));
      this.pump();
    }
  }

  /**
   * Makes sure the worker holds `book`, the most recently used of its books. A worker keeps at most `BOOKS_PER_WORKER`:
   * past that it drops the one it used least recently (a reloaded book is no longer used). A worker runs one job at a
   * time and reads its messages in order, so no job it is running loses its book; a job given later with a dropped
   * book carries it (`Pending.book`) and sends it again.
   */
  private holdBook(slot: Slot, book: BookPayload): void {
    if (slot.books.delete(book.id)) {
      slot.books.add(book.id);
      return;
    }
    for (const old of slot.books) {
      if (slot.books.size < BOOKS_PER_WORKER) break;
      slot.books.delete(old);
      slot.worker.postMessage({ id: 0, message: { kind: 'drop', id: old } satisfies PoolMessage });
    }
    slot.books.add(book.id);
    slot.worker.postMessage({ id: 0, message: { kind: 'book', book } satisfies PoolMessage });
  }

  private spawn(): void {
    // No inherited flags: `--input-type=module` on the parent would make this script a module without `require`.
    const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { url: this.url, tsx: this.tsx, nice: this.nice } });
    worker.unref();
    const slot: Slot = { worker, ready: false, stopping: false, books: new Set() };
    this.slots.push(slot);
    worker.on('message', (m: { ready?: true; niceError?: string; loadError?: string; id?: number; ok?: boolean; result?: PoolAnswer; error?: string; code?: string }) => {
      if (m.ready) {
        slot.ready = true;
        if (m.niceError !== undefined && !this.niceLogged) {
          this.niceLogged = true;
          this.log.debug({ err: m.niceError, nice: this.nice }, 'the pool\'s workers run at the process\'s priority (guard.pool.nice not applied)');
        }
        this.failedAt = undefined;
        this.pump();
        if (!slot.job) this.armIdle(slot);
      } else if (m.loadError !== undefined) {
        slot.stopping = true;
        void worker.terminate();
        this.lost(slot, m.loadError);
      } else if (m.id !== 0 && slot.job !== undefined && slot.job.id === m.id) {
        const p = slot.job;
        slot.job = undefined;
        this.inFlight--;
        this.pace = 0.8 * this.pace + 0.2 * (performance.now() - (p.started ?? performance.now()));
        if (m.ok) p.resolve(m.result ?? null);
        else p.reject(new PoolWorkerError(m.error ?? 'the worker failed', m.code));
        this.pump();
        if (!slot.job) this.armIdle(slot);
      }
    });
    worker.once('error', (err) => this.lost(slot, err));
    worker.once('exit', (code) => this.lost(slot, `the worker exited with code ${code}`));
  }

  /** A worker is gone: on purpose (idle, close), before it was ready (a start failure), or while running (a crash). */
  private lost(slot: Slot, why: unknown): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    this.slots.splice(at, 1);
    clearTimeout(slot.idle);
    const job = slot.job;
    slot.job = undefined;
    if (job) {
      this.inFlight--;
      job.reject(new PoolWorkerError(`the worker thread reading this text stopped (${String(why).slice(0, 200)})`));
    }
    if (this.closed) return;
    if (slot.ready && !slot.stopping) {
      if (job) this.log.warn({ err: why }, 'a worker of the pool stopped while reading; that check was denied (fail closed) and the worker is replaced');
      else this.log.warn({ err: why }, 'an idle worker of the pool stopped; the next job starts another');
    } else if (!slot.ready && this.slots.some((s) => s.ready)) {
      // The running workers take the queue; a new one is tried again later.
      this.noStartUntil = Date.now() + RESTART_MS;
      this.log.warn({ err: why }, 'a worker of the pool could not start; the running ones take the queue');
    } else if (!slot.ready) {
      this.failedAt = Date.now();
      this.log.warn({ err: why }, 'the worker pool could not start: long texts are read on the event loop (the decision is the same, other sessions wait meanwhile); a start is tried again in a minute');
      for (const p of this.waiting.splice(0)) {
        this.inFlight--;
        p.resolve(undefined);
      }
      return;
    }
    this.pump();
  }

  private armIdle(slot: Slot): void {
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => {
      if (slot.job || this.closed) return;
      slot.stopping = true;
      const at = this.slots.indexOf(slot);
      if (at >= 0) this.slots.splice(at, 1);
      void slot.worker.terminate();
    }, this.idleMs);
    slot.idle.unref();
  }
}

/** tsx's loader API, to load the worker module from the sources (tests, benches); undefined when not installed. */
function tsxLoader(): string | undefined {
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs');
  } catch {
    return undefined;
  }
}

const shared = new Map<string, TextPool>();

/** The process's pool for these settings (one per distinct size, queue and nice value; normally one), started on first use. */
export function sharedPool(workers: 'auto' | number, queue: number, logger?: Logger, nice = 0): TextPool {
  const size = poolSize(workers);
  const id = `${size}/${queue}/${nice}`;
  let pool = shared.get(id);
  if (!pool) shared.set(id, (pool = new TextPool({ workers: size, queue, nice, ...(logger ? { logger } : {}) })));
  return pool;
}

/** Jobs waiting for the spare thread beyond the one it runs (three for a long private read: its row's payload columns, its digest, its hashes). */
const SPARE_QUEUE = 6;
const spares = new Map<number, TextPool>();

/**
 * The process's spare thread, beside the pool (started on first use, stopped when idle like the pool's workers): what
 * a long interaction's audit row and a long private read's data-flow hashes take from the text alone runs there
 * while a worker of the pool runs the same check's detectors, on the core the event loop leaves free while it waits
 * for them (long-texts.ts `auditAhead`, `readAhead`). It takes no other job, and what it cannot take (its queue
 * full) waits for the decision and the pool as before.
 */
export function spareThread(logger?: Logger, nice = 0): TextPool {
  let spare = spares.get(nice);
  if (!spare) spares.set(nice, (spare = new TextPool({ workers: 1, queue: SPARE_QUEUE, nice, ...(logger ? { logger } : {}) })));
  return spare;
}
