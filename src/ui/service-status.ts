/** The shapes of the service state the live view shows; the service layer (src/ops/service-status.ts) fills them. */

/** How the last reload ended (`quadguard reload`, SIGHUP). */
export interface ReloadOutcome {
  /** When it ended, ms since the epoch. */
  at: number;
  ok: boolean;
  /** The book hash now in use (after a good reload). */
  hash?: string;
  /** Why it failed (the running book was kept). */
  why?: string;
}

/**
 * What the live view shows of the service (`GET /ui/api/ops`, built by src/ops/service-status.ts): whether the
 * store answers, each server's state, the last reload, whether it drains, and a few counters read from the metrics
 * registry. The browser's copy of this shape is `ServiceStatus` in src/ui/client/types.ts.
 */
export interface ServiceStatus {
  store: { ok: boolean; reason?: string } | null;
  servers: Array<{ server: string; state: string; required: boolean }>;
  reload: ReloadOutcome | null;
  draining: boolean;
  /** Totals since start, by name (labels summed, except decisions by allow/deny). */
  counters: Array<{ name: string; value: number }>;
  now: number;
}
