import { LlmError } from '../core/errors.js';

/**
 * A counting semaphore bounding the requests in flight. Waiting is abortable (the guard's signal, or the
 * acquisition timeout), so a saturated endpoint never makes a caller hang.
 */
export class Semaphore {
  readonly #limit: number;
  #active = 0;
  readonly #waiters: Array<() => void> = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`semaphore limit must be a positive integer, got ${limit}`);
    this.#limit = limit;
  }

  /** Slots in use right now. */
  get active(): number {
    return this.#active;
  }

  /**
   * Takes a slot, waiting for one if all are in use. Resolves to a release function (idempotent). Rejects with
   * `LlmError` `llm_timeout` after `timeoutMs`, or the signal's reason when `signal` aborts first.
   */
  acquire(signal: AbortSignal | undefined, timeoutMs: number): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#active < this.#limit) {
      this.#active++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        cleanup();
        this.#active++;
        resolve(this.#releaser());
      };
      const fail = (err: unknown): void => {
        cleanup();
        const i = this.#waiters.indexOf(grant);
        if (i >= 0) this.#waiters.splice(i, 1);
        reject(err);
      };
      const onAbort = (): void => fail(signal?.reason);
      const timer = setTimeout(
        () => fail(new LlmError('llm_timeout', `no free model slot within ${timeoutMs} ms (all ${this.#limit} in use)`)),
        timeoutMs,
      );
      const cleanup = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(grant);
    });
  }

  #releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#active--;
      const next = this.#waiters.shift();
      if (next) next();
    };
  }
}
