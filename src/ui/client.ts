/**
 * The live view's browser script, served as `/ui/live.js` (vanilla ES2020, no framework, no CDN). It keeps the
 * token in memory and sessionStorage (and removes it from the address bar), loads a snapshot, then follows the
 * SSE stream. Every value from the store is written with `textContent` or `setAttribute`, never as markup.
 * Kept as a string so the built package serves it without a bundler; a test parses it.
 */
export const CLIENT_JS = String.raw`(function () {
  'use strict';
  var API = '/ui/api';
  var KEY = 'quadguard-ui-token';
  var MAX_ROWS = 500;
  var MAX_POINTS = 120;
  var SVGNS = 'http://www.w3.org/2000/svg';
  var token = null;
  var lastId = 0;
  var source = null;
  var agents = new Map();
  var approvals = new Map();
  var pins = new Map();
  var series = new Map();
  var charts = new Map();
  var dirty = new Set();
  var rows = 0;

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, String(attrs[k])); });
    return e;
  }
  function pad(n, w) { return String(n).padStart(w, '0'); }
  function clock(ms) {
    var d = new Date(ms);
    return pad(d.getHours(), 2) + ':' + pad(d.getMinutes(), 2) + ':' + pad(d.getSeconds(), 2) + '.' + pad(d.getMilliseconds(), 3);
  }
  function status(text, cls) { var s = $('status'); s.textContent = text; s.className = cls || ''; }
  function target(r) {
    if (r.kind === 'admin') return (r.tool || '') + (r.server ? ' ' + r.server : '');
    if (r.uri) return r.uri;
    if (r.server || r.tool) return (r.server || '') + '__' + (r.tool || '');
    return r.recipient ? '\u2192 ' + r.recipient : '-';
  }
  function witnessText(ws) {
    var out = [];
    (ws || []).forEach(function (w) {
      Object.keys(w.predicates || {}).forEach(function (p) {
        var v = w.predicates[p];
        var t = v === 'true' ? p : p + '=' + v;
        if (out.indexOf(t) === -1) out.push(t);
      });
    });
    return out.join(', ');
  }

  // --- token ---------------------------------------------------------------------------------------------
  function readToken() {
    var params = new URLSearchParams(location.search);
    var t = params.get('token');
    if (t) {
      params.delete('token');
      var q = params.toString();
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
    $('login').hidden = false;
    status(message || 'token required', 'error');
  }
  $('token-save').addEventListener('click', function () {
    var t = $('token-input').value.trim();
    if (!t) return;
    token = t;
    try { sessionStorage.setItem(KEY, t); } catch (e) { /* memory only */ }
    $('token-input').value = '';
    start();
  });

  function api(method, path, body) {
    var init = { method: method, headers: { authorization: 'Bearer ' + token } };
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

  // --- decisions -----------------------------------------------------------------------------------------
  function addDecision(r, fresh) {
    if (r.id <= lastId) return;
    lastId = r.id;
    var tr = el('tr', fresh ? 'fresh' : '');
    if (r.kind === 'admin') tr.classList.add('admin');
    tr.setAttribute('data-audit-id', r.auditId);
    tr.setAttribute('data-decision', r.decision);
    tr.appendChild(el('td', 'mono', clock(r.ts)));
    var held = r.source === 'approval' && r.decision === 'deny' && r.kind !== 'admin';
    var badge = el('span', 'badge ' + (held ? 'held' : r.decision), held ? 'held' : r.decision);
    var td = el('td'); td.appendChild(badge); tr.appendChild(td);
    tr.appendChild(el('td', 'agent', r.agent));
    tr.appendChild(el('td', '', r.kind));
    tr.appendChild(el('td', 'mono target', target(r)));
    tr.appendChild(el('td', 'mono rules', (r.rules || []).concat((r.flagged || []).map(function (f) { return f + ' (flag)'; })).join(', ')));
    tr.appendChild(el('td', 'mono witness', witnessText(r.witness)));
    var why = el('td', 'rationale', r.rationale);
    why.title = r.rationale;
    tr.appendChild(why);
    var body = $('decisions').tBodies[0];
    body.insertBefore(tr, body.firstChild);
    rows++;
    while (rows > MAX_ROWS) { body.removeChild(body.lastChild); rows--; }
    $('decisions-empty').hidden = true;
    var level = typeof r.threatLevel === 'number' ? r.threatLevel : (r.kind === 'admin' && r.tool === 'release' ? 0 : null);
    if (level !== null) point(r.agent, r.ts, level);
  }

  // --- threat charts -------------------------------------------------------------------------------------
  function point(agent, ts, level) {
    var s = series.get(agent);
    if (!s) { s = []; series.set(agent, s); }
    s.push({ ts: ts, level: level });
    if (s.length > MAX_POINTS) s.splice(0, s.length - MAX_POINTS);
    dirty.add(agent);
  }
  function chartFor(agent) {
    var c = charts.get(agent);
    if (c) return c;
    var box = el('div', 'chart');
    box.setAttribute('data-agent', agent);
    var head = el('div', 'head');
    var name = el('span', 'name', agent);
    var info = el('span', 'info');
    head.appendChild(name); head.appendChild(info);
    var plot = svg('svg', { viewBox: '0 0 300 56', preserveAspectRatio: 'none', role: 'img' });
    plot.setAttribute('aria-label', 'threat level of ' + agent);
    box.appendChild(head); box.appendChild(plot);
    $('threat').appendChild(box);
    $('threat-empty').hidden = true;
    c = { box: box, info: info, plot: plot };
    charts.set(agent, c);
    return c;
  }
  function y(level) { return 50 - level * 11; }
  function drawChart(agent) {
    var c = chartFor(agent);
    var pts = series.get(agent) || [];
    var a = agents.get(agent);
    var lvl = a ? a.level : (pts.length ? pts[pts.length - 1].level : 0);
    c.info.textContent = '';
    var l = el('span', 'lvl lvl-' + lvl, 'level ' + lvl);
    c.info.appendChild(l);
    if (a) c.info.appendChild(document.createTextNode(' \u00b7 \u03c4 ' + a.tau.toFixed(2) + ' '));
    if (a && a.quarantined) c.info.appendChild(el('span', 'q', 'quarantined'));
    while (c.plot.firstChild) c.plot.removeChild(c.plot.firstChild);
    for (var g = 0; g <= 4; g++) c.plot.appendChild(svg('line', { x1: 0, x2: 300, y1: y(g), y2: y(g), stroke: g === 0 ? '#c9ced6' : '#eceef1', 'stroke-width': 1 }));
    if (pts.length === 0) return;
    var t0 = pts[0].ts, t1 = pts[pts.length - 1].ts, span = Math.max(1, t1 - t0);
    // One point is drawn as a flat line (the level so far); equal times are spread evenly.
    var shown = pts.length === 1 ? [{ ts: t0 - 1, level: pts[0].level }, pts[0]] : pts;
    if (pts.length === 1) { t0 -= 1; span = 1; }
    var coords = shown.map(function (p, i) {
      var x = 4 + ((p.ts - t0) / span) * 292;
      if (t1 === t0 && shown.length > 1 && pts.length > 1) x = 4 + (i / (shown.length - 1)) * 292;
      return x.toFixed(1) + ',' + y(p.level).toFixed(1);
    });
    c.plot.appendChild(svg('polyline', { points: coords.join(' '), fill: 'none', stroke: '#2f5fd0', 'stroke-width': 1.5, 'class': 'threat-line' }));
    var last = coords[coords.length - 1].split(',');
    c.plot.appendChild(svg('circle', { cx: last[0], cy: last[1], r: 2.5, fill: lvl >= 3 ? '#c62828' : '#2f5fd0' }));
  }
  function redraw() {
    dirty.forEach(drawChart);
    dirty.clear();
    requestAnimationFrame(redraw);
  }

  // --- agents and quarantine -----------------------------------------------------------------------------
  function upsertAgent(a) {
    agents.set(a.agent, a);
    dirty.add(a.agent);
    renderQuarantine();
  }
  function renderQuarantine() {
    var ul = $('quarantined');
    ul.textContent = '';
    var n = 0;
    agents.forEach(function (a) {
      if (!a.quarantined) return;
      n++;
      var li = el('li');
      li.setAttribute('data-agent', a.agent);
      li.appendChild(el('span', 'name', a.agent));
      var actions = el('span', 'actions');
      var b = el('button', 'release', 'Release');
      b.type = 'button';
      b.addEventListener('click', function () {
        act(b, 'POST', '/agents/' + encodeURIComponent(a.agent) + '/release', undefined, function (d) { upsertAgent(d.agent); });
      });
      actions.appendChild(b);
      li.appendChild(actions);
      li.appendChild(el('span', 'sub', (a.reason || 'no reason') + (a.updatedAt ? ' \u00b7 since ' + new Date(a.updatedAt).toLocaleString() : '')));
      ul.appendChild(li);
    });
    $('quarantined-empty').hidden = n > 0;
    counts();
  }

  // --- tool pins -----------------------------------------------------------------------------------------
  function upsertPin(p) {
    var key = p.server + '__' + p.tool;
    if (p.status === 'pending') pins.set(key, p); else pins.delete(key);
    var ul = $('pins');
    ul.textContent = '';
    pins.forEach(function (pin, k) {
      var li = el('li');
      li.setAttribute('data-pin', k);
      li.appendChild(el('span', 'name mono', k));
      var actions = el('span', 'actions');
      var b = el('button', 'approve-pin', 'Approve');
      b.type = 'button';
      b.addEventListener('click', function () {
        act(b, 'POST', '/pins/' + encodeURIComponent(pin.server) + '/' + encodeURIComponent(pin.tool) + '/approve', { hash: pin.pendingHash }, function (d) { upsertPin(d.pin); });
      });
      actions.appendChild(b);
      li.appendChild(actions);
      li.appendChild(el('span', 'sub mono', 'definition changed: ' + pin.hash.slice(0, 12) + ' \u2192 ' + String(pin.pendingHash || '').slice(0, 12)));
      ul.appendChild(li);
    });
    $('pins-empty').hidden = pins.size > 0;
    counts();
  }

  // --- approvals -----------------------------------------------------------------------------------------
  function upsertApproval(a) {
    if (a.status === 'pending' && a.expires > Date.now()) approvals.set(a.id, a); else approvals.delete(a.id);
    renderApprovals();
  }
  function renderApprovals() {
    var ul = $('approvals');
    ul.textContent = '';
    approvals.forEach(function (a) {
      var li = el('li');
      li.setAttribute('data-approval-id', a.id);
      var what = (a.server && a.tool ? a.server + '__' + a.tool : (a.tool || a.server || '-'));
      li.appendChild(el('span', 'name', a.agent + ' \u2192 ' + what));
      var actions = el('span', 'actions');
      var ok = el('button', 'approve', 'Approve');
      var no = el('button', 'deny secondary', 'Deny');
      ok.type = 'button'; no.type = 'button';
      ok.addEventListener('click', function () { no.disabled = true; act(ok, 'POST', '/approvals/' + encodeURIComponent(a.id) + '/approve', undefined, function (d) { upsertApproval(d.approval); }); });
      no.addEventListener('click', function () { ok.disabled = true; act(no, 'POST', '/approvals/' + encodeURIComponent(a.id) + '/deny', undefined, function (d) { upsertApproval(d.approval); }); });
      actions.appendChild(ok); actions.appendChild(no);
      li.appendChild(actions);
      li.appendChild(el('span', 'sub mono', a.preview || ''));
      li.appendChild(el('span', 'sub', 'rules ' + a.rules.join(', ') + ' \u00b7 ' + a.id + ' \u00b7 expires ' + new Date(a.expires).toLocaleTimeString()));
      ul.appendChild(li);
    });
    $('approvals-empty').hidden = approvals.size > 0;
    counts();
  }

  function counts() {
    var q = 0;
    agents.forEach(function (a) { if (a.quarantined) q++; });
    $('counts').textContent = approvals.size + ' held \u00b7 ' + q + ' quarantined \u00b7 ' + pins.size + ' changed tools';
  }

  // --- wiring --------------------------------------------------------------------------------------------
  function listen() {
    if (source) source.close();
    source = new EventSource(API + '/stream?after=' + lastId + '&token=' + encodeURIComponent(token));
    source.onopen = function () { status('live', 'live'); };
    source.onerror = function () {
      status('reconnecting\u2026', 'error');
      if (source && source.readyState === EventSource.CLOSED) {
        // The server refused the stream (e.g. the token changed): check, then retry from where we were.
        setTimeout(function () { api('GET', '/snapshot').then(function () { listen(); }, function () { /* askToken shown */ }); }, 1000);
      }
    };
    source.addEventListener('decision', function (e) { addDecision(JSON.parse(e.data), true); });
    source.addEventListener('agent', function (e) { upsertAgent(JSON.parse(e.data)); });
    source.addEventListener('approval', function (e) { upsertApproval(JSON.parse(e.data)); });
    source.addEventListener('pin', function (e) { upsertPin(JSON.parse(e.data)); });
  }
  function start() {
    $('login').hidden = true;
    status('loading\u2026');
    api('GET', '/snapshot').then(function (snap) {
      $('main').hidden = false;
      snap.agents.forEach(function (a) { agents.set(a.agent, a); dirty.add(a.agent); });
      snap.decisions.forEach(function (r) { addDecision(r, false); });
      lastId = Math.max(lastId, snap.lastId);
      snap.pins.forEach(upsertPin);
      snap.approvals.forEach(upsertApproval);
      renderQuarantine();
      listen();
    }, function (err) { if (token) status(String(err.message || err), 'error'); });
  }

  setInterval(function () {
    var now = Date.now(), changed = false;
    approvals.forEach(function (a, id) { if (a.expires <= now) { approvals.delete(id); changed = true; } });
    if (changed) renderApprovals();
  }, 5000);
  requestAnimationFrame(redraw);
  token = readToken();
  if (token) start(); else askToken();
})();
`;
