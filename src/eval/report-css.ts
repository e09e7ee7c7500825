/** The HTML report's stylesheet, inlined into the page (no external fonts or files). Print-friendly. */
export const REPORT_CSS = `
:root { --fg:#1f2533; --muted:#5d6779; --line:#e3e7ee; --bg:#f6f8fb; --card:#fff; --tp:#2f9e6e; --fp:#d9534f; --flag:#e0a526; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; max-width: 1180px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 12px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 0 0 8px; }
h3 small { color: var(--muted); font-weight: normal; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
.meta { color: var(--muted); margin: 2px 0; }
.tiles { display: grid; grid-template-columns: repeat(5, 1fr); gap: 12px; margin-top: 20px; }
.tile, .card, .case { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; }
.tile .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.tile .figure { font-size: 30px; font-weight: 650; margin: 2px 0 6px; font-variant-numeric: tabular-nums; }
.tile .hint { color: var(--muted); font-size: 12px; margin-top: 6px; }
.gauge { height: 6px; background: #eef1f6; border-radius: 3px; overflow: hidden; }
.gauge > div { height: 100%; }
.suites { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 12px; }
table { border-collapse: collapse; }
.confusion { width: 100%; margin: 4px 0 8px; }
.confusion th { font-weight: 500; color: var(--muted); font-size: 12px; padding: 4px 6px; text-align: left; }
.confusion td.cell { text-align: center; padding: 10px 6px; border: 2px solid #fff; border-radius: 6px; }
.cell .count { display: block; font-size: 22px; font-weight: 650; font-variant-numeric: tabular-nums; }
.cell .tag { font-size: 11px; color: var(--muted); }
.mini { color: var(--muted); font-size: 12px; margin: 4px 0; }
.grid { margin-top: 14px; background: var(--card); border: 1px solid var(--line); }
.grid th, .grid td { padding: 5px 12px; border-bottom: 1px solid var(--line); text-align: right; font-variant-numeric: tabular-nums; }
.grid th:first-child, .grid td:first-child { text-align: left; }
.witness th, .witness td { text-align: left; }
.grid tr.total td { font-weight: 650; border-top: 2px solid var(--line); }
.chart { display: block; max-width: 100%; height: auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
.chart .lbl, .chart .val, .chart .tick, .chart .mark, .chart .axis-title { font: 12px system-ui, "DejaVu Sans", sans-serif; fill: var(--fg); }
.chart .val, .chart .tick, .chart .axis-title { fill: var(--muted); }
.chart .mark { fill: var(--fp); }
.legend { color: var(--muted); font-size: 12px; }
.sw { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin: 0 4px 0 12px; vertical-align: -1px; }
.stats { color: var(--muted); }
.case { margin-bottom: 12px; border-left: 4px solid var(--fp); }
.case.fn { border-left-color: var(--flag); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 11px; font-weight: 600; background: #eef1f6; color: var(--muted); vertical-align: 1px; }
.badge.fn { background: #fdf1d8; color: #8a5b00; }
.badge.fp, .badge.deny { background: #fbe3e2; color: #a12622; }
.badge.allow { background: #dcf2e8; color: #1d6b49; }
.rationale { margin: 6px 0; }
.witness { margin: 6px 0 10px; }
.pred { padding: 1px 5px; border-radius: 4px; background: #eef1f6; }
.pred.true { background: #fbe3e2; } .pred.unknown { background: #fdf1d8; }
.steps { margin: 6px 0 0; padding-left: 22px; }
.steps li { margin-bottom: 6px; }
.steps .kind { font-weight: 600; }
.steps pre { margin: 3px 0 0; padding: 6px 8px; background: var(--bg); border-radius: 4px; white-space: pre-wrap; word-break: break-word; max-height: 9em; overflow: auto; }
.error { color: var(--fp); }
.empty { color: var(--muted); font-style: italic; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
.scroll { overflow-x: auto; max-width: 100%; }
.case-index { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; margin: 8px 0 16px; }
.case-index summary { cursor: pointer; font-weight: 600; }
.case-index .index-suite { margin: 4px 0; overflow-wrap: anywhere; }
.case-index .suite-name { font-weight: 650; }
.case-index a { color: #1f4fbf; }
h3.group { margin: 18px 0 8px; }
.case h3, .case .rationale { overflow-wrap: anywhere; }
@media (max-width: 900px) { .tiles { grid-template-columns: repeat(2, 1fr); } }
@media (max-width: 600px) {
  body { padding: 12px 12px 32px; }
  .tiles { gap: 8px; } .tile { padding: 10px; } .tile .figure { font-size: 24px; }
  .suites { grid-template-columns: minmax(0, 1fr); }
  .grid th, .grid td { padding: 4px 6px; }
  /* Charts keep a readable size and scroll sideways inside their box instead of shrinking to tiny text. */
  .scroll .chart { max-width: none; }
}
@media print { body { background: #fff; } .case { break-inside: avoid; } }
`;
