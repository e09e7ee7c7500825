import { html, trusted, type SafeHtml } from './html.js';
import type { RuleMetrics } from './metrics.js';
import { ms, pct } from './report-table.js';

/**
 * Inline SVG charts for the HTML report: static markup, no scripts, no external fonts or images, so the figures
 * show in any browser, in a mail attachment, or with scripts disabled. Labels from data go through `html`.
 */

/** Colours shared with the page's CSS. */
export const COLORS = { tp: '#2f9e6e', fp: '#d9534f', flag: '#e0a526', bar: '#4c72b0', axis: '#8a94a6', text: '#1f2533' };

/** Rules drawn in the bar chart; the tables below and the JSON report carry all of them. */
const MAX_RULE_BARS = 30;

/** Length-capped label; the full text goes in a `<title>` tooltip. */
function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Horizontal stacked bars, one per rule: cases where it fired and the case was expected `deny` (true positives,
 * green) and expected `allow` (false positives, red), plus cases where it was only flagged (amber), all on one
 * scale. The right column repeats the numbers and, when cases named the rule in `expect.rules`, its recall.
 */
export function ruleBars(rules: Record<string, RuleMetrics>): SafeHtml {
  const entries = Object.entries(rules)
    .sort((a, b) => b[1].fired + b[1].flagged - (a[1].fired + a[1].flagged) || a[0].localeCompare(b[0]))
    .slice(0, MAX_RULE_BARS);
  if (entries.length === 0) return html`<p class="empty">No rule fired, was flagged or was expected.</p>`;
  const labelW = 230;
  const barW = 380;
  const rowH = 24;
  const width = labelW + barW + 230;
  const height = entries.length * rowH + 8;
  const max = Math.max(1, ...entries.map(([, r]) => r.fired + r.flagged));
  const scale = barW / max;
  const rows = entries.map(([id, r], i) => {
    const y = 4 + i * rowH;
    const tpW = r.truePositives * scale;
    const fpW = r.falsePositives * scale;
    const flW = r.flagged * scale;
    const recall = r.expected > 0 ? ` · recall ${pct(r.recall)} of ${r.expected}` : '';
    const note = r.fired + r.flagged === 0 ? `never fired${recall}` : `${r.truePositives} TP · ${r.falsePositives} FP${r.flagged ? ` · ${r.flagged} flagged` : ''}${recall}`;
    return html`<g class="rule-bar">
  <title>${id}: ${note}</title>
  <text x="${labelW - 8}" y="${y + 16}" text-anchor="end" class="lbl">${clip(id, 34)}</text>
  <rect x="${labelW}" y="${y + 3}" width="${barW}" height="${rowH - 8}" fill="#eef1f6"/>
  <rect x="${labelW}" y="${y + 3}" width="${tpW.toFixed(1)}" height="${rowH - 8}" fill="${COLORS.tp}"/>
  <rect x="${(labelW + tpW).toFixed(1)}" y="${y + 3}" width="${fpW.toFixed(1)}" height="${rowH - 8}" fill="${COLORS.fp}"/>
  <rect x="${(labelW + tpW + fpW).toFixed(1)}" y="${y + 3}" width="${flW.toFixed(1)}" height="${rowH - 8}" fill="${COLORS.flag}"/>
  <text x="${labelW + barW + 8}" y="${y + 16}" class="val">${note}</text>
</g>`;
  });
  return html`<svg class="chart" role="img" aria-label="cases per rule" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">${rows}</svg>`;
}

/** Bin edges: logarithmic when the times span more than two orders of magnitude, else linear. */
export function histogramBins(times: readonly number[], count = 24): { edges: number[]; counts: number[]; log: boolean } {
  const lo = times.reduce((a, b) => Math.min(a, b));
  const hi = times.reduce((a, b) => Math.max(a, b));
  const log = lo > 0 && hi / lo > 100;
  const span = hi - lo;
  if (span === 0) return { edges: [lo, hi], counts: [times.length], log: false };
  const toX = (v: number) => (log ? Math.log10(v) : v);
  const a = toX(lo);
  const b = toX(hi);
  const edges = Array.from({ length: count + 1 }, (_, i) => (log ? 10 ** (a + ((b - a) * i) / count) : lo + (span * i) / count));
  const counts = new Array<number>(count).fill(0);
  for (const t of times) {
    const k = Math.min(count - 1, Math.floor(((toX(t) - a) / (b - a)) * count));
    counts[k]!++;
  }
  return { edges, counts, log };
}

