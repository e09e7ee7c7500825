/** Threat charts: one per agent on one shared time axis (UTC), stepped, with level bands. */
import { byId, button, el, svg } from './dom.js';
import { anchorId, clock } from './format.js';
import type { LiveState } from './state.js';

const W = 360;
const H = 104;
const L = 22;
const R = 4;
const T = 6;
const B = 20;
const y = (level: number) => T + (4 - level) * ((H - T - B) / 4);

interface Chart {
  info: HTMLElement;
  plot: SVGElement;
}
const charts = new Map<string, Chart>();

function chartFor(state: LiveState, agent: string): Chart {
  const known = charts.get(agent);
  if (known) return known;
  const box = el('div', 'chart');
  box.setAttribute('data-agent', agent);
  box.id = anchorId(agent);
  const head = el('div', 'head');
  const name = button('plain name', agent, () => state.hooks.onlyAgent(agent));
  name.title = `show only ${agent}\u2019s decisions`;
  const info = el('span', 'info');
  head.append(name, info);
  const plot = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img' });
  plot.setAttribute('aria-label', `threat level (0 to 4) of ${agent} over time`);
  box.append(head, plot);
  byId('threat').append(box);
  byId('threat-empty').hidden = true;
  const c = { info, plot };
  charts.set(agent, c);
  return c;
}

function axis(state: LiveState): { t0: number; t1: number } {
  let t0 = Infinity;
  for (const s of state.series.values()) if (s.length) t0 = Math.min(t0, s[0]!.ts);
  const t1 = state.now();
  if (!Number.isFinite(t0) || t1 - t0 < 60_000) t0 = t1 - 60_000;
  return { t0, t1 };
}

function drawChart(state: LiveState, agent: string, ax: { t0: number; t1: number }): void {
  const c = chartFor(state, agent);
  const pts = state.series.get(agent) ?? [];
  const a = state.agents.get(agent);
  const lvl = a ? a.level : (pts.at(-1)?.level ?? 0);
  c.info.textContent = '';
  c.info.append(el('span', `lvl lvl-${lvl}`, `level ${lvl}`));
  if (a) {
    const tau = el('span', '', ` \u00b7 \u03c4 ${a.tau.toFixed(2)} `);
    tau.title = '\u03c4: threat score 0\u20131';
    c.info.append(tau);
  }
  if (a?.quarantined) c.info.append(el('span', 'q', 'quarantined'));
  const p = c.plot;
  p.replaceChildren();
  const x = (ts: number) => L + ((ts - ax.t0) / Math.max(1, ax.t1 - ax.t0)) * (W - L - R);
  // Level bands: 0-1 green, 2 amber, 3-4 red.
  p.append(svg('rect', { x: L, y: y(1.5), width: W - L - R, height: y(-0.5) - y(1.5), fill: '#e6f4ea', class: 'band band-low' }));
  p.append(svg('rect', { x: L, y: y(2.5), width: W - L - R, height: y(1.5) - y(2.5), fill: '#fdf1dc', class: 'band band-mid' }));
  p.append(svg('rect', { x: L, y: y(4.5), width: W - L - R, height: y(2.5) - y(4.5), fill: '#fbe4e2', class: 'band band-high' }));
  for (let g = 0; g <= 4; g++) {
    p.append(svg('line', { x1: L, x2: W - R, y1: y(g), y2: y(g), stroke: '#c9ced6', 'stroke-width': 0.5 }));
    p.append(svg('text', { x: L - 6, y: y(g) + 3.5, 'text-anchor': 'end' }, String(g)));
  }
  [ax.t0, (ax.t0 + ax.t1) / 2, ax.t1].forEach((ts, i) => {
    p.append(svg('line', { x1: x(ts), x2: x(ts), y1: H - B, y2: H - B + 3, stroke: '#4f5966' }));
    p.append(svg('text', { x: x(ts), y: H - 6, 'text-anchor': i === 0 ? 'start' : i === 2 ? 'end' : 'middle', class: 'tick' }, clock(ts) + (i === 2 ? ' UTC' : '')));
  });
  p.append(svg('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: '#4f5966' }));
  const first = pts[0];
  const last = pts.at(-1);
  if (!first || !last) return;
  // Stepped: a level holds until the next change (horizontal, then vertical), drawn up to now.
  let d = `M${x(first.ts).toFixed(1)} ${y(first.level).toFixed(1)}`;
  for (const pt of pts.slice(1)) d += ` H${x(pt.ts).toFixed(1)} V${y(pt.level).toFixed(1)}`;
  d += ` H${x(ax.t1).toFixed(1)}`;
  p.append(svg('path', { d, fill: 'none', stroke: '#1f4fbf', 'stroke-width': 2, class: 'threat-line' }));
  p.append(svg('circle', { cx: x(last.ts).toFixed(1), cy: y(last.level).toFixed(1), r: 3, fill: lvl >= 3 ? '#b3261e' : '#1f4fbf' }));
}

/** Redraws every chart when something changed since the last frame. */
export function redrawCharts(state: LiveState): void {
  if (!state.chartsDirty) return;
  state.chartsDirty = false;
  const ax = axis(state);
  for (const agent of new Set([...state.series.keys(), ...state.agents.keys()])) drawChart(state, agent, ax);
}
