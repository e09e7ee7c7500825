import { setTimeout as sleep } from 'node:timers/promises';
import { StoreError } from '../core/errors.js';
import { faultReason, isSqliteBusy, reportStoreFault } from './faults.js';

/** The longest pause between two tries of a locked write, ms. */
const MAX_PAUSE_MS = 50;
/** After a call gave up on a lock, how long other calls try it once only, ms (renewed by each that fails). */
const LOCKED_OUT_MS = 2000;

/**
 * How the async calls of one SQLite connection wait for a lock held by another process and report faults: every
 * method of the connection's store classes (db.ts) goes through `wrap`, once, when the store is opened.
 *
 * A lock held by another process (SQLITE_BUSY) is waited for off the event loop: each try blocks at most the
 * connection's short busy timeout (`StoreOptions.lockSliceMs`), then the call sleeps asynchronously and tries
 * again, for at most `lockWaitMs` in all, so other sessions keep being answered while one waits. A failure is
 * reported as a fault (counted, `/readyz`) and names the store.
 */
export class SqliteCalls {
  /** When a call last gave up on a lock (0: none lately). */
  private lockedOutAt = 0;

  constructor(
    readonly path: string,
    readonly lockWaitMs: number,
  ) {}

  /**
   * `target` with each of its async methods run through the lock wait and fault report above, under the op name
   * `area.method`. Each method's first try runs at once, synchronously (the statements of an unlocked store:
   * no thread hop, no queue); a call that returns no Promise (a sync helper, `iterate`'s async generator) is handed
   * back as it is.
   * The methods are called on `target` itself, so a class's own calls between its methods are never wrapped twice.
   */
  wrap<I extends object>(target: I, area: string): I {
    const out: Record<string, unknown> = {};
    for (const name of methodNames(target)) {
      const fn = (target as Record<string, (...args: unknown[]) => unknown>)[name]!;
      const op = `${area}.${name}`;
      out[name] = (...args: unknown[]) => {
        const first = fn.apply(target, args);
        return first instanceof Promise ? this.settle(op, first, () => fn.apply(target, args) as Promise<unknown>) : first;
      };
    }
    return out as I;
  }

  private async settle<R>(op: string, first: Promise<R>, again: () => Promise<R>): Promise<R> {
    const started = Date.now();
    // While the lock is known to be held past the wait (a call gave up on it moments ago), the others do not queue
    // up behind it for the whole wait again: one interaction's reads and writes would add up to several waits.
    const budget = started - this.lockedOutAt < LOCKED_OUT_MS ? 0 : this.lockWaitMs;
    let attempt = first;
    for (let pause = 2; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
      try {
        const out = await attempt;
        if (budget === 0) this.lockedOutAt = 0;
        return out;
      } catch (err) {
        if (isSqliteBusy(err) && Date.now() - started + pause < budget) {
          await sleep(pause);
          attempt = again();
          continue;
        }
        if (isSqliteBusy(err)) this.lockedOutAt = Date.now();
        const reason = faultReason(err);
        if (reason === undefined) throw err;
        reportStoreFault({ engine: 'sqlite', op, reason, err });
        const waited = reason === 'busy' ? ` (another process holds its write lock; waited ${Date.now() - started} ms, at most ${this.lockWaitMs})` : '';
        const code = err instanceof StoreError ? err.code : 'store_write_failed';
        throw new StoreError(code, `the SQLite store ${this.path} failed${waited}: ${(err as Error).message}`, { cause: err });
      }
    }
  }
}

/** The methods of a class instance (its prototype chain up to Object), without the constructor. */
function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (let p = Object.getPrototypeOf(target) as object | null; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null) {
    for (const name of Object.getOwnPropertyNames(p)) {
      if (name !== 'constructor' && typeof Object.getOwnPropertyDescriptor(p, name)?.value === 'function') names.add(name);
    }
  }
  return [...names];
}
