/**
 * The live view page: one static HTML document with inline CSS and no data in it. Everything it shows is
 * fetched by `/ui/live.js` and written with `textContent` (audit rows carry injection payloads and markup on
 * purpose). The Content-Security-Policy allows only same-origin script, so even a slip could not run inline code.
 *
 * Built for triage: what needs a person (held calls, quarantined agents, changed tools) comes first; the
 * decisions list has one row per interaction (a call and its result together), filters and a pause; a click (or
 * Enter) on a row opens a drawer with the arguments, the rules' text, the witness and the policy version.
 * Colours meet WCAG AA (4.5:1) for text and badges; the layout works down to 390 px wide. All times are UTC.
 */

/** The tab icon (a shield), served as /ui/favicon.svg so browsers do not 404 on a favicon. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 2 4 7v8c0 7.5 5.1 13.2 12 15 6.9-1.8 12-7.5 12-15V7z" fill="#1f3b73"/><path d="m10 16 4 4 8-9" fill="none" stroke="#fff" stroke-width="3"/></svg>`;

export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="/ui/favicon.svg" type="image/svg+xml">
<title>QuadGuard</title>
<style>
  :root { --bg: #f4f5f7; --card: #fff; --ink: #1b2029; --muted: #4f5966; --line: #d5dae0;
          --allow: #116329; --deny: #b3261e; --held: #8a4b00; --admin: #4b5563; --accent: #1f4fbf; }
  [hidden] { display: none !important; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
  header { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 14px; padding: 10px 16px; background: #16202c; color: #fff; }
  header h1 { font-size: 17px; margin: 0; font-weight: 600; }
  #status { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: #3a4655; color: #fff; }
  #status.live { background: var(--allow); }
  #status.error { background: var(--deny); }
  #counts { display: flex; flex-wrap: wrap; gap: 6px; margin-left: auto; font-size: 12px; }
  #counts span { background: #2c3a4b; color: #fff; border-radius: 10px; padding: 2px 8px; white-space: nowrap; }
  #counts span.hot { background: var(--deny); }
  #service li.bad .sub, #service li.bad .name { color: var(--deny); }
  main { display: grid; grid-template-columns: minmax(300px, 400px) minmax(0, 1fr); gap: 14px; padding: 14px 16px; }
  section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; min-width: 0; }
  section h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 0 0 8px; }
  .side { display: flex; flex-direction: column; gap: 14px; min-width: 0; }
  .empty { color: var(--muted); font-style: italic; margin: 4px 0; }
  .note { color: var(--muted); font-size: 12px; margin: 4px 0 8px; }
  ul.items { list-style: none; margin: 0; padding: 0; }
  ul.items > li { border-top: 1px solid var(--line); padding: 8px 0; display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 4px 10px; }
  ul.items > li:first-child { border-top: 0; }
  .name { font-weight: 600; overflow-wrap: anywhere; }
  .sub { grid-column: 1 / -1; color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
  .full { grid-column: 1 / -1; min-width: 0; }
  .ruletext { grid-column: 1 / -1; font-size: 13px; border-left: 3px solid var(--held); padding-left: 8px; }
  .countdown { font-weight: 600; color: var(--held); }
  .actions { display: flex; gap: 6px; align-items: start; }
  button { font: inherit; font-size: 13px; padding: 5px 12px; min-height: 32px; border-radius: 5px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
  button.secondary { background: #fff; color: var(--deny); border-color: var(--deny); }
  button.plain { background: #fff; color: var(--accent); }
  button:disabled { opacity: .6; cursor: default; }
  :focus-visible { outline: 3px solid #f0a000; outline-offset: 2px; }
  code, .mono, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; background: #f6f8fa; border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px; max-height: 320px; overflow: auto; }
  .diff .del { background: #ffebe9; color: #82071e; display: block; }
  .diff .add { background: #dafbe1; color: #0f5323; display: block; }
  .diff .same { color: var(--muted); display: block; }
  .diff h3 { font-size: 12px; margin: 6px 0 2px; color: var(--muted); }
  .chart { border-top: 1px solid var(--line); padding: 6px 0; }
  .chart:first-of-type { border-top: 0; }
  .chart .head { display: flex; justify-content: space-between; gap: 8px; font-size: 12px; }
  .chart svg { display: block; width: 100%; height: auto; }
  .chart svg text { font-size: 10.5px; fill: #4f5966; font-family: system-ui, sans-serif; }
  .lvl { font-weight: 600; }
  .lvl-0, .lvl-1 { color: var(--allow); } .lvl-2 { color: var(--held); } .lvl-3, .lvl-4 { color: var(--deny); }
  .q { color: #fff; background: var(--deny); border-radius: 4px; padding: 0 5px; font-size: 11px; }
  .badge { display: inline-block; white-space: nowrap; font-size: 11px; font-weight: 700; text-transform: uppercase; padding: 1px 6px; border-radius: 4px; color: #fff; }
  .badge.allow { background: var(--allow); } .badge.deny { background: var(--deny); } .badge.held { background: var(--held); } .badge.admin { background: var(--admin); }
  #filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin-bottom: 8px; }
  #filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); min-width: 0; flex: 1 1 120px; }
  #filters select, #filters input { font: inherit; font-size: 13px; padding: 4px 6px; min-height: 32px; border: 1px solid #8a94a0; border-radius: 4px; min-width: 0; width: 100%; background: #fff; color: var(--ink); }
  #filters .buttons { display: flex; gap: 6px; flex: 0 0 auto; }
  #shown { font-size: 12px; color: var(--muted); margin: 0 0 6px; }
  ol#decisions { list-style: none; margin: 0; padding: 0; }
  ol#decisions > li { border-top: 1px solid var(--line); padding: 7px 6px; cursor: pointer; display: grid; grid-template-columns: minmax(0, 1fr); gap: 2px; min-width: 0; }
  ol#decisions > li:hover { background: #f3f6fc; }
  ol#decisions > li.sel { background: #e8effc; }
  ol#decisions > li.fresh { animation: fresh 1.5s ease-out; }
  ol#decisions > li.admin { background: #f5f6f8; }
  @keyframes fresh { from { background: #fff6c2; } to { background: transparent; } }
  .line1 { display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: baseline; min-width: 0; }
  .line1 .time { color: var(--muted); }
  .line1 .agent { font-weight: 600; }
  .line1 .target { overflow-wrap: anywhere; min-width: 0; }
  .line1 .result { font-size: 12px; color: var(--muted); }
  .args { overflow-wrap: anywhere; color: #24292f; background: #f6f8fa; border-radius: 3px; padding: 1px 4px; }
  .why { overflow-wrap: anywhere; display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; }
  .rules { color: var(--deny); font-weight: 600; }
  #drawer { position: fixed; top: 0; right: 0; bottom: 0; width: min(560px, 100vw); background: #fff; border-left: 1px solid var(--line); box-shadow: -6px 0 24px rgba(0,0,0,.18); overflow-y: auto; padding: 12px 16px 24px; z-index: 10; }
  #drawer .top { display: flex; justify-content: space-between; align-items: center; gap: 8px; position: sticky; top: -12px; background: #fff; padding: 6px 0; }
  #drawer h2 { font-size: 16px; margin: 0; text-transform: none; letter-spacing: 0; color: var(--ink); }
  #drawer h3 { font-size: 13px; margin: 14px 0 4px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
  dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 3px 12px; margin: 0; }
  dl.facts dt { color: var(--muted); }
  dl.facts dd { margin: 0; overflow-wrap: anywhere; }
  .rule { border-left: 3px solid var(--deny); padding: 2px 8px; margin: 6px 0; }
  .rule .id { font-weight: 700; }
  .legend { font-size: 12px; color: var(--muted); }
  .legend b { color: var(--ink); }
  #login { max-width: 460px; margin: 60px auto; }
  #login input { width: 100%; padding: 6px 8px; margin: 8px 0; font: inherit; }
  @media (max-width: 1000px) { main { grid-template-columns: minmax(0, 1fr); } }
  @media (max-width: 520px) { main { padding: 8px; gap: 10px; } section { padding: 10px; } header { padding: 8px 10px; } #counts { margin-left: 0; } }
</style>
</head>
<body>
<header><h1>QuadGuard live view</h1><span id="status">connecting…</span><span id="counts" aria-live="polite"></span></header>
<section id="login" hidden>
  <h2>Token required</h2>
  <p>Paste the live view token printed when QuadGuard started (or open the link it printed), then press Enter.</p>
  <input id="token-input" type="password" autocomplete="off" aria-label="live view token">
  <button id="token-save" type="button">Open</button>
</section>
<main id="main" hidden>
  <div class="side">
    <section id="approvals-section" aria-labelledby="approvals-h"><h2 id="approvals-h">Held calls awaiting approval</h2><ul class="items" id="approvals"></ul><p class="empty" id="approvals-empty">none</p></section>
    <section id="quarantine-section" aria-labelledby="quarantine-h"><h2 id="quarantine-h">Quarantined agents</h2><ul class="items" id="quarantined"></ul><p class="empty" id="quarantined-empty">none</p></section>
    <section id="pins-section" aria-labelledby="pins-h"><h2 id="pins-h">Changed tools awaiting approval</h2><ul class="items" id="pins"></ul><p class="empty" id="pins-empty">none</p></section>
    <section id="service-section" aria-labelledby="service-h" hidden><h2 id="service-h">Service</h2><ul class="items" id="service"></ul></section>
    <section id="threat-section" aria-labelledby="threat-h"><h2 id="threat-h">Threat level by agent</h2>
      <p class="legend"><b>τ (tau)</b>: an agent's threat score, 0 to 1, raised by policy violations and injected content (request bursts are slowed, not scored), and decaying while it behaves. Its <b>level</b> 0–4 is τ in bands (green 0–1, amber 2, red 3–4); at level 4 the agent is quarantined until a person releases it. All charts share one time axis (UTC); the level holds until the next change.</p>
      <p class="legend">Vertical axis: threat level 0–4. Horizontal axis: time (UTC), the same for every agent.</p><div id="threat"></div><p class="empty" id="threat-empty">no agents yet</p></section>
  </div>
  <section id="decisions-section" aria-labelledby="decisions-h"><h2 id="decisions-h">Decisions (times in UTC)</h2>
    <div id="filters" role="search">
      <label>decision<select id="f-decision"><option value="">all</option><option value="deny">denied</option><option value="held">held</option><option value="allow">allowed</option><option value="admin">admin</option></select></label>
      <label>agent<select id="f-agent"><option value="">all agents</option></select></label>
      <label>tool<input id="f-tool" type="search" placeholder="e.g. delete_file"></label>
      <label>rule<input id="f-rule" type="search" placeholder="rule id"></label>
      <label>time<select id="f-time"><option value="0">all</option><option value="5">last 5 min</option><option value="60">last hour</option><option value="1440">last 24 h</option></select></label>
      <span class="buttons"><button id="pause" type="button" class="plain" aria-pressed="false">Pause</button><button id="clear-filters" type="button" class="plain">Clear</button></span>
    </div>
    <p id="shown" aria-live="polite"></p>
    <ol id="decisions" aria-label="decisions, newest first"></ol>
    <p class="empty" id="decisions-empty">no decisions yet</p>
  </section>
</main>
<aside id="drawer" role="dialog" aria-modal="false" aria-labelledby="drawer-title" hidden>
  <div class="top"><h2 id="drawer-title">Decision</h2><button id="drawer-close" type="button" class="plain" aria-label="Close details (Escape)">Close</button></div>
  <div id="drawer-body"></div>
</aside>
<script src="/ui/live.js"></script>
</body>
</html>
`;
