/**
 * The drawer: everything about one item — facts, the rules' texts, why, the witness, the data flow, the recorded
 * arguments or content (fetched, masked), and the result. Escape closes it and gives focus back to its row.
 */
import type { ApiClient } from './api.js';
import { byId, button, el } from './dom.js';
import { anchorId, fullTime, target } from './format.js';
import { itemDecision, itemRules, ruleInfo, type Item, type LiveState } from './state.js';
import type { DecisionDetail, Row } from './types.js';

function fact(dl: HTMLElement, k: string, v: unknown): void {
  dl.append(el('dt', '', k));
  const dd = el('dd');
  if (v instanceof Node) dd.append(v);
  else dd.textContent = v === null || v === undefined || v === '' ? '-' : String(v);
  dl.append(dd);
}

function ruleBlock(state: LiveState, id: string): HTMLElement {
  const box = el('div', 'rule');
  box.setAttribute('data-rule', id);
  box.append(el('div', 'id mono', id));
  const info = ruleInfo(state, id);
  box.append(el('div', 'ruletext-full', info ? info.text : 'Rule text not available here (not in the loaded policy book; see the rationale).'));
  if (info?.severity) box.append(el('div', 'legend', `severity ${info.severity}`));
  if (info?.remediation) box.append(el('div', 'legend', `What to do instead: ${info.remediation}`));
  return box;
}

function policyText(state: LiveState, r: Row): string {
  const p = state.policy;
  if (!r.policyHash) return 'none recorded';
  if (p.hash && p.hash === r.policyHash) return `${p.name ?? 'policy'} ${p.version ?? ''} (${r.policyHash.slice(0, 12)})`;
  return r.policyHash.slice(0, 12) + (p.hash ? ` (not the running policy ${p.name ?? ''} ${p.version ?? ''})` : '');
}

function agentFacts(state: LiveState, r: Row): HTMLElement {
  const box = el('span');
  box.append(el('b', '', `${r.agent} `), button('plain agent-filter', 'only this agent', () => state.hooks.onlyAgent(r.agent)));
  const chart = el('a', 'agent-chart', 'threat chart');
  chart.setAttribute('href', `#${anchorId(r.agent)}`);
  chart.addEventListener('click', () => {
    byId('drawer').hidden = true;
    state.selected = null;
  });
  box.append(document.createTextNode(' '), chart);
  const a = state.agents.get(r.agent);
  if (a) box.append(el('span', 'legend', ` level ${a.level}, \u03c4 ${a.tau.toFixed(2)}${a.quarantined ? ', quarantined' : ''}`));
  return box;
}

export function showDrawer(state: LiveState, api: ApiClient, it: Item): void {
  state.selected = it;
  for (const x of state.items) x.el.classList.toggle('sel', x === it);
  const r = it.row;
  const body = byId('drawer-body');
  body.textContent = '';
  const d = itemDecision(it);
  byId('drawer-title').textContent = `${d === 'admin' ? 'Admin' : d === 'held' ? 'Held' : d === 'deny' ? 'Denied' : 'Allowed'}: ${target(r)}`;
  const dl = el('dl', 'facts');
  fact(dl, 'decision', el('span', `badge ${d}`, d));
  fact(dl, 'time', fullTime(r.ts));
  fact(dl, 'agent', agentFacts(state, r));
  fact(dl, 'session', r.session);
  fact(dl, 'kind', state.kind(r.kind)?.label ?? r.kind);
  fact(dl, 'target', target(r));
  fact(dl, 'decided by', r.source);
  fact(dl, 'threat level', r.threatLevel);
  fact(dl, 'policy', policyText(state, r));
  fact(dl, 'audit id', r.auditId);
  if (r.elapsedMs !== null && r.elapsedMs !== undefined) fact(dl, 'guard time', `${r.elapsedMs.toFixed(1)} ms`);
  body.append(dl);

  const rules = itemRules(it);
  if (rules.length) {
    body.append(el('h3', '', rules.length > 1 ? 'Rules' : 'Rule'));
    for (const id of rules) body.append(ruleBlock(state, id));
  }
  if (r.flagged.length) body.append(el('p', 'legend', `Flagged (not enforced): ${r.flagged.join(', ')}`));
  body.append(el('h3', '', 'Why'), el('p', 'rationale', r.rationale));
  const witnesses = [...r.witness, ...(it.result?.witness ?? [])];
  if (witnesses.length) {
    body.append(el('h3', '', 'Witness'));
    body.append(el('p', 'legend', 'A witness is the evidence: the smallest set of facts (predicate values) that makes the rule\u2019s formula false. "unknown" means the guard could not decide that fact.'));
    const ul = el('ul', 'witness');
    for (const w of witnesses) {
      const preds = Object.entries(w.predicates ?? {}).map(([p, v]) => `${p} = ${v}`).join(', ');
      ul.append(el('li', 'mono', `${w.rule}: ${preds}${w.confidence < 1 ? ` (confidence ${w.confidence.toFixed(2)})` : ''}`));
    }
    body.append(ul);
  }
  const flow = r.flow ?? r.detail?.flow ?? null;
  if (flow) body.append(el('h3', '', 'Data flow'), el('pre', 'flow', typeof flow === 'string' ? flow : JSON.stringify(flow, null, 2)));
  body.append(el('h3', '', state.payloadLabel(r)));
  const pre = el('pre', 'payload', r.preview || '(none recorded)');
  body.append(pre);
  if (r.kind !== 'admin') {
    api.call<DecisionDetail>('GET', `/decisions/${encodeURIComponent(r.auditId)}`).then(
      (x) => {
        if (state.selected !== it || !x.interaction) return;
        const i = x.interaction;
        const v = i.arguments !== undefined ? i.arguments : i.content !== undefined ? i.content : null;
        if (v !== null) pre.textContent = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
        if (i.sender) pre.textContent = `from ${i.sender} to ${i.recipient ?? '?'}:\n${pre.textContent ?? ''}`;
        if (x.truncated) pre.after(el('p', 'legend', 'Long values were cut when recorded.'));
      },
      () => {
        // the preview stays
      },
    );
  }
  if (it.result) {
    body.append(el('h3', '', 'Result'));
    const rl = el('dl', 'facts');
    fact(rl, 'decision', el('span', `badge ${it.result.decision}`, it.result.decision));
    fact(rl, 'time', fullTime(it.result.ts));
    fact(rl, 'why', it.result.rationale);
    fact(rl, 'audit id', it.result.auditId);
    body.append(rl);
    if (it.result.preview) body.append(el('pre', 'result-preview', it.result.preview));
  }
  const drawer = byId('drawer');
  drawer.hidden = false;
  if (!drawer.contains(document.activeElement)) byId('drawer-close').focus();
}

export function closeDrawer(state: LiveState): void {
  byId('drawer').hidden = true;
  const back = state.selected;
  state.selected = null;
  for (const x of state.items) x.el.classList.remove('sel');
  if (back?.el.isConnected) back.el.focus();
}

/** Close button and Escape; returns what removes the page-wide Escape listener. */
export function wireDrawer(state: LiveState): () => void {
  byId('drawer-close').addEventListener('click', () => closeDrawer(state));
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && !byId('drawer').hidden) {
      e.preventDefault();
      closeDrawer(state);
    }
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}
