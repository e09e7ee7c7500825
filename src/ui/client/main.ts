/**
 * The live view's browser script, served as `/ui/live.js` (bundled by scripts/bundle.ts; no framework, no CDN).
 * Asks for the token (or takes it from the address bar), loads a snapshot, then follows the SSE stream. Every value
 * from the store is written with `textContent` or `setAttribute`, never as markup (dom.ts).
 *
 * Triage model: one list item per interaction. A result row is attached to the latest unanswered request it
 * answers (the kinds table from the server says which) with the same session, server and tool, URI or prompt. An
 * item's decision is `deny` when either half was denied. Times are shown in UTC everywhere.
 */
import { ApiClient } from './api.js';
import { redrawCharts } from './charts.js';
import { byId } from './dom.js';
import { showDrawer, wireDrawer } from './drawer.js';
import { addAgentOption, addDecision, counts, incoming, onlyAgent, refilter, wireFeed } from './feed.js';
import { renderQuarantine, tickApprovals, upsertAgent, upsertApproval, upsertPin } from './panels.js';
import { renderService } from './service.js';
import { LiveState } from './state.js';
import type { Agent, Approval, Pin, ServiceStatus, Snapshot } from './types.js';

function status(text: string, cls = ''): void {
  const s = byId('status');
  s.textContent = text;
  s.className = cls;
}

const state = new LiveState();
let source: EventSource | null = null;
const api = new ApiClient((message) => askToken(message));

state.hooks = {
  open: (it) => showDrawer(state, api, it),
  onlyAgent: (agent) => onlyAgent(state, agent),
  counts: () => counts(state),
  failed: (err) => status(String(err instanceof Error ? err.message : err), 'error'),
};

function askToken(message?: string): void {
  source?.close();
  source = null;
  api.forget();
  byId('main').hidden = true;
  byId('drawer').hidden = true;
  byId('login').hidden = false;
  byId('token-input').focus();
  status(message ?? 'token required', 'error');
}

function saveToken(): void {
  const input = byId<HTMLInputElement>('token-input');
  const t = input.value.trim();
  if (!t) return;
  api.remember(t);
  input.value = '';
  void start();
}

function agentSeen(a: Agent): void {
  addAgentOption(a.agent);
  upsertAgent(state, api, a);
}

function listen(): void {
  source?.close();
  const s = api.stream(state.lastId);
  source = s;
  s.onopen = () => status('live', 'live');
  s.onerror = () => {
    status('reconnecting\u2026', 'error');
    if (s.readyState === EventSource.CLOSED) {
      setTimeout(() => {
        api.call('GET', '/snapshot').then(listen, () => {
          // the token prompt is shown
        });
      }, 1000);
    }
  };
  s.addEventListener('decision', (e) => incoming(state, JSON.parse((e as MessageEvent<string>).data)));
  s.addEventListener('agent', (e) => agentSeen(JSON.parse((e as MessageEvent<string>).data) as Agent));
  s.addEventListener('approval', (e) => upsertApproval(state, api, JSON.parse((e as MessageEvent<string>).data) as Approval));
  s.addEventListener('pin', (e) => upsertPin(state, api, JSON.parse((e as MessageEvent<string>).data) as Pin));
}

async function start(): Promise<void> {
  byId('login').hidden = true;
  status('loading\u2026');
  try {
    const snap = await api.call<Snapshot>('GET', '/snapshot');
    byId('main').hidden = false;
    if (snap.policy) state.policy = snap.policy;
    if (snap.kinds) state.kinds = snap.kinds;
    if (typeof snap.now === 'number') state.skew = snap.now - Date.now();
    for (const a of snap.agents) {
      state.agents.set(a.agent, a);
      addAgentOption(a.agent);
    }
    for (const r of snap.decisions) addDecision(state, r, false);
    state.lastId = Math.max(state.lastId, snap.lastId);
    for (const p of snap.pins) upsertPin(state, api, p);
    for (const a of snap.approvals) upsertApproval(state, api, a);
    renderQuarantine(state, api);
    state.chartsDirty = true;
    listen();
    refreshService();
  } catch (err) {
    if (api.token) state.hooks.failed(err);
  }
}

/** The service panel, every few seconds while the page is open; hidden (and no longer asked) without the route. */
let serviceShown = true;
function refreshService(): void {
  if (!serviceShown || !api.token) return;
  api.call<ServiceStatus>('GET', '/ops').then(renderService, (err: unknown) => {
    // Beside a stdio proxy there is no service state; any other failure keeps the last state shown.
    if (!String(err instanceof Error ? err.message : err).startsWith('no service state')) return;
    serviceShown = false;
    renderService(null);
  });
}

function frame(): void {
  redrawCharts(state);
  requestAnimationFrame(frame);
}

byId('token-save').addEventListener('click', saveToken);
byId('token-input').addEventListener('keydown', (e) => {
  if (e.key === 'Enter') {
    e.preventDefault();
    saveToken();
  }
});
wireFeed(state);
wireDrawer(state);
setInterval(() => tickApprovals(state, api), 1000);
setInterval(refreshService, 5000);
setInterval(() => {
  state.chartsDirty = true;
  if (Number(byId<HTMLSelectElement>('f-time').value) > 0) refilter(state);
}, 5000);
requestAnimationFrame(frame);
api.token = api.readToken();
if (api.token) void start();
else askToken();
