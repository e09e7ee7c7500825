import { StoreError } from '../core/errors.js';

/**
 * A store failure worth an operator's attention (a lock held too long, a full disk, a lost database), reported by
 * both engines from every call and every background write, so the proxy can count it (`/metrics`) and say it is
 * not ready (`/readyz`) without the store knowing either.
 */
export interface StoreFault {
  /** `file`: the signed head file beside either engine. */
  engine: 'sqlite' | 'postgres' | 'file';
  /** What failed, a bounded name: `audit.append`, `state.flushBurst`, `audit.head`, … */
  op: string;
  /** A short bounded reason: `busy`, `full`, `readonly`, `unavailable`, `timeout`, `error`. */
  reason: string;
  err: unknown;
}

const listeners = new Set<(f: StoreFault) => void>();

/** Calls `fn` with every store fault of this process; returns the function that stops it. */
export function onStoreFault(fn: (f: StoreFault) => void): () => void {
  listeners.add(fn);
  return () => void listeners.delete(fn);
}

export function reportStoreFault(fault: StoreFault): void {
  for (const l of listeners) {
    try {
      l(fault);
    } catch {
      // a listener's failure is not the store's
    }
  }
}

/** The SQLite or driver error under a StoreError (its cause chain). */
function rootOf(err: unknown): { code?: string; message?: string } {
  let e = err as { code?: string; message?: string; cause?: unknown } | undefined;
  for (let i = 0; i < 5 && e instanceof StoreError && e.cause !== undefined; i++) e = e.cause as typeof e;
  return e ?? {};
}

/** Whether a SQLite error means another connection holds the lock (worth waiting for, off the event loop). */
export function isSqliteBusy(err: unknown): boolean {
  return /^SQLITE_(BUSY|LOCKED)/.test(rootOf(err).code ?? '');
}

/**
 * The bounded reason of a failed store call, or undefined when it is no fault (a bad input, an unknown agent, an
 * approval already decided: the caller's mistake, not the store's health).
 */
export function faultReason(err: unknown): string | undefined {
  if (err instanceof StoreError && !/^store_(write_failed|unavailable|open_failed|timeout)$/.test(err.code)) return undefined;
  const root = rootOf(err);
  const code = root.code ?? '';
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) return 'busy';
  if (/^SQLITE_FULL/.test(code) || code === 'ENOSPC' || code === '53100') return 'full';
  if (/^SQLITE_(READONLY|PERM)/.test(code) || code === 'EROFS' || code === '25006') return 'readonly';
  if (code === '57014' || code === '55P03' || /timeout/i.test(root.message ?? '')) return 'timeout';
  if (err instanceof StoreError && err.code === 'store_unavailable') return 'unavailable';
  return 'error';
}
