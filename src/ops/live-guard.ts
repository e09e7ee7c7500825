import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestHandler } from 'express';
import type { Guard } from '../core/types.js';
import type { DecisionRecorder } from '../proxy/context.js';

/** One loaded policy: the guard built from it and what the proxy asks of it. */
export interface GuardGeneration<Extra = unknown> {
  guard: Guard;
  record: DecisionRecorder;
  /** The book's hash, for logs and the reload's audit row. */
  policyHash: string;
  extra: Extra;
}

/**
 * The guard a reload can swap (docs/operations.md, "Reload"): new requests get the newest generation, while a
 * request that started before the swap keeps the one it started with to its end (its tool call and the check of
 * its result alike), because `pin` binds the generation to the request's async context.
 */
export class LiveGuard<Extra = unknown> {
  private current: GuardGeneration<Extra>;
  private readonly pinned = new AsyncLocalStorage<GuardGeneration<Extra>>();

  constructor(first: GuardGeneration<Extra>) {
    this.current = first;
  }

  /** The generation of the running request, else the newest. */
  get generation(): GuardGeneration<Extra> {
    return this.pinned.getStore() ?? this.current;
  }

  readonly guard: Guard = { check: (i, signal) => this.generation.guard.check(i, signal) };
  readonly record: DecisionRecorder = (i, d) => this.generation.record(i, d);

  /** Binds the newest generation to one HTTP request (after its body is read). */
  readonly pin: RequestHandler = (_req, _res, next) => this.pinned.run(this.current, next);

  /** Runs `fn` with the newest generation bound (a stdio message, a test). */
  run<R>(fn: () => R): R {
    return this.pinned.run(this.current, fn);
  }

  swap(next: GuardGeneration<Extra>): void {
    this.current = next;
  }
}
