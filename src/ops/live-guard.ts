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
 * its result alike). A request is known by its abort signal, which every check and record made for it passes (the
 * MCP SDK makes one per request; the A2A proxy one per call): the first check of a signal pins the newest
 * generation to it, for as long as the signal lives.
 *
 * Not an AsyncLocalStorage bound per HTTP request, as before: on Node 20 and 22 a live AsyncLocalStorage turns on
 * promise hooks for the whole process, a cost paid on every promise of every request (bench/README.md, "The HTTP
 * front end").
 */
export class LiveGuard<Extra = unknown> {
  private current: GuardGeneration<Extra>;
  private readonly pinned = new WeakMap<AbortSignal, GuardGeneration<Extra>>();

  constructor(first: GuardGeneration<Extra>) {
    this.current = first;
  }

  /** The newest generation (what a request that has not been checked yet will get). */
  get generation(): GuardGeneration<Extra> {
    return this.current;
  }

  /** The generation of the request `signal` belongs to (pinned to it now if this is its first check); without one, the newest. */
  generationOf(signal: AbortSignal | undefined): GuardGeneration<Extra> {
    if (signal === undefined) return this.current;
    let g = this.pinned.get(signal);
    if (g === undefined) {
      g = this.current;
      this.pinned.set(signal, g);
    }
    return g;
  }

  readonly guard: Guard = { check: (i, signal) => this.generationOf(signal).guard.check(i, signal) };
  readonly record: DecisionRecorder = (i, d, signal) => this.generationOf(signal).record(i, d, signal);

  swap(next: GuardGeneration<Extra>): void {
    this.current = next;
  }
}
