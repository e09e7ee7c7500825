import client from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterFamily, HistogramFamily } from '../../src/ops/metric-cells.js';
import { createServiceMetrics } from '../../src/ops/metrics.js';

const BOUNDS = [0.001, 0.01, 0.1, 1];

describe('metric cells', () => {
  it('expose the same Prometheus text as prom-client for the same counts and observations', async () => {
    const ours = new client.Registry();
    const theirs = new client.Registry();
    const c = new CounterFamily('t_total', 'help c', ['kind', 'rule'], ours);
    const h = new HistogramFamily('t_seconds', 'help h', ['kind'], BOUNDS, ours);
    const h0 = new HistogramFamily('t0_seconds', 'help h0', [], BOUNDS, ours);
    const pc = new client.Counter({ name: 't_total', help: 'help c', labelNames: ['kind', 'rule'], registers: [theirs] });
    const ph = new client.Histogram({ name: 't_seconds', help: 'help h', labelNames: ['kind'], buckets: BOUNDS, registers: [theirs] });
    const ph0 = new client.Histogram({ name: 't0_seconds', help: 'help h0', buckets: BOUNDS, registers: [theirs] });
    const counts: Array<[string, string, number]> = [['tool_call', 'none', 3], ['message', 'no-"quote"\\', 2], ['tool_call', 'r1', 1]];
    for (const [kind, rule, n] of counts) for (let k = 0; k < n; k++) {
      c.at(kind, rule).inc();
      pc.inc({ kind, rule });
    }
    for (const [kind, v] of [['a', 0.0005], ['a', 0.001], ['b', 0.05], ['a', 7], ['b', 1]] as const) {
      h.at(kind).observe(v);
      ph.observe({ kind }, v);
      h0.at().observe(v);
      ph0.observe(v);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('t_seconds_bucket{le="0.001",kind="a"} 2');
  });

  it('keep counting in the cells already handed out after a reset', async () => {
    const r = new client.Registry();
    const c = new CounterFamily('r_total', 'h', ['x'], r);
    const cell = c.at('y');
    cell.inc(5);
    r.resetMetrics();
    cell.inc();
    expect(await r.metrics()).toContain('r_total{x="y"} 1');
  });

  it('count a decision, its time, a forward and an append through the service metrics', async () => {
    const m = createServiceMetrics({ defaultMetrics: false });
    m.decision('tool_call', { decision: 'deny', rules: ['no-delete'] }, 0.0003);
    m.decision('tool_call', { decision: 'deny', rules: ['no-delete'] }, 0.0003);
    m.forwarded('ws', 'tools/call', 'ok', 0.02);
    m.auditAppend(true, 0.0001);
    const text = await m.text();
    expect(text).toContain('quadguard_decisions_total{kind="tool_call",decision="deny",rule="no-delete"} 2');
    expect(text).toContain('quadguard_guard_duration_seconds_bucket{le="0.0005",kind="tool_call"} 2');
    expect(text).toContain('quadguard_forwarded_requests_total{server="ws",method="tools/call",outcome="ok"} 1');
    expect(text).toContain('quadguard_forwarded_request_duration_seconds_count{server="ws"} 1');
    expect(text).toContain('quadguard_audit_appends_total{result="ok"} 1');
    expect(text).toContain('quadguard_audit_appends_total{result="failed"} 0');
    expect(text).toContain('quadguard_audit_append_duration_seconds_sum 0.0001');
  });
});
