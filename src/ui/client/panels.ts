/**
 * What waits for a person, first on the page: calls held for approval (the rule's text, the arguments, what came
 * before in the session, a countdown), quarantined agents (Release) and changed tools (Approve, with a line diff).
 */
import type { ApiClient } from './api.js';
import { byId, button, el } from './dom.js';
import { clock, duration, fullTime, target } from './format.js';
import { isHeld, ruleInfo, type LiveState } from './state.js';
import type { Agent, Approval, Pin, Row } from './types.js';

/** Disables the button while the call runs; on failure enables it again and says why. */
function act<T>(state: LiveState, api: ApiClient, b: HTMLButtonElement, method: string, path: string, body: unknown, done: (d: T) => void): void {
  b.disabled = true;
  api.call<T>(method, path, body).then(done, (err: unknown) => {
    b.disabled = false;
    state.hooks.failed(err);
  });
}

// --- quarantine ------------------------------------------------------------------------------------------

export function upsertAgent(state: LiveState, api: ApiClient, a: Agent): void {
  state.agents.set(a.agent, a);
  state.chartsDirty = true;
  renderQuarantine(state, api);
}

export function renderQuarantine(state: LiveState, api: ApiClient): void {
  const ul = byId('quarantined');
  ul.textContent = '';
  let n = 0;
  for (const a of state.agents.values()) {
    if (!a.quarantined) continue;
    n++;
    const li = el('li');
    li.setAttribute('data-agent', a.agent);
    const release = button('release', 'Release', () =>
      act<{ agent: Agent }>(state, api, release, 'POST', `/agents/${encodeURIComponent(a.agent)}/release`, undefined, (d) => upsertAgent(state, api, d.agent)),
    );
    release.setAttribute('aria-label', `Release ${a.agent}`);
    const actions = el('span', 'actions');
    actions.append(release);
    li.append(el('span', 'name', a.agent), actions);
    li.append(el('span', 'sub', `${a.reason || 'no reason'}${a.updatedAt ? ` \u00b7 since ${fullTime(a.updatedAt)}` : ''}`));
    li.append(button('plain full', 'show its decisions', () => state.hooks.onlyAgent(a.agent)));
    ul.append(li);
  }
  byId('quarantined-empty').hidden = n > 0;
  state.hooks.counts();
}

// --- tool pins -------------------------------------------------------------------------------------------

