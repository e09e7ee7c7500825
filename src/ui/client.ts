/**
 * The live view's browser script, served as `/ui/live.js` (ES2020, no framework, no CDN). It keeps the token in
 * memory and sessionStorage (and removes it from the address bar), loads a snapshot, then follows the SSE
 * stream. Every value from the store is written with `textContent` or `setAttribute`, never as markup.
 * Kept as a string so the built package serves it without a bundler; a test parses it.
 *
 * Triage model: one list item per interaction. A result row (`tool_result`, `resource_result`, `prompt_result`) is
 * attached to the latest unanswered request of its kind (`tool_call`, `resource_request`, `prompt_request`) with
 * the same session, server and tool, URI or prompt; a `resource_read` response (older stores) to its request. An item's
 * decision is `deny` when either half was denied. Times are shown in UTC everywhere.
 */
export const CLIENT_JS = String.raw`(function () {
  'use strict';
  const API = '/ui/api';
  const KEY = 'quadguard-ui-token';
  const MAX_ITEMS = 1000;
  const MAX_POINTS = 200;
  const SVGNS = 'http://www.w3.org/2000/svg';
  let token = null;
  let lastId = 0;
  let source = null;
  let policy = { rules: {} };
  let skew = 0;
  const agents = new Map();
  const approvals = new Map();
  const pins = new Map();
  const series = new Map();
  const charts = new Map();
  const items = [];
  const byAuditId = new Map();
  const open = new Map();
  const recentBySession = new Map();
  let paused = false;
  const buffered = [];
  let selected = null;
  let chartsDirty = false;

  function $(id) { return document.getElementById(id); }
  // Control, bidi and zero-width characters in names from clients and servers are shown as escapes (as
  // core/printable.ts does for the CLI): a newline or a right-to-left override cannot make a cell read otherwise.
  const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
  function shown(text) { return String(text).replace(UNPRINTABLE, function (c) { return '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'); }); }
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = shown(text);
    return e;
  }
  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVGNS, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function pad(n, w) { return String(n).padStart(w || 2, '0'); }
  function now() { return Date.now() + skew; }
  /** HH:MM:SS in UTC (the zone is named in headings and in full times). */
  function clock(ms) { const d = new Date(ms); return pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds()); }
  /** YYYY-MM-DD HH:MM:SS.mmm UTC */
  function fullTime(ms) { const d = new Date(ms); return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate()) + ' ' + clock(ms) + '.' + pad(d.getUTCMilliseconds(), 3) + ' UTC'; }
  function duration(ms) { const s = Math.max(0, Math.round(ms / 1000)); return Math.floor(s / 60) + ':' + pad(s % 60); }
  function status(text, cls) { const s = $('status'); s.textContent = text; s.className = cls || ''; }
  function target(r) {
    if (r.kind === 'admin') return (r.tool || '') + (r.server ? ' ' + r.server : '');
    if (r.uri) return (r.server ? r.server + ' ' : '') + r.uri;
    if (r.server || r.tool) return (r.server ? r.server + '__' : '') + (r.tool || '');
    return r.recipient ? 'message \u2192 ' + r.recipient : r.kind;
  }
  function witnessText(ws) {
    const out = [];
    (ws || []).forEach(function (w) {
      Object.keys(w.predicates || {}).forEach(function (p) {
        const v = w.predicates[p];
        const t = v === 'true' ? p : p + '=' + v;
        if (out.indexOf(t) === -1) out.push(t);
      });
    });
    return out.join(', ');
  }
  function isHeld(r) { return r.source === 'approval' && r.decision === 'deny' && r.kind !== 'admin'; }
  function ruleInfo(id) {
    if (policy.rules[id]) return policy.rules[id];
    const m = /^servers\.([^.]+)\.tools$/.exec(id);
    if (m) return { text: 'Tools of server "' + m[1] + '" hidden by its allow/deny list in the QuadGuard config (servers.' + m[1] + '.tools) are never listed or called.' };
    return null;
  }

  // --- token ---------------------------------------------------------------------------------------------
  function readToken() {
    const params = new URLSearchParams(location.search);
    const t = params.get('token');
    if (t) {
      params.delete('token');
      const q = params.toString();
      history.replaceState(null, '', location.pathname + (q ? '?' + q : '') + location.hash);
      try { sessionStorage.setItem(KEY, t); } catch (e) { /* memory only */ }
      return t;
    }
    try { return sessionStorage.getItem(KEY); } catch (e) { return null; }
  }
  function askToken(message) {
    if (source) { source.close(); source = null; }
    try { sessionStorage.removeItem(KEY); } catch (e) { /* ignore */ }
    token = null;
    $('main').hidden = true;
    $('drawer').hidden = true;
    $('login').hidden = false;
    $('token-input').focus();
    status(message || 'token required', 'error');
  }
  function saveToken() {
    const t = $('token-input').value.trim();
    if (!t) return;
    token = t;
    try { sessionStorage.setItem(KEY, t); } catch (e) { /* memory only */ }
    $('token-input').value = '';
    start();
  }
  $('token-save').addEventListener('click', saveToken);
  $('token-input').addEventListener('keydown', function (e) { if (e.key === 'Enter') { e.preventDefault(); saveToken(); } });

  function api(method, path, body) {
    const init = { method: method, headers: { authorization: 'Bearer ' + token } };
    if (body !== undefined) { init.headers['content-type'] = 'application/json'; init.body = JSON.stringify(body); }
    return fetch(API + path, init).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        if (res.status === 401) { askToken('wrong or missing token'); throw new Error('unauthorized'); }
        if (!res.ok) throw new Error(data.error || ('HTTP ' + res.status));
        return data;
      });
    });
  }
  function act(button, method, path, body, done) {
    button.disabled = true;
    api(method, path, body).then(done, function (err) {
      button.disabled = false;
      status(String(err.message || err), 'error');
    });
  }

  // --- interactions --------------------------------------------------------------------------------------
  // The request kind each result kind answers (docs/interactions.md); resource_read rows come from older stores.
  const ANSWERS = { tool_result: 'tool_call', resource_result: 'resource_request', prompt_result: 'prompt_request', resource_read: 'resource_read' };
  const REQUESTS = ['tool_call', 'resource_request', 'prompt_request', 'resource_read'];
  function pairKey(r) {
    const resource = r.kind === 'resource_request' || r.kind === 'resource_result' || r.kind === 'resource_read';
    const prompt = r.kind === 'prompt_request' || r.kind === 'prompt_result';
    return r.session + '\u0000' + (r.server || '') + '\u0000' + (resource ? 'r:' + (r.uri || '') : (prompt ? 'p:' : 't:') + (r.tool || ''));
  }
  function itemDecision(it) {
    if (it.row.kind === 'admin') return 'admin';
    if (isHeld(it.row)) return 'held';
    if (it.row.decision === 'deny' || (it.result && it.result.decision === 'deny')) return 'deny';
    return 'allow';
  }
  function itemRules(it) {
    const out = (it.row.rules || []).slice();
    if (it.result) (it.result.rules || []).forEach(function (r) { if (out.indexOf(r) === -1) out.push(r); });
    return out;
  }
  function addDecision(r, fresh) {
    if (r.id <= lastId) return;
    lastId = r.id;
    const level = typeof r.threatLevel === 'number' ? r.threatLevel : (r.kind === 'admin' && r.tool === 'release' ? 0 : null);
    if (level !== null) point(r.agent, r.ts, level);
    if (r.kind !== 'admin') {
      let recent = recentBySession.get(r.session);
      if (!recent) { recent = []; recentBySession.set(r.session, recent); }
      recent.push(r);
      if (recent.length > 20) recent.shift();
    }
    // A result (or a read's response) completes the call it answers.
    const isAnswer = Object.prototype.hasOwnProperty.call(ANSWERS, r.kind) && open.has(pairKey(r)) && open.get(pairKey(r)).row.kind === ANSWERS[r.kind];
    if (isAnswer && open.has(pairKey(r))) {
      const it = open.get(pairKey(r));
      open.delete(pairKey(r));
      it.result = r;
      byAuditId.set(r.auditId, it);
      render(it);
      it.el.setAttribute('data-result-audit-id', r.auditId);
      if (fresh) flash(it.el);
      applyFilter(it);
      if (selected === it) showDrawer(it);
      counts();
      return;
    }
    const it = { row: r, result: null, el: el('li') };
    items.push(it);
    byAuditId.set(r.auditId, it);
    if (REQUESTS.indexOf(r.kind) !== -1 && r.decision === 'allow') open.set(pairKey(r), it);
    render(it);
    addAgentOption(r.agent);
    const list = $('decisions');
    list.insertBefore(it.el, list.firstChild);
    if (fresh) flash(it.el);
    applyFilter(it);
    while (items.length > MAX_ITEMS) {
      const old = items.shift();
      old.el.remove();
      byAuditId.delete(old.row.auditId);
      if (old.result) byAuditId.delete(old.result.auditId);
      if (open.get(pairKey(old.row)) === old) open.delete(pairKey(old.row));
    }
    $('decisions-empty').hidden = true;
    counts();
  }
  function flash(e) { e.classList.remove('fresh'); void e.offsetWidth; e.classList.add('fresh'); }
  function render(it) {
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
    if (selected === it) li.classList.add('sel');
    const l1 = el('div', 'line1');
    const t = el('time', 'time mono', clock(r.ts));
    t.setAttribute('datetime', new Date(r.ts).toISOString());
    t.title = fullTime(r.ts);
    l1.appendChild(t);
    l1.appendChild(el('span', 'badge ' + d, d === 'admin' ? 'admin' : d));
    l1.appendChild(el('span', 'agent', r.agent));
    l1.appendChild(el('span', 'target mono', target(r)));
    if (it.result) {
      const rd = it.result.decision === 'deny' ? 'result denied' : (it.result.rationale && /redact/i.test(it.result.rationale) ? 'result redacted' : 'result allowed');
      l1.appendChild(el('span', 'result', rd));
    } else if (r.kind === 'tool_call' && r.decision === 'allow') {
      l1.appendChild(el('span', 'result', 'no result yet'));
    }
    li.appendChild(l1);
    if (r.preview) li.appendChild(el('div', 'args mono', r.preview));
    const rules = itemRules(it);
    const denied = d === 'deny' || d === 'held';
    if (denied || r.kind === 'admin') {
      const why = el('div', 'why');
      if (rules.length) why.appendChild(el('span', 'rules', rules.join(', ') + ': '));
      const rat = it.result && it.result.decision === 'deny' ? it.result.rationale : r.rationale;
      why.appendChild(document.createTextNode(rat || ''));
      li.appendChild(why);
    }
    const label = clock(r.ts) + ' UTC, ' + d + ', ' + r.agent + ', ' + target(r) + (rules.length ? ', rules ' + rules.join(', ') : '');
    li.setAttribute('aria-label', label + '. Press Enter for details.');
  }
  function open_(it) { selected = it; items.forEach(function (x) { x.el.classList.toggle('sel', x === it); }); showDrawer(it); }
  $('decisions').addEventListener('click', function (e) {
    const li = e.target.closest('li[data-audit-id]');
    if (li) { const it = byAuditId.get(li.getAttribute('data-audit-id')); if (it) open_(it); }
  });
  $('decisions').addEventListener('keydown', function (e) {
    const li = e.target.closest('li[data-audit-id]');
    if (!li) return;
    if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); const it = byAuditId.get(li.getAttribute('data-audit-id')); if (it) open_(it); }
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      let n = e.key === 'ArrowDown' ? li.nextElementSibling : li.previousElementSibling;
      while (n && n.hidden) n = e.key === 'ArrowDown' ? n.nextElementSibling : n.previousElementSibling;
      if (n) n.focus();
    }
  });

  // --- filters and pause ---------------------------------------------------------------------------------
  function filters() {
    return { decision: $('f-decision').value, agent: $('f-agent').value, tool: $('f-tool').value.trim().toLowerCase(), rule: $('f-rule').value.trim().toLowerCase(), minutes: Number($('f-time').value) };
  }
  function matches(it, f) {
    const r = it.row;
    if (f.decision && itemDecision(it) !== f.decision) return false;
    if (f.agent && r.agent !== f.agent) return false;
    if (f.tool && target(r).toLowerCase().indexOf(f.tool) === -1) return false;
    if (f.rule && !itemRules(it).concat(r.flagged || []).some(function (x) { return x.toLowerCase().indexOf(f.rule) !== -1; })) return false;
    if (f.minutes > 0 && r.ts < now() - f.minutes * 60000) return false;
    return true;
  }
  function applyFilter(it) { it.el.hidden = !matches(it, filters()); }
  function refilter() {
    const f = filters();
    let n = 0;
    items.forEach(function (it) { it.el.hidden = !matches(it, f); if (!it.el.hidden) n++; });
    shownCount(n);
  }
  function shownCount(n) {
    if (n === undefined) { n = 0; items.forEach(function (it) { if (!it.el.hidden) n++; }); }
    $('shown').textContent = 'showing ' + n + ' of ' + items.length + ' interactions' + (paused ? ' \u00b7 paused, ' + buffered.length + ' new waiting' : '');
  }
  ['f-decision', 'f-agent', 'f-time'].forEach(function (id) { $(id).addEventListener('change', refilter); });
  ['f-tool', 'f-rule'].forEach(function (id) { $(id).addEventListener('input', refilter); });
  $('clear-filters').addEventListener('click', function () { ['f-decision', 'f-agent', 'f-tool', 'f-rule'].forEach(function (id) { $(id).value = ''; }); $('f-time').value = '0'; refilter(); });
  $('pause').addEventListener('click', function () {
    paused = !paused;
    $('pause').textContent = paused ? 'Resume' : 'Pause';
    $('pause').setAttribute('aria-pressed', String(paused));
    if (!paused) { buffered.splice(0).forEach(function (r) { addDecision(r, true); }); }
    shownCount();
  });
  function addAgentOption(agent) {
    const sel = $('f-agent');
    for (let i = 0; i < sel.options.length; i++) if (sel.options[i].value === agent) return;
    const o = el('option', '', agent); o.value = agent; sel.appendChild(o);
  }
  function onlyAgent(agent) { addAgentOption(agent); $('f-agent').value = agent; refilter(); }

  // --- drawer --------------------------------------------------------------------------------------------
  function fact(dl, k, v) { dl.appendChild(el('dt', '', k)); const dd = el('dd'); if (v instanceof Node) dd.appendChild(v); else dd.textContent = v === null || v === undefined || v === '' ? '-' : String(v); dl.appendChild(dd); return dd; }
  function ruleBlock(id) {
    const box = el('div', 'rule');
    box.setAttribute('data-rule', id);
    box.appendChild(el('div', 'id mono', id));
    const info = ruleInfo(id);
    box.appendChild(el('div', 'ruletext-full', info ? info.text : 'Rule text not available here (not in the loaded policy book; see the rationale).'));
    if (info && info.severity) box.appendChild(el('div', 'legend', 'severity ' + info.severity));
    if (info && info.remediation) box.appendChild(el('div', 'legend', 'What to do instead: ' + info.remediation));
    return box;
  }
  function policyText(r) {
    if (!r.policyHash) return 'none recorded';
    if (policy.hash && policy.hash === r.policyHash) return (policy.name || 'policy') + ' ' + (policy.version || '') + ' (' + r.policyHash.slice(0, 12) + ')';
    return r.policyHash.slice(0, 12) + (policy.hash ? ' (not the running policy ' + (policy.name || '') + ' ' + (policy.version || '') + ')' : '');
  }
  function flowOf(r) { return r.flow || (r.detail && r.detail.flow) || null; }
  function showDrawer(it) {
    const r = it.row;
    const body = $('drawer-body');
    body.textContent = '';
    const d = itemDecision(it);
    $('drawer-title').textContent = (d === 'admin' ? 'Admin: ' : d === 'held' ? 'Held: ' : d === 'deny' ? 'Denied: ' : 'Allowed: ') + target(r);
    const dl = el('dl', 'facts');
    const badge = el('span', 'badge ' + d, d);
    fact(dl, 'decision', badge);
    fact(dl, 'time', fullTime(r.ts));
    const agentBox = el('span');
    agentBox.appendChild(el('b', '', r.agent + ' '));
    const only = el('button', 'plain agent-filter', 'only this agent');
    only.type = 'button';
    only.addEventListener('click', function () { onlyAgent(r.agent); });
    agentBox.appendChild(only);
    const chartLink = el('a', 'agent-chart', 'threat chart');
    chartLink.setAttribute('href', '#chart-' + r.agent.replace(/[^A-Za-z0-9_-]/g, '_'));
    chartLink.addEventListener('click', function () { $('drawer').hidden = true; selected = null; });
    agentBox.appendChild(document.createTextNode(' '));
    agentBox.appendChild(chartLink);
    const a = agents.get(r.agent);
    if (a) agentBox.appendChild(el('span', 'legend', ' level ' + a.level + ', \u03c4 ' + a.tau.toFixed(2) + (a.quarantined ? ', quarantined' : '')));
    fact(dl, 'agent', agentBox);
    fact(dl, 'session', r.session);
    fact(dl, 'kind', r.kind);
    fact(dl, 'target', target(r));
    fact(dl, 'decided by', r.source);
    fact(dl, 'threat level', r.threatLevel);
    fact(dl, 'policy', policyText(r));
    fact(dl, 'audit id', r.auditId);
    if (r.elapsedMs !== null && r.elapsedMs !== undefined) fact(dl, 'guard time', r.elapsedMs.toFixed(1) + ' ms');
    body.appendChild(dl);

    const rules = itemRules(it);
    if (rules.length) { body.appendChild(el('h3', '', rules.length > 1 ? 'Rules' : 'Rule')); rules.forEach(function (id) { body.appendChild(ruleBlock(id)); }); }
    if ((r.flagged || []).length) body.appendChild(el('p', 'legend', 'Flagged (not enforced): ' + r.flagged.join(', ')));
    body.appendChild(el('h3', '', 'Why'));
    body.appendChild(el('p', 'rationale', r.rationale));
    const ws = (r.witness || []).concat(it.result ? it.result.witness || [] : []);
    if (ws.length) {
      body.appendChild(el('h3', '', 'Witness'));
      body.appendChild(el('p', 'legend', 'A witness is the evidence: the smallest set of facts (predicate values) that makes the rule\u2019s formula false. "unknown" means the guard could not decide that fact.'));
      const ul = el('ul', 'witness');
      ws.forEach(function (w) {
        const li = el('li', 'mono');
        li.textContent = w.rule + ': ' + Object.keys(w.predicates || {}).map(function (p) { return p + ' = ' + w.predicates[p]; }).join(', ') + (w.confidence < 1 ? ' (confidence ' + w.confidence.toFixed(2) + ')' : '');
        ul.appendChild(li);
      });
      body.appendChild(ul);
    }
    const flow = flowOf(r);
    if (flow) { body.appendChild(el('h3', '', 'Data flow')); body.appendChild(el('pre', 'flow', typeof flow === 'string' ? flow : JSON.stringify(flow, null, 2))); }
    const argsH = el('h3', '', r.kind === 'tool_call' || r.kind === 'prompt_request' || (r.kind === 'resource_read' && r.uri && r.uri.indexOf('prompt:') === 0) ? 'Arguments (secrets masked)' : 'Content (secrets masked)');
    body.appendChild(argsH);
    const pre = el('pre', 'payload', r.preview || '(none recorded)');
    body.appendChild(pre);
    if (r.kind !== 'admin') {
      api('GET', '/decisions/' + encodeURIComponent(r.auditId)).then(function (x) {
        if (selected !== it || !x.interaction) return;
        const i = x.interaction;
        const v = i.arguments !== undefined ? i.arguments : i.content !== undefined ? i.content : null;
        if (v !== null) pre.textContent = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
        if (i.sender) pre.textContent = 'from ' + i.sender + ' to ' + (i.recipient || '?') + ':\n' + pre.textContent;
        if (x.truncated) body.insertBefore(el('p', 'legend', 'Long values were cut when recorded.'), pre.nextSibling);
      }, function () { /* the preview stays */ });
    }
    if (it.result) {
      body.appendChild(el('h3', '', 'Result'));
      const rl = el('dl', 'facts');
      fact(rl, 'decision', el('span', 'badge ' + it.result.decision, it.result.decision));
      fact(rl, 'time', fullTime(it.result.ts));
      fact(rl, 'why', it.result.rationale);
      fact(rl, 'audit id', it.result.auditId);
      body.appendChild(rl);
      if (it.result.preview) body.appendChild(el('pre', 'result-preview', it.result.preview));
    }
    $('drawer').hidden = false;
    if (!$('drawer').contains(document.activeElement)) $('drawer-close').focus();
  }
  function closeDrawer() {
    $('drawer').hidden = true;
    const back = selected;
    selected = null;
    items.forEach(function (x) { x.el.classList.remove('sel'); });
    if (back && back.el.isConnected) back.el.focus();
  }
  $('drawer-close').addEventListener('click', closeDrawer);
  document.addEventListener('keydown', function (e) { if (e.key === 'Escape' && !$('drawer').hidden) { e.preventDefault(); closeDrawer(); } });

  // --- threat charts: one shared time axis, stepped, with level bands ------------------------------------
  const W = 360, H = 104, L = 22, R = 4, T = 6, B = 20;
  function y(level) { return T + (4 - level) * ((H - T - B) / 4); }
  function point(agent, ts, level) {
    let s = series.get(agent);
    if (!s) { s = []; series.set(agent, s); }
    s.push({ ts: ts, level: level });
    if (s.length > MAX_POINTS) s.splice(0, s.length - MAX_POINTS);
    chartsDirty = true;
  }
  function chartFor(agent) {
    let c = charts.get(agent);
    if (c) return c;
    const box = el('div', 'chart');
    box.setAttribute('data-agent', agent);
    box.id = 'chart-' + agent.replace(/[^A-Za-z0-9_-]/g, '_');
    const head = el('div', 'head');
    const name = el('button', 'plain name', agent);
    name.type = 'button';
    name.title = 'show only ' + agent + '\u2019s decisions';
    name.addEventListener('click', function () { onlyAgent(agent); });
    const info = el('span', 'info');
    head.appendChild(name); head.appendChild(info);
    const plot = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img' });
    plot.setAttribute('aria-label', 'threat level (0 to 4) of ' + agent + ' over time');
    box.appendChild(head); box.appendChild(plot);
    $('threat').appendChild(box);
    $('threat-empty').hidden = true;
    c = { box: box, info: info, plot: plot };
    charts.set(agent, c);
    return c;
  }
  function axis() {
    let t0 = Infinity;
    series.forEach(function (s) { if (s.length) t0 = Math.min(t0, s[0].ts); });
    const t1 = now();
    if (!isFinite(t0)) t0 = t1 - 60000;
    if (t1 - t0 < 60000) t0 = t1 - 60000;
    return { t0: t0, t1: t1 };
  }
  function drawChart(agent, ax) {
    const c = chartFor(agent);
    const pts = series.get(agent) || [];
    const a = agents.get(agent);
    const lvl = a ? a.level : (pts.length ? pts[pts.length - 1].level : 0);
    c.info.textContent = '';
    c.info.appendChild(el('span', 'lvl lvl-' + lvl, 'level ' + lvl));
    if (a) { const tau = el('span', '', ' \u00b7 \u03c4 ' + a.tau.toFixed(2) + ' '); tau.title = '\u03c4: threat score 0\u20131'; c.info.appendChild(tau); }
    if (a && a.quarantined) c.info.appendChild(el('span', 'q', 'quarantined'));
    const p = c.plot;
    while (p.firstChild) p.removeChild(p.firstChild);
    const x = function (ts) { return L + ((ts - ax.t0) / Math.max(1, ax.t1 - ax.t0)) * (W - L - R); };
    // Level bands: 0-1 green, 2 amber, 3-4 red.
    p.appendChild(svg('rect', { x: L, y: y(1.5), width: W - L - R, height: y(-0.5) - y(1.5), fill: '#e6f4ea', 'class': 'band band-low' }));
    p.appendChild(svg('rect', { x: L, y: y(2.5), width: W - L - R, height: y(1.5) - y(2.5), fill: '#fdf1dc', 'class': 'band band-mid' }));
    p.appendChild(svg('rect', { x: L, y: y(4.5), width: W - L - R, height: y(2.5) - y(4.5), fill: '#fbe4e2', 'class': 'band band-high' }));
    for (let g = 0; g <= 4; g++) {
      p.appendChild(svg('line', { x1: L, x2: W - R, y1: y(g), y2: y(g), stroke: '#c9ced6', 'stroke-width': 0.5 }));
      p.appendChild(svg('text', { x: L - 6, y: y(g) + 3.5, 'text-anchor': 'end' }, String(g)));
    }
    
    [ax.t0, (ax.t0 + ax.t1) / 2, ax.t1].forEach(function (ts, i) {
      p.appendChild(svg('line', { x1: x(ts), x2: x(ts), y1: H - B, y2: H - B + 3, stroke: '#4f5966' }));
      p.appendChild(svg('text', { x: x(ts), y: H - 6, 'text-anchor': i === 0 ? 'start' : i === 2 ? 'end' : 'middle', 'class': 'tick' }, clock(ts) + (i === 2 ? ' UTC' : '')));
    });
    p.appendChild(svg('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: '#4f5966' }));
    if (pts.length === 0) return;
    // Stepped: a level holds until the next change (horizontal, then vertical), drawn up to now.
    let d = 'M' + x(pts[0].ts).toFixed(1) + ' ' + y(pts[0].level).toFixed(1);
    for (let i = 1; i < pts.length; i++) d += ' H' + x(pts[i].ts).toFixed(1) + ' V' + y(pts[i].level).toFixed(1);
    d += ' H' + x(ax.t1).toFixed(1);
    p.appendChild(svg('path', { d: d, fill: 'none', stroke: '#1f4fbf', 'stroke-width': 2, 'class': 'threat-line' }));
    const last = pts[pts.length - 1];
    p.appendChild(svg('circle', { cx: x(last.ts).toFixed(1), cy: y(last.level).toFixed(1), r: 3, fill: lvl >= 3 ? '#b3261e' : '#1f4fbf' }));
  }
  function redraw() {
    if (chartsDirty) {
      chartsDirty = false;
      const ax = axis();
      const names = new Set(series.keys());
      agents.forEach(function (_a, k) { names.add(k); });
      names.forEach(function (n) { drawChart(n, ax); });
    }
    requestAnimationFrame(redraw);
  }

  // --- agents and quarantine -----------------------------------------------------------------------------
  function upsertAgent(a) {
    agents.set(a.agent, a);
    chartsDirty = true;
    addAgentOption(a.agent);
    renderQuarantine();
  }
  function renderQuarantine() {
    const ul = $('quarantined');
    ul.textContent = '';
    let n = 0;
    agents.forEach(function (a) {
      if (!a.quarantined) return;
      n++;
      const li = el('li');
      li.setAttribute('data-agent', a.agent);
      li.appendChild(el('span', 'name', a.agent));
      const actions = el('span', 'actions');
      const b = el('button', 'release', 'Release');
      b.type = 'button';
      b.setAttribute('aria-label', 'Release ' + a.agent);
      b.addEventListener('click', function () {
        act(b, 'POST', '/agents/' + encodeURIComponent(a.agent) + '/release', undefined, function (d) { upsertAgent(d.agent); });
      });
      actions.appendChild(b);
      li.appendChild(actions);
      li.appendChild(el('span', 'sub', (a.reason || 'no reason') + (a.updatedAt ? ' \u00b7 since ' + fullTime(a.updatedAt) : '')));
      const show = el('button', 'plain full', 'show its decisions');
      show.type = 'button';
      show.addEventListener('click', function () { onlyAgent(a.agent); });
      li.appendChild(show);
      ul.appendChild(li);
    });
    $('quarantined-empty').hidden = n > 0;
    counts();
  }

  // --- tool pins: old and new definition side by side ----------------------------------------------------
  function parseDef(s) { try { return JSON.parse(s || '{}'); } catch (e) { return {}; } }
  function lineDiff(a, b) {
    const A = a.split('\n'), Bn = b.split('\n');
    if (A.length * Bn.length > 250000) return A.map(function (l) { return ['-', l]; }).concat(Bn.map(function (l) { return ['+', l]; }));
    const m = A.length, n = Bn.length;
    const dp = [];
    for (let i = 0; i <= m; i++) { dp.push(new Array(n + 1).fill(0)); }
    for (let i = m - 1; i >= 0; i--) for (let j = n - 1; j >= 0; j--) dp[i][j] = A[i] === Bn[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    const out = [];
    let i = 0, j = 0;
    while (i < m && j < n) {
      if (A[i] === Bn[j]) { out.push([' ', A[i]]); i++; j++; }
      else if (dp[i + 1][j] >= dp[i][j + 1]) { out.push(['-', A[i]]); i++; }
      else { out.push(['+', Bn[j]]); j++; }
    }
    while (i < m) out.push(['-', A[i++]]);
    while (j < n) out.push(['+', Bn[j++]]);
    return out;
  }
  function diffBlock(title, before, after) {
    const box = el('div', 'diff');
    box.appendChild(el('h3', '', title));
    const pre = el('pre');
    if (before === after) { pre.appendChild(el('span', 'same', '(unchanged) ' + before)); box.appendChild(pre); return box; }
    lineDiff(before, after).forEach(function (x) { pre.appendChild(el('span', x[0] === '-' ? 'del' : x[0] === '+' ? 'add' : 'same', x[0] + ' ' + x[1])); });
    box.appendChild(pre);
    return box;
  }
  function upsertPin(p) {
    const key = p.server + '__' + p.tool;
    if (p.status === 'pending') pins.set(key, p); else pins.delete(key);
    const ul = $('pins');
    ul.textContent = '';
    pins.forEach(function (pin, k) {
      const li = el('li');
      li.setAttribute('data-pin', k);
      li.appendChild(el('span', 'name mono', k));
      const actions = el('span', 'actions');
      const b = el('button', 'approve-pin', 'Approve');
      b.type = 'button';
      b.setAttribute('aria-label', 'Approve the new definition of ' + k);
      b.addEventListener('click', function () {
        act(b, 'POST', '/pins/' + encodeURIComponent(pin.server) + '/' + encodeURIComponent(pin.tool) + '/approve', { hash: pin.pendingHash }, function (d) { upsertPin(d.pin); });
      });
      actions.appendChild(b);
      li.appendChild(actions);
      li.appendChild(el('span', 'sub', 'Hidden from agents until approved. Changed ' + fullTime(pin.updatedAt) + '; red lines are the approved definition, green the new one.'));
      const oldDef = parseDef(pin.definition), newDef = parseDef(pin.pendingDefinition);
      const box = el('div', 'full pin-diff');
      box.appendChild(diffBlock('description', String(oldDef.description || ''), String(newDef.description || '')));
      const rest = function (d) { return JSON.stringify({ title: d.title, inputSchema: d.inputSchema, outputSchema: d.outputSchema, annotations: d.annotations }, null, 2); };
      box.appendChild(diffBlock('schema and annotations', rest(oldDef), rest(newDef)));
      li.appendChild(box);
      li.appendChild(el('span', 'sub mono', 'hash ' + pin.hash.slice(0, 12) + ' \u2192 ' + String(pin.pendingHash || '').slice(0, 12)));
      ul.appendChild(li);
    });
    $('pins-empty').hidden = pins.size > 0;
    counts();
  }

  // --- approvals: the rule's text, what came before, a countdown -----------------------------------------
  function upsertApproval(a) {
    if (a.status === 'pending' && a.expires > now()) approvals.set(a.id, a); else approvals.delete(a.id);
    renderApprovals();
  }
  function triggerOf(a) {
    const recent = recentBySession.get(a.session) || [];
    // The interaction before the held call in the same session: often the read that made the call risky.
    let held = -1;
    for (let i = recent.length - 1; i >= 0; i--) if (recent[i].ts <= a.created + 1000 && isHeld(recent[i])) { held = i; break; }
    const before = held > 0 ? recent[held - 1] : null;
    return before;
  }
  function renderApprovals() {
    const ul = $('approvals');
    ul.textContent = '';
    approvals.forEach(function (a) {
      const li = el('li');
      li.setAttribute('data-approval-id', a.id);
      const what = (a.server && a.tool ? a.server + '__' + a.tool : (a.tool || a.server || '-'));
      li.appendChild(el('span', 'name', a.agent + ' \u2192 ' + what));
      const actions = el('span', 'actions');
      const ok = el('button', 'approve', 'Approve');
      const no = el('button', 'deny secondary', 'Deny');
      ok.type = 'button'; no.type = 'button';
      ok.setAttribute('aria-label', 'Approve held call ' + a.id);
      no.setAttribute('aria-label', 'Deny held call ' + a.id);
      ok.addEventListener('click', function () { no.disabled = true; act(ok, 'POST', '/approvals/' + encodeURIComponent(a.id) + '/approve', undefined, function (d) { upsertApproval(d.approval); }); });
      no.addEventListener('click', function () { ok.disabled = true; act(no, 'POST', '/approvals/' + encodeURIComponent(a.id) + '/deny', undefined, function (d) { upsertApproval(d.approval); }); });
      actions.appendChild(ok); actions.appendChild(no);
      li.appendChild(actions);
      (a.rules || []).forEach(function (id) {
        const info = ruleInfo(id);
        const rt = el('div', 'ruletext');
        rt.appendChild(el('b', 'mono', id + ': '));
        rt.appendChild(document.createTextNode(info ? info.text : a.rationale));
        li.appendChild(rt);
      });
      li.appendChild(el('span', 'sub', 'arguments'));
      li.appendChild(el('pre', 'full held-args', a.preview || '(none)'));
      const trig = triggerOf(a);
      if (trig) {
        const tb = el('button', 'plain full trigger', 'after: ' + clock(trig.ts) + ' UTC ' + trig.kind.replace('_', ' ') + ' ' + target(trig) + ' (' + trig.decision + ')');
        tb.type = 'button';
        tb.addEventListener('click', function () { const it = byAuditId.get(trig.auditId); if (it) open_(it); });
        li.appendChild(tb);
      }
      const cd = el('span', 'sub');
      cd.appendChild(document.createTextNode('expires in '));
      const left = el('span', 'countdown', duration(a.expires - now()));
      left.setAttribute('data-expires', String(a.expires));
      cd.appendChild(left);
      cd.appendChild(document.createTextNode(' (at ' + clock(a.expires) + ' UTC) \u00b7 held ' + fullTime(a.created) + ' \u00b7 ' + a.id));
      li.appendChild(cd);
      ul.appendChild(li);
    });
    $('approvals-empty').hidden = approvals.size > 0;
    counts();
  }

  function counts() {
    let q = 0, denied = 0, held = 0;
    agents.forEach(function (a) { if (a.quarantined) q++; });
    items.forEach(function (it) { const d = itemDecision(it); if (d === 'deny') denied++; if (d === 'held') held++; });
    const box = $('counts');
    box.textContent = '';
    const add = function (n, label, hot, id) { const s = el('span', hot && n > 0 ? 'hot' : '', n + ' ' + label); s.id = id; box.appendChild(s); };
    add(approvals.size, 'waiting approval', true, 'count-held');
    add(q, 'quarantined', true, 'count-quarantined');
    add(pins.size, 'changed tools', true, 'count-pins');
    add(denied, 'denied', false, 'count-denied');
    const need = approvals.size + q + pins.size;
    document.title = (need > 0 ? '(' + need + ') ' : '') + 'QuadGuard';
    shownCount();
  }

  // --- wiring --------------------------------------------------------------------------------------------
  function incoming(r) { if (paused) { buffered.push(r); shownCount(); } else addDecision(r, true); }
  function listen() {
    if (source) source.close();
    source = new EventSource(API + '/stream?after=' + lastId + '&token=' + encodeURIComponent(token));
    source.onopen = function () { status('live', 'live'); };
    source.onerror = function () {
      status('reconnecting\u2026', 'error');
      if (source && source.readyState === EventSource.CLOSED) {
        setTimeout(function () { api('GET', '/snapshot').then(function () { listen(); }, function () { /* askToken shown */ }); }, 1000);
      }
    };
    source.addEventListener('decision', function (e) { incoming(JSON.parse(e.data)); });
    source.addEventListener('agent', function (e) { upsertAgent(JSON.parse(e.data)); });
    source.addEventListener('approval', function (e) { upsertApproval(JSON.parse(e.data)); });
    source.addEventListener('pin', function (e) { upsertPin(JSON.parse(e.data)); });
  }
  function start() {
    $('login').hidden = true;
    status('loading\u2026');
    api('GET', '/snapshot').then(function (snap) {
      $('main').hidden = false;
      if (snap.policy) policy = snap.policy;
      if (typeof snap.now === 'number') skew = snap.now - Date.now();
      snap.agents.forEach(function (a) { agents.set(a.agent, a); addAgentOption(a.agent); });
      snap.decisions.forEach(function (r) { addDecision(r, false); });
      lastId = Math.max(lastId, snap.lastId);
      snap.pins.forEach(upsertPin);
      snap.approvals.forEach(upsertApproval);
      renderQuarantine();
      chartsDirty = true;
      listen();
    }, function (err) { if (token) status(String(err.message || err), 'error'); });
  }

  setInterval(function () {
    const t = now();
    let changed = false;
    approvals.forEach(function (a, id) { if (a.expires <= t) { approvals.delete(id); changed = true; } });
    if (changed) renderApprovals();
    document.querySelectorAll('.countdown[data-expires]').forEach(function (e) { e.textContent = duration(Number(e.getAttribute('data-expires')) - t); });
  }, 1000);
  setInterval(function () { chartsDirty = true; if (Number($('f-time').value) > 0) refilter(); }, 5000);
  requestAnimationFrame(redraw);
  token = readToken();
  if (token) start(); else askToken();
})();
`;
