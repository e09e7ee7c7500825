/**
 * The live view page: one static HTML document with inline CSS and no data in it. Everything it shows is
 * fetched by `/ui/live.js` and written with `textContent` (audit rows carry injection payloads and markup on
 * purpose). The Content-Security-Policy allows only same-origin script, so even a slip could not run inline code.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>QuadGuard live view</title>
<style>
  :root { --bg: #f6f7f9; --card: #fff; --ink: #1d232b; --muted: #65707d; --line: #dde1e6;
          --allow: #1a7f37; --deny: #c62828; --warn: #b26a00; --accent: #2f5fd0; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
  header { display: flex; align-items: center; gap: 16px; padding: 10px 20px; background: #16202c; color: #fff; }
  header h1 { font-size: 17px; margin: 0; font-weight: 600; }
  #status { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: #3a4655; }
  #status.live { background: var(--allow); }
  #status.error { background: var(--deny); }
  #counts { margin-left: auto; font-size: 12px; color: #c8d0da; }
  main { display: grid; grid-template-columns: minmax(320px, 1fr) 2.2fr; gap: 16px; padding: 16px 20px; }
  section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; min-width: 0; }
  section h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 0 0 8px; }
  .side { display: flex; flex-direction: column; gap: 16px; min-width: 0; }
  .empty { color: var(--muted); font-style: italic; margin: 4px 0; }
  ul.items { list-style: none; margin: 0; padding: 0; }
  ul.items li { border-top: 1px solid var(--line); padding: 8px 0; display: grid; grid-template-columns: 1fr auto; gap: 4px 10px; }
  ul.items li:first-child { border-top: 0; }
  .name { font-weight: 600; overflow-wrap: anywhere; }
  .sub { grid-column: 1 / -1; color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
  .actions { display: flex; gap: 6px; align-items: start; }
  button { font: inherit; font-size: 12px; padding: 3px 10px; border-radius: 5px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
  button.secondary { background: #fff; color: var(--deny); border-color: var(--deny); }
  button:disabled { opacity: .5; cursor: default; }
  code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
  .chart { border-top: 1px solid var(--line); padding: 6px 0; }
  .chart:first-child { border-top: 0; }
  .chart .head { display: flex; justify-content: space-between; gap: 8px; font-size: 12px; }
  .chart svg { display: block; width: 100%; height: 56px; }
  .lvl { font-weight: 600; }
  .lvl-0, .lvl-1 { color: var(--allow); } .lvl-2 { color: var(--warn); } .lvl-3, .lvl-4 { color: var(--deny); }
  .q { color: #fff; background: var(--deny); border-radius: 4px; padding: 0 5px; font-size: 11px; }
  table { width: 100%; border-collapse: collapse; table-layout: fixed; }
  th, td { text-align: left; vertical-align: top; padding: 5px 6px; border-top: 1px solid var(--line); overflow-wrap: anywhere; }
  th { white-space: nowrap; font-size: 12px; color: var(--muted); font-weight: 600; border-top: 0; }
  td.rationale { white-space: pre-wrap; max-height: 6.5em; overflow: hidden; display: -webkit-box; -webkit-line-clamp: 4; -webkit-box-orient: vertical; }
  .badge { display: inline-block; white-space: nowrap; font-size: 11px; font-weight: 700; text-transform: uppercase; padding: 1px 6px; border-radius: 4px; color: #fff; }
  .badge.allow { background: var(--allow); } .badge.deny { background: var(--deny); } .badge.held { background: var(--warn); }
  tr.fresh { animation: fresh 1.5s ease-out; }
  tr.admin td { background: #f3f5fb; }
  tr.admin .badge { opacity: .6; }
  @keyframes fresh { from { background: #fff6c2; } to { background: transparent; } }
  #login { max-width: 460px; margin: 60px auto; }
  #login input { width: 100%; padding: 6px 8px; margin: 8px 0; font: inherit; }
  @media (max-width: 900px) { main { grid-template-columns: 1fr; } }
</style>
</head>
<body>
<header><h1>QuadGuard live view</h1><span id="status">connecting…</span><span id="counts"></span></header>
<section id="login" hidden>
  <h2>Token required</h2>
  <p>Paste the live view token printed when QuadGuard started (or open the link it printed).</p>
  <input id="token-input" type="password" autocomplete="off" aria-label="token">
  <button id="token-save" type="button">Open</button>
</section>
<main id="main" hidden>
  <div class="side">
    <section id="approvals-section"><h2>Held calls awaiting approval</h2><ul class="items" id="approvals"></ul><p class="empty" id="approvals-empty">none</p></section>
    <section id="quarantine-section"><h2>Quarantined agents</h2><ul class="items" id="quarantined"></ul><p class="empty" id="quarantined-empty">none</p></section>
    <section id="pins-section"><h2>Changed tools awaiting approval</h2><ul class="items" id="pins"></ul><p class="empty" id="pins-empty">none</p></section>
    <section id="threat-section"><h2>Threat level by agent</h2><div id="threat"></div><p class="empty" id="threat-empty">no agents yet</p></section>
  </div>
  <section id="decisions-section"><h2>Decisions</h2>
    <table id="decisions">
      <colgroup><col style="width:104px"><col style="width:78px"><col style="width:11%"><col style="width:10%"><col style="width:16%"><col style="width:12%"><col style="width:14%"><col></colgroup>
      <thead><tr><th>time</th><th>decision</th><th>agent</th><th>kind</th><th>server / tool</th><th>rules</th><th>witness</th><th>rationale</th></tr></thead>
      <tbody></tbody>
    </table>
    <p class="empty" id="decisions-empty">no decisions yet</p>
  </section>
</main>
<script src="/ui/live.js"></script>
</body>
</html>
`;
