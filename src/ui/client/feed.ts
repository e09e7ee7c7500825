/**
 * The decisions list: one item per interaction, newest first (a result joins the request it answers), with
 * filters, pause, the counts in the header and keyboard moves between rows.
 */
import { byId, el } from './dom.js';
import { clock, fullTime, target } from './format.js';
import { itemDecision, itemRules, MAX_ITEMS, pairKey, type Item, type LiveState } from './state.js';
import type { Row } from './types.js';

/** Adds a row from the snapshot (`fresh` false) or the stream: a new item, or the result of an open request. */
export function addDecision(state: LiveState, r: Row, fresh: boolean): void {
  if (r.id <= state.lastId) return;
  state.lastId = r.id;
  const level = typeof r.threatLevel === 'number' ? r.threatLevel : r.kind === 'admin' && r.tool === 'release' ? 0 : null;
  if (level !== null) state.point(r.agent, r.ts, level);
  if (r.kind !== 'admin') {
    let recent = state.recentBySession.get(r.session);
    if (!recent) state.recentBySession.set(r.session, (recent = []));
    recent.push(r);
    if (recent.length > 20) recent.shift();
  }
  const key = pairKey(r);
  const waiting = state.open.get(key);
  const answered = state.answers(r.kind);
  if (waiting && answered !== undefined && waiting.row.kind === answered) {
    state.open.delete(key);
    waiting.result = r;
    state.byAuditId.set(r.auditId, waiting);
    render(state, waiting);
    waiting.el.setAttribute('data-result-audit-id', r.auditId);
    if (fresh) flash(waiting.el);
    applyFilter(state, waiting);
    if (state.selected === waiting) state.hooks.open(waiting);
    state.hooks.counts();
    return;
  }
  const it: Item = { row: r, result: null, el: el('li') };
  state.items.push(it);
  state.byAuditId.set(r.auditId, it);
  if (state.isRequest(r.kind) && r.decision === 'allow') state.open.set(key, it);
  render(state, it);
  addAgentOption(r.agent);
  const list = byId('decisions');
  list.insertBefore(it.el, list.firstChild);
  if (fresh) flash(it.el);
  applyFilter(state, it);
  while (state.items.length > MAX_ITEMS) {
    const old = state.items.shift()!;
    old.el.remove();
    state.byAuditId.delete(old.row.auditId);
    if (old.result) state.byAuditId.delete(old.result.auditId);
    if (state.open.get(pairKey(old.row)) === old) state.open.delete(pairKey(old.row));
  }
  byId('decisions-empty').hidden = true;
  state.hooks.counts();
}

/** A row from the stream: shown, or kept while paused. */
export function incoming(state: LiveState, r: Row): void {
  if (state.paused) {
    state.buffered.push(r);
    shownCount(state);
  } else {
    addDecision(state, r, true);
  }
}

function flash(e: HTMLElement): void {
  e.classList.remove('fresh');
  void e.offsetWidth;
  e.classList.add('fresh');
}

export function render(state: LiveState, it: Item): void {
  const r = it.row;
  const li = it.el;
  const d = itemDecision(it);
  li.textContent = '';
  li.tabIndex = 0;
  li.setAttribute('role', 'button');
  li.setAttribute('data-audit-id', r.auditId);
  li.setAttribute('data-decision', d);
  li.setAttribute('data-agent', r.agent);
  li.className = r.kind === 'admin' ? 'admin' : '';
  if (state.selected === it) li.classList.add('sel');
  const l1 = el('div', 'line1');
  const t = el('time', 'time mono', clock(r.ts));
  t.setAttribute('datetime', new Date(r.ts).toISOString());
  t.title = fullTime(r.ts);
  l1.append(t, el('span', `badge ${d}`, d), el('span', 'agent', r.agent), el('span', 'target mono', target(r)));
  if (it.result) {
    const rd = it.result.decision === 'deny' ? 'result denied' : /redact/i.test(it.result.rationale) ? 'result redacted' : 'result allowed';
    l1.append(el('span', 'result', rd));
  } else if (r.kind === 'tool_call' && r.decision === 'allow') {
    l1.append(el('span', 'result', 'no result yet'));
  }
  li.append(l1);
  if (r.preview) li.append(el('div', 'args mono', r.preview));
  const rules = itemRules(it);
  if (d === 'deny' || d === 'held' || r.kind === 'admin') {
    const why = el('div', 'why');
    if (rules.length) why.append(el('span', 'rules', `${rules.join(', ')}: `));
    const rationale = it.result?.decision === 'deny' ? it.result.rationale : r.rationale;
    why.append(document.createTextNode(rationale || ''));
    li.append(why);
  }
  const label = `${clock(r.ts)} UTC, ${d}, ${r.agent}, ${target(r)}${rules.length ? `, rules ${rules.join(', ')}` : ''}`;
  li.setAttribute('aria-label', `${label}. Press Enter for details.`);
}