/**
 * Histogram of time per step with the median and p99 marked. The x axis is logarithmic when times span more
 * than two orders of magnitude (deterministic steps next to model calls), which the axis title says.
 */
export function latencyHistogram(times: readonly number[], medianMs: number | null, p99Ms: number | null): SafeHtml {
  if (times.length === 0) return html`<p class="empty">No steps were replayed.</p>`;
  const { edges, counts, log } = histogramBins(times);
  const W = 760;
  const H = 240;
  const left = 48;
  const right = 16;
  const top = 38; // room above the plot for the median / p99 labels
  const bottom = 48;
  const plotW = W - left - right;
  const plotH = H - top - bottom;
  const maxCount = Math.max(...counts);
  const lo = edges[0]!;
  const hi = edges[edges.length - 1]!;
  const xOf = (v: number) => {
    if (hi === lo) return left + plotW / 2;
    const f = log ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : (v - lo) / (hi - lo);
    return left + Math.min(1, Math.max(0, f)) * plotW;
  };
  const binW = plotW / counts.length;
  const bars = counts.map((c, i) => {
    const h = c === 0 ? 0 : Math.max(1.5, (c / maxCount) * plotH); // a lone step stays visible
    return html`<rect x="${(left + i * binW + 1).toFixed(1)}" y="${(top + plotH - h).toFixed(1)}" width="${Math.max(1, binW - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS.bar}"><title>${ms(edges[i]!)} – ${ms(edges[i + 1] ?? hi)}: ${c} steps</title></rect>`;
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = log ? 10 ** (Math.log10(lo) + f * (Math.log10(hi) - Math.log10(lo))) : lo + f * (hi - lo);
    const x = left + f * plotW;
    const anchor = f === 0 ? 'start' : f === 1 ? 'end' : 'middle'; // end labels stay inside the chart
    return html`<line x1="${x}" y1="${top + plotH}" x2="${x}" y2="${top + plotH + 5}" stroke="${COLORS.axis}"/><text x="${x}" y="${top + plotH + 18}" text-anchor="${anchor}" class="tick">${ms(v)}</text>`;
  });
  // Marker labels sit in the band above the plot, on the inner side of their line so none is clipped.
  const marker = (v: number | null, label: string, y: number) => {
    if (v === null) return '';
    const x = xOf(v);
    const rightHalf = x > left + plotW * 0.6;
    return html`<line x1="${x.toFixed(1)}" y1="${y + 4}" x2="${x.toFixed(1)}" y2="${top + plotH}" stroke="${COLORS.fp}" stroke-dasharray="4 3"/><text x="${(rightHalf ? x - 4 : x + 4).toFixed(1)}" y="${y}" text-anchor="${rightHalf ? 'end' : 'start'}" class="mark">${label} ${ms(v)}</text>`;
  };
  return html`<svg class="chart" role="img" aria-label="time per step histogram" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}">
  <line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="${COLORS.axis}"/>
  <line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="${COLORS.axis}"/>
  <text x="${left - 6}" y="${top + 10}" text-anchor="end" class="tick">${maxCount}</text>
  <text x="${left - 6}" y="${top + plotH}" text-anchor="end" class="tick">0</text>
  ${bars}${ticks}
  ${marker(medianMs, 'median', 14)}${marker(p99Ms, 'p99', 30)}
  <text x="${left + plotW / 2}" y="${H - 8}" text-anchor="middle" class="axis-title">time per step${log ? ' (log scale)' : ''} · ${times.length} steps</text>
</svg>`;
}

/** A horizontal gauge for a rate in [0, 1] (empty for `null`), drawn with CSS so it needs no script. */
export function gauge(value: number | null, color: string): SafeHtml {
  const w = value === null ? 0 : Math.round(value * 1000) / 10;
  return html`<div class="gauge"><div style="${trusted(`width:${w}%;background:${color}`)}"></div></div>`;
}
