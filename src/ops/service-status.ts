import type { ServiceMetrics } from './metrics.js';

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
 * What the live view shows of the service (`GET /ui/api/ops`): whether the store answers, each server's state,
 * the last reload, whether it drains, and a few counters read from the metrics registry. The browser's copy of this
 * shape is `ServiceStatus` in src/ui/client/types.ts.
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

export interface ServiceSources {
  store?: () => Promise<{ ok: boolean; reason?: string }>;
  servers: () => Array<{ server: string; state: string; required: boolean }>;
  reload: () => ReloadOutcome | undefined;
  draining: () => boolean;
  metrics?: ServiceMetrics;
}

/** The counters shown, in order: metric name, the label that splits it (if any), and how it is called. */
const SHOWN: Array<{ metric: string; split?: { label: string; value: string }; name: string }> = [
  { metric: 'quadguard_decisions_total', split: { label: 'decision', value: 'allow' }, name: 'decisions allowed' },
  { metric: 'quadguard_decisions_total', split: { label: 'decision', value: 'deny' }, name: 'decisions denied' },
  { metric: 'quadguard_audit_appends_total', split: { label: 'result', value: 'failed' }, name: 'audit appends failed' },
  { metric: 'quadguard_store_errors_total', name: 'store errors' },
  { metric: 'quadguard_auth_refused_total', name: 'tokens refused' },
  { metric: 'quadguard_reloads_total', split: { label: 'outcome', value: 'failed' }, name: 'reloads failed' },
];

/** The service's state as the live view reads it (counters only: no gauge is collected, no store count run). */
export function serviceStatus(src: ServiceSources): () => Promise<ServiceStatus> {
  return async () => {
    const counters: ServiceStatus['counters'] = [];
    if (src.metrics) {
      for (const s of SHOWN) {
        const m = src.metrics.registry.getSingleMetric(s.metric);
        if (!m) continue;
        const { values } = await m.get();
        const value = values.filter((v) => !s.split || v.labels[s.split.label] === s.split.value).reduce((n, v) => n + v.value, 0);
        counters.push({ name: s.name, value });
      }
    }
    return {
      store: src.store ? await src.store() : null,
      servers: src.servers(),
      reload: src.reload() ?? null,
      draining: src.draining(),
      counters,
      now: Date.now(),
    };
  };
}
