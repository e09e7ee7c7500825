import type { EvalMetrics, GroupMetrics } from './metrics.js';

/** Rules listed in the console table; the JSON and HTML reports carry all of them. */
const MAX_RULE_ROWS = 15;

/** `0.925` → `92.5%`; `null` → `—` (undefined for this data, e.g. no expected denials). */
export function pct(value: number | null): string {
  return value === null ? '—' : `${(value * 100).toFixed(1)}%`;
}

/** Milliseconds with a precision that suits their size (seconds from 10 s); `null` → `—`. */
export function ms(value: number | null): string {
  if (value === null) return '—';
  if (value >= 10_000) return `${(value / 1000).toFixed(1)} s`;
  return value >= 100 ? `${value.toFixed(0)} ms` : value >= 1 ? `${value.toFixed(1)} ms` : `${value.toFixed(3)} ms`;
}

/**
 * The plain-text summary printed to stdout: one row per suite plus `overall`, the rules that fired most,
 * latency per step and model usage. Columns are padded for a monospace terminal; no colours, so it pipes cleanly.
 */
export function renderTable(metrics: EvalMetrics): string {
  const header = ['suite', 'n', 'acc', 'prec', 'recall', 'fpr', 'f1', 'tp', 'fp', 'tn', 'fn', 'tp held', 'fp held', 'errors'];
  const row = (name: string, g: GroupMetrics) => [
    name,
    String(g.n),
    pct(g.accuracy),
    pct(g.precision),
    pct(g.recall),
    pct(g.fpr),
    pct(g.f1),
    String(g.tp),
    String(g.fp),
    String(g.tn),
    String(g.fn),
    String(g.tpHeld),
    String(g.fpHeld),
    String(g.errors),
  ];
  const rows = Object.entries(metrics.suites).map(([name, g]) => row(name, g));
  const out = [table([header, ...rows, row('overall', metrics.overall)], rows.length + 1)];
  // Where each suite's cases were stopped (the step's kind) and how (held for approval or denied).
  const where = Object.entries(metrics.suites).map(([name, g]) => [
    name,
    Object.entries(g.stoppedAt)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || '—',
  ]);
  out.push(table([['suite', 'stopped at (step kind, held or denied: cases)'], ...where]));

  const rules = Object.entries(metrics.rules)
    .sort((a, b) => b[1].fired - a[1].fired || a[0].localeCompare(b[0]))
    .slice(0, MAX_RULE_ROWS);
  if (rules.length > 0) {
    const ruleHeader = ['rule', 'fired', 'tp', 'fp', 'prec', 'flagged', 'expected', 'recall'];
    const ruleRows = rules.map(([id, r]) => [
      id,
      String(r.fired),
      String(r.truePositives),
      String(r.falsePositives),
      pct(r.precision),
      String(r.flagged),
      String(r.expected),
      pct(r.recall),
    ]);
    const more = Object.keys(metrics.rules).length - rules.length;
    out.push(table([ruleHeader, ...ruleRows]) + (more > 0 ? `\n(${more} more rules in the JSON/HTML report)` : ''));
  }

  const l = metrics.latency;
  out.push(`time per step: median ${ms(l.medianMs)}, p99 ${ms(l.p99Ms)}, max ${ms(l.maxMs)} over ${l.steps} steps`);
  const m = metrics.model;
  out.push(
    m.stepsReporting === 0
      ? 'model: no usage reported (deterministic guard or no model configured)'
      : `model: ${fmt(m.callsPerStep)} calls, ${fmt(m.promptTokensPerStep)} prompt + ${fmt(m.completionTokensPerStep)} completion tokens per step (${m.calls} calls in all)`,
  );
  return `${out.join('\n\n')}\n`;
}

function fmt(v: number | null): string {
  return v === null ? '—' : v.toFixed(2);
}

/** Left-aligned first column, right-aligned numbers; a rule line above row `ruleBefore` (the total). */
function table(rows: string[][], ruleBefore?: number): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  const sep = widths.map((w) => '-'.repeat(w)).join('  ');
  const lines = rows.map(line);
  lines.splice(1, 0, sep);
  if (ruleBefore !== undefined) lines.splice(ruleBefore + 1, 0, sep);
  return lines.join('\n');
}