function parseDef(s: string | null | undefined): Record<string, unknown> {
  try {
    return JSON.parse(s || '{}') as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** A line diff (longest common subsequence; both sides whole when too large). */
export function lineDiff(a: string, b: string): Array<[' ' | '-' | '+', string]> {
  const A = a.split('\n');
  const Bn = b.split('\n');
  if (A.length * Bn.length > 250_000) return [...A.map((l) => ['-', l] as ['-', string]), ...Bn.map((l) => ['+', l] as ['+', string])];
  const m = A.length;
  const n = Bn.length;
  const dp: number[][] = Array.from({ length: m + 1 }, () => new Array<number>(n + 1).fill(0));
  for (let i = m - 1; i >= 0; i--) for (let j = n - 1; j >= 0; j--) dp[i]![j] = A[i] === Bn[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  const out: Array<[' ' | '-' | '+', string]> = [];
  let i = 0;
  let j = 0;
  while (i < m && j < n) {
    if (A[i] === Bn[j]) {
      out.push([' ', A[i]!]);
      i++;
      j++;
    } else if (dp[i + 1]![j]! >= dp[i]![j + 1]!) out.push(['-', A[i++]!]);
    else out.push(['+', Bn[j++]!]);
  }
  while (i < m) out.push(['-', A[i++]!]);
  while (j < n) out.push(['+', Bn[j++]!]);
  return out;
}

function diffBlock(title: string, before: string, after: string): HTMLElement {
  const box = el('div', 'diff');
  box.append(el('h3', '', title));
  const pre = el('pre');
  if (before === after) pre.append(el('span', 'same', `(unchanged) ${before}`));
  else for (const [op, line] of lineDiff(before, after)) pre.append(el('span', op === '-' ? 'del' : op === '+' ? 'add' : 'same', `${op} ${line}`));
  box.append(pre);
  return box;
}

export function upsertPin(state: LiveState, api: ApiClient, p: Pin): void {
  const key = `${p.server}__${p.tool}`;
  if (p.status === 'pending') state.pins.set(key, p);
  else state.pins.delete(key);
  const ul = byId('pins');
  ul.textContent = '';
  for (const [k, pin] of state.pins) {
    const li = el('li');
    li.setAttribute('data-pin', k);
    const approve = button('approve-pin', 'Approve', () =>
      act<{ pin: Pin }>(state, api, approve, 'POST', `/pins/${encodeURIComponent(pin.server)}/${encodeURIComponent(pin.tool)}/approve`, { hash: pin.pendingHash }, (d) => upsertPin(state, api, d.pin)),
    );
    approve.setAttribute('aria-label', `Approve the new definition of ${k}`);
    const actions = el('span', 'actions');
    actions.append(approve);
    li.append(el('span', 'name mono', k), actions);
    li.append(el('span', 'sub', `Hidden from agents until approved. Changed ${fullTime(pin.updatedAt)}; red lines are the approved definition, green the new one.`));
    const oldDef = parseDef(pin.definition);
    const newDef = parseDef(pin.pendingDefinition);
    const rest = (d: Record<string, unknown>) => JSON.stringify({ title: d.title, inputSchema: d.inputSchema, outputSchema: d.outputSchema, annotations: d.annotations }, null, 2);
    const box = el('div', 'full pin-diff');
    box.append(diffBlock('description', String(oldDef.description ?? ''), String(newDef.description ?? '')), diffBlock('schema and annotations', rest(oldDef), rest(newDef)));
    li.append(box, el('span', 'sub mono', `hash ${pin.hash.slice(0, 12)} \u2192 ${String(pin.pendingHash ?? '').slice(0, 12)}`));
    ul.append(li);
  }
  byId('pins-empty').hidden = state.pins.size > 0;
  state.hooks.counts();
}

// --- approvals -------------------------------------------------------------------------------------------

export function upsertApproval(state: LiveState, api: ApiClient, a: Approval): void {
  if (a.status === 'pending' && a.expires > state.now()) state.approvals.set(a.id, a);
  else state.approvals.delete(a.id);
  renderApprovals(state, api);
}

/** The interaction before the held call in its session: often the read that made the call risky. */
function triggerOf(state: LiveState, a: Approval): Row | null {
  const recent = state.recentBySession.get(a.session) ?? [];
  for (let i = recent.length - 1; i >= 0; i--) if (recent[i]!.ts <= a.created + 1000 && isHeld(recent[i]!)) return i > 0 ? recent[i - 1]! : null;
  return null;
}

export function renderApprovals(state: LiveState, api: ApiClient): void {
  const ul = byId('approvals');
  ul.textContent = '';
  for (const a of state.approvals.values()) {
    const li = el('li');
    li.setAttribute('data-approval-id', a.id);
    const what = a.server && a.tool ? `${a.server}__${a.tool}` : a.tool || a.server || '-';
    li.append(el('span', 'name', `${a.agent} \u2192 ${what}`));
    const done = (d: { approval: Approval }) => upsertApproval(state, api, d.approval);
    const ok: HTMLButtonElement = button('approve', 'Approve', () => {
      no.disabled = true;
      act(state, api, ok, 'POST', `/approvals/${encodeURIComponent(a.id)}/approve`, undefined, done);
    });
    const no: HTMLButtonElement = button('deny secondary', 'Deny', () => {
      ok.disabled = true;
      act(state, api, no, 'POST', `/approvals/${encodeURIComponent(a.id)}/deny`, undefined, done);
    });
    ok.setAttribute('aria-label', `Approve held call ${a.id}`);
    no.setAttribute('aria-label', `Deny held call ${a.id}`);
    const actions = el('span', 'actions');
    actions.append(ok, no);
    li.append(actions);
    for (const id of a.rules ?? []) {
      const rt = el('div', 'ruletext');
      rt.append(el('b', 'mono', `${id}: `), document.createTextNode(ruleInfo(state, id)?.text ?? a.rationale ?? ''));
      li.append(rt);
    }
    li.append(el('span', 'sub', 'arguments'), el('pre', 'full held-args', a.preview || '(none)'));
    const trig = triggerOf(state, a);
    if (trig) {
      li.append(
        button('plain full trigger', `after: ${clock(trig.ts)} UTC ${trig.kind.replace('_', ' ')} ${target(trig)} (${trig.decision})`, () => {
          const it = state.byAuditId.get(trig.auditId);
          if (it) state.hooks.open(it);
        }),
      );
    }
    const cd = el('span', 'sub');
    const left = el('span', 'countdown', duration(a.expires - state.now()));
    left.setAttribute('data-expires', String(a.expires));
    cd.append(document.createTextNode('expires in '), left, document.createTextNode(` (at ${clock(a.expires)} UTC) \u00b7 held ${fullTime(a.created)} \u00b7 ${a.id}`));
    li.append(cd);
    ul.append(li);
  }
  byId('approvals-empty').hidden = state.approvals.size > 0;
  state.hooks.counts();
}

/** Every second: expired approvals go, countdowns tick. */
export function tickApprovals(state: LiveState, api: ApiClient): void {
  const t = state.now();
  let changed = false;
  for (const [id, a] of state.approvals) {
    if (a.expires <= t) {
      state.approvals.delete(id);
      changed = true;
    }
  }
  if (changed) renderApprovals(state, api);
  document.querySelectorAll<HTMLElement>('.countdown[data-expires]').forEach((e) => {
    e.textContent = duration(Number(e.getAttribute('data-expires')) - t);
  });
}
