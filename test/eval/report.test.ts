import { describe, expect, it } from 'vitest';
import { EvalCaseSchema } from '../../src/eval/cases.js';
import { histogramBins } from '../../src/eval/html-charts.js';
import { escapeHtml, html, trusted } from '../../src/eval/html.js';
import { computeMetrics } from '../../src/eval/metrics.js';
import { renderHtmlReport } from '../../src/eval/report-html.js';
import { buildJsonReport } from '../../src/eval/report-json.js';
import { renderTable } from '../../src/eval/report-table.js';
import { runEval } from '../../src/eval/run.js';
import { fixtureCases, testGuardFactory } from './support.js';

async function fixtureReport() {
  const cases = fixtureCases().map((c) => EvalCaseSchema.parse(c));
  const run = await runEval(cases, { guardFor: testGuardFactory() });
  const metrics = computeMetrics(run.cases);
  return { metrics, report: buildJsonReport(run, metrics, { generatedAt: '2026-01-01T00:00:00.000Z', cases: 'cases/<dir>', elapsedMs: run.elapsedMs }) };
}

describe('html templating', () => {
  it('escapes interpolated values and keeps nested fragments', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    const items = ['<i>', 'b'];
    expect(html`<ul>${items.map((i) => html`<li title="${i}">${i}</li>`)}</ul>`.value).toBe(
      '<ul><li title="&lt;i&gt;">&lt;i&gt;</li><li title="b">b</li></ul>',
    );
    expect(html`${null}${undefined}${false}${0}${trusted('<br>')}`.value).toBe('0<br>');
  });
});

describe('renderHtmlReport', () => {
  it('is self-contained and shows case data only as text', async () => {
    const { report } = await fixtureReport();
    const page = renderHtmlReport(report);
    expect(page).toMatch(/^<!doctype html>/);
    // No script element, event handler or external resource anywhere in the page.
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toMatch(/<img/i);
    expect(page).not.toMatch(/<[^>]*\son\w+=/i);
    expect(page).not.toMatch(/(?:src|href)="?(?:https?:)?\/\//i);
    expect(page).toContain("default-src 'none'");
    expect(page).toContain('chat/&lt;script&gt;window.__pwned=1&lt;/script&gt;');
    expect(page).toContain('&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;');
    expect(page).toContain('<code>cases/&lt;dir&gt;</code>');
  });

  it('shows overall figures, confusion cells, rule bars, the histogram and the misclassified cases', async () => {
    const { report } = await fixtureReport();
    const page = renderHtmlReport(report);
    expect(page).toContain('<div class="figure" id="overall-accuracy">57.1%</div>');
    expect(page).toMatch(/data-suite="shell" data-cell="fn"[^>]*><span class="count">1<\/span>/);
    expect(page).toMatch(/data-suite="chat" data-cell="tn"[^>]*><span class="count">1<\/span>/);
    expect(page).toContain('aria-label="cases per rule"');
    expect(page).toContain('aria-label="time per step histogram"');
    expect(page).toContain('Misclassified cases (3)');
    for (const id of ['shell/missed', 'shell/false-alarm']) expect(page).toContain(`<code class="case-id">${id}</code>`);
    expect(page).not.toContain('<code class="case-id">shell/rmrf</code>');
    expect(page).toContain('Blocked: destructive shell command (rm -rf).');
  });
});

describe('renderTable', () => {
  it('prints one row per suite and the overall row', async () => {
    const { metrics } = await fixtureReport();
    const lines = renderTable(metrics).split('\n');
    expect(lines[0]).toMatch(/^suite\s+n\s+acc/);
    expect(lines.find((l) => l.startsWith('chat'))).toMatch(/^chat\s+3\s+66\.7%\s+50\.0%\s+100\.0%\s+50\.0%\s+66\.7%/);
    expect(lines.find((l) => l.startsWith('shell'))).toMatch(/^shell\s+4\s+50\.0%/);
    expect(renderTable(computeMetrics([]))).toContain('overall  0    —');
  });
});

describe('histogramBins', () => {
  it('bins linearly, or logarithmically across orders of magnitude, keeping every sample', () => {
    const lin = histogramBins([1, 2, 3, 4], 3);
    expect(lin).toMatchObject({ log: false, counts: [1, 1, 2] });
    expect(lin.edges).toEqual([1, 2, 3, 4]);
    const log = histogramBins([0.01, 0.1, 1, 10, 100], 4);
    expect(log.log).toBe(true);
    expect(log.counts).toEqual([1, 1, 1, 2]);
    expect(histogramBins([5, 5], 4)).toEqual({ edges: [5, 5], counts: [2], log: false });
  });
});