interface Filters {
  decision: string;
  agent: string;
  tool: string;
  rule: string;
  minutes: number;
}

function filters(): Filters {
  const value = (id: string) => byId<HTMLInputElement>(id).value;
  return { decision: value('f-decision'), agent: value('f-agent'), tool: value('f-tool').trim().toLowerCase(), rule: value('f-rule').trim().toLowerCase(), minutes: Number(value('f-time')) };
}

function matches(state: LiveState, it: Item, f: Filters): boolean {
  const r = it.row;
  if (f.decision && itemDecision(it) !== f.decision) return false;
  if (f.agent && r.agent !== f.agent) return false;
  if (f.tool && !target(r).toLowerCase().includes(f.tool)) return false;
  if (f.rule && ![...itemRules(it), ...r.flagged].some((x) => x.toLowerCase().includes(f.rule))) return false;
  if (f.minutes > 0 && r.ts < state.now() - f.minutes * 60_000) return false;
  return true;
}

function applyFilter(state: LiveState, it: Item): void {
  it.el.hidden = !matches(state, it, filters());
}

export function refilter(state: LiveState): void {
  const f = filters();
  for (const it of state.items) it.el.hidden = !matches(state, it, f);
  shownCount(state);
}

export function shownCount(state: LiveState): void {
  const n = state.items.filter((it) => !it.el.hidden).length;
  byId('shown').textContent = `showing ${n} of ${state.items.length} interactions${state.paused ? ` \u00b7 paused, ${state.buffered.length} new waiting` : ''}`;
}

export function addAgentOption(agent: string): void {
  const sel = byId<HTMLSelectElement>('f-agent');
  if (Array.from(sel.options).some((o) => o.value === agent)) return;
  const o = el('option', '', agent);
  o.value = agent;
  sel.append(o);
}

export function onlyAgent(state: LiveState, agent: string): void {
  addAgentOption(agent);
  byId<HTMLSelectElement>('f-agent').value = agent;
  refilter(state);
}

/** The header's counts and the tab title: what waits for a person. */
export function counts(state: LiveState): void {
  const quarantined = [...state.agents.values()].filter((a) => a.quarantined).length;
  const denied = state.items.filter((it) => itemDecision(it) === 'deny').length;
  const box = byId('counts');
  box.textContent = '';
  const add = (n: number, label: string, hot: boolean, id: string) => {
    const s = el('span', hot && n > 0 ? 'hot' : '', `${n} ${label}`);
    s.id = id;
    box.append(s);
  };
  add(state.approvals.size, 'waiting approval', true, 'count-held');
  add(quarantined, 'quarantined', true, 'count-quarantined');
  add(state.pins.size, 'changed tools', true, 'count-pins');
  add(denied, 'denied', false, 'count-denied');
  const need = state.approvals.size + quarantined + state.pins.size;
  document.title = `${need > 0 ? `(${need}) ` : ''}QuadGuard`;
  shownCount(state);
}

/** Click or Enter opens a row; arrow keys move between the rows shown; the filters and Pause. */
export function wireFeed(state: LiveState): void {
  const list = byId('decisions');
  const itemOf = (e: Event) => {
    const li = (e.target as Element | null)?.closest('li[data-audit-id]');
    return li ? { li, it: state.byAuditId.get(li.getAttribute('data-audit-id') ?? '') } : undefined;
  };
  list.addEventListener('click', (e) => {
    const hit = itemOf(e);
    if (hit?.it) state.hooks.open(hit.it);
  });
  list.addEventListener('keydown', (e) => {
    const hit = itemOf(e);
    if (!hit) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (hit.it) state.hooks.open(hit.it);
    }
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const step = (n: Element | null) => (e.key === 'ArrowDown' ? n?.nextElementSibling : n?.previousElementSibling) ?? null;
      let n = step(hit.li);
      while (n && (n as HTMLElement).hidden) n = step(n);
      if (n) (n as HTMLElement).focus();
    }
  });
  for (const id of ['f-decision', 'f-agent', 'f-time']) byId(id).addEventListener('change', () => refilter(state));
  for (const id of ['f-tool', 'f-rule']) byId(id).addEventListener('input', () => refilter(state));
  byId('clear-filters').addEventListener('click', () => {
    for (const id of ['f-decision', 'f-agent', 'f-tool', 'f-rule']) byId<HTMLInputElement>(id).value = '';
    byId<HTMLSelectElement>('f-time').value = '0';
    refilter(state);
  });
  const pause = byId('pause');
  pause.addEventListener('click', () => {
    state.paused = !state.paused;
    pause.textContent = state.paused ? 'Resume' : 'Pause';
    pause.setAttribute('aria-pressed', String(state.paused));
    if (!state.paused) for (const r of state.buffered.splice(0)) addDecision(state, r, true);
    shownCount(state);
  });
}

