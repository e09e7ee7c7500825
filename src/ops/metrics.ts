import client from 'prom-client';
import { CounterFamily, HistogramFamily } from './metric-cells.js';
import type { Decision, Guard, Interaction } from '../core/types.js';

/**
 * The proxy's Prometheus metrics (docs/operations.md), on one registry of its own. Every label is bounded: kinds
 * from the kinds table, decisions, rule ids from the book (capped), server keys from the config, outcomes and
 * reasons from fixed lists. No argument value, tool name or agent name is ever a label.
 *
 * Small on purpose, so another front end (the A2A proxy) can count through the same registry:
 * `metrics.decision(interaction.kind, decision, seconds)`, `metrics.registry.metrics()`.
 */
export interface ServiceMetrics {
  readonly registry: client.Registry;
  /** One guard decision and the time the guard took for it. */
  decision(kind: string, decision: Pick<Decision, 'decision' | 'rules'>, seconds?: number): void;
  /** One request forwarded to a downstream server. */
  forwarded(server: string, method: string, outcome: string, seconds: number): void;
  /** One audit append (ok or failed) and its time. */
  auditAppend(ok: boolean, seconds: number): void;
  /** One store fault (`store/faults.ts`). */
  storeFault(engine: string, op: string, reason: string): void;
  /** One refused bearer token. */
  authRefused(reason: string): void;
  /** One reload of config and book. */
  reload(outcome: 'ok' | 'failed'): void;
  /** Values read at scrape time (sessions, servers, holds, quarantined agents); each may be async. */
  observe(sources: GaugeSources): void;
  /** The Prometheus text exposition. */
  text(): Promise<string>;
}

export interface GaugeSources {
  sessions?: () => number;
  /** Server key → 1 for its current state, one of `DOWNSTREAM_STATES`. */
  servers?: () => Array<{ server: string; state: string }>;
  holdsWaiting?: () => Promise<number>;
  quarantined?: () => Promise<number>;
  /** 1 while the store answers, else 0. */
  storeUp?: () => Promise<boolean>;
}

export const DOWNSTREAM_STATES = ['connecting', 'ready', 'down', 'closed'] as const;

/** Distinct rule ids counted by name; more (a book with thousands of rules) count as `other`. */
const RULE_LABELS_MAX = 500;

/** Latency buckets in seconds: the guard's fast path is well under a millisecond. */
const GUARD_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const FORWARD_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createServiceMetrics(opts: { defaultMetrics?: boolean } = {}): ServiceMetrics {
  const registry = new client.Registry();
  if (opts.defaultMetrics !== false) client.collectDefaultMetrics({ register: registry, prefix: 'quadguard_process_' });
  const registers = [registry];
  // Counted on every request: cells resolved once per label set (metric-cells.ts); the rare ones below use prom-client.
  const decisions = new CounterFamily('quadguard_decisions_total', 'Guard decisions by interaction kind, decision and first rule (none: no rule)', ['kind', 'decision', 'rule'], registry);
  const guardTime = new HistogramFamily('quadguard_guard_duration_seconds', 'Time the guard took per interaction', ['kind'], GUARD_BUCKETS, registry);
  const forwarded = new CounterFamily('quadguard_forwarded_requests_total', 'Requests forwarded to downstream servers, by server, method and outcome', ['server', 'method', 'outcome'], registry);
  const forwardTime = new HistogramFamily('quadguard_forwarded_request_duration_seconds', 'Time a downstream server took to answer a forwarded request', ['server'], FORWARD_BUCKETS, registry);
  const appends = new CounterFamily('quadguard_audit_appends_total', 'Audit rows appended (result: ok or failed)', ['result'], registry);
  const appendTime = new HistogramFamily('quadguard_audit_append_duration_seconds', 'Time one audit append took', [], GUARD_BUCKETS, registry);
  const append = { ok: appends.at('ok'), failed: appends.at('failed'), time: appendTime.at() };
  const storeErrors = new client.Counter({ name: 'quadguard_store_errors_total', help: 'Store faults (locks held too long, full disk, lost database), by engine, operation and reason', labelNames: ['engine', 'op', 'reason'], registers });
  const authRefused = new client.Counter({ name: 'quadguard_auth_refused_total', help: 'HTTP requests refused for their bearer token, by reason', labelNames: ['reason'], registers });
  const reloads = new client.Counter({ name: 'quadguard_reloads_total', help: 'Reloads of config and policy book (outcome: ok, or failed and the old one kept)', labelNames: ['outcome'], registers });
  let sources: GaugeSources = {};
  new client.Gauge({ name: 'quadguard_open_sessions', help: 'Open MCP sessions on the HTTP front end', registers, collect() { this.set(sources.sessions?.() ?? 0); } });
  new client.Gauge({
    name: 'quadguard_downstream_up',
    help: 'Downstream server state: 1 for the state it is in',
    labelNames: ['server', 'state'],
    registers,
    collect() {
      this.reset();
      for (const { server, state } of sources.servers?.() ?? []) for (const s of DOWNSTREAM_STATES) this.set({ server, state: s }, s === state ? 1 : 0);
    },
  });
  const asyncGauge = (name: string, help: string, read: () => (() => Promise<number>) | undefined) =>
    new client.Gauge({
      name,
      help,
      registers,
      async collect() {
        const f = read();
        if (!f) return;
        try {
          this.set(await f());
        } catch {
          // The store is down: the value is unknown, its fault is counted by the store
        }
      },
    });
  asyncGauge('quadguard_holds_waiting', 'Held interactions waiting for a person\'s approval', () => sources.holdsWaiting);
  asyncGauge('quadguard_quarantined_identities', 'Agents in quarantine', () => sources.quarantined);
  asyncGauge('quadguard_store_up', '1 while the store answers, else 0', () => (sources.storeUp ? async () => ((await sources.storeUp!()) ? 1 : 0) : undefined));

  const rules = new Set<string>();
  const ruleLabel = (rule: string | undefined) => {
    if (rule === undefined) return 'none';
    if (rules.has(rule)) return rule;
    if (rules.size >= RULE_LABELS_MAX) return 'other';
    rules.add(rule);
    return rule;
  };
  return {
    registry,
    decision(kind, d, seconds) {
      decisions.at(kind, d.decision, ruleLabel(d.rules[0])).inc();
      if (seconds !== undefined) guardTime.at(kind).observe(seconds);
    },
    forwarded(server, method, outcome, seconds) {
      forwarded.at(server, method, outcome).inc();
      forwardTime.at(server).observe(seconds);
    },
    auditAppend(ok, seconds) {
      (ok ? append.ok : append.failed).inc();
      append.time.observe(seconds);
    },
    storeFault(engine, op, reason) {
      storeErrors.inc({ engine, op, reason });
    },
    authRefused(reason) {
      authRefused.inc({ reason });
    },
    reload(outcome) {
      reloads.inc({ outcome });
    },
    observe(s) {
      sources = { ...sources, ...s };
    },
    text: () => registry.metrics(),
  };
}

/** The guard, counting each decision and its time (kind from the kinds table; rule ids from the book). */
export function meteredGuard(guard: Guard, metrics: ServiceMetrics): Guard {
  return {
    async check(interaction: Interaction, signal?: AbortSignal) {
      const started = performance.now();
      const d = await guard.check(interaction, signal);
      metrics.decision(interaction.kind, d, (performance.now() - started) / 1000);
      return d;
    },
  };
}
