import type { ReloadOutcome, ServiceStatus } from '../ui/service-status.js';
import type { ServiceMetrics } from './metrics.js';

export type { ReloadOutcome, ServiceStatus } from '../ui/service-status.js';

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
