/// <reference lib="dom" />
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium, requireChromium } from '../support/chromium.js';
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

  it('puts false alarms before misses, with an index linking every misclassified case', async () => {
    const { report } = await fixtureReport();
    const page = renderHtmlReport(report);
    const alarm = page.indexOf('<code class="case-id">shell/false-alarm</code>');
    const miss = page.indexOf('<code class="case-id">shell/missed</code>');
    expect(alarm).toBeGreaterThan(0);
    expect(alarm).toBeLessThan(miss);
    expect(page.indexOf('id="false-alarms"')).toBeLessThan(page.indexOf('id="missed"'));
    const wrong = report.cases.filter((c) => !c.correct);
    for (const c of wrong) {
      expect(page).toContain(`<a href="#case-${escapeHtml(c.id)}">`);
      expect(page).toContain(`id="case-${escapeHtml(c.id)}"`);
    }
    expect(page).toMatch(/<details class="index fp" open><summary>False alarms \(\d+\)<\/summary>/);
  });
});

requireChromium('the 390 px report test');

describe.skipIf(!hasChromium)('the HTML report at 390 px in headless Chromium', () => {
  it('has no page-wide horizontal overflow, and charts and the suite table keep readable text', async () => {
    const { report } = await fixtureReport();
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
    try {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await page.setContent(renderHtmlReport(report));
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      // Rendered size of chart text: the SVG's scale times its 12 px font.
      const scales = await page.locator('svg.chart').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width / (e as SVGSVGElement).viewBox.baseVal.width));
      expect(scales.length).toBeGreaterThanOrEqual(2);
      for (const s of scales) expect(12 * s).toBeGreaterThanOrEqual(10);
      const table = await page.locator('table.grid').first().evaluate((t) => ({ font: parseFloat(getComputedStyle(t.querySelector('td')!).fontSize), right: t.parentElement!.getBoundingClientRect().right }));
      expect(table.font).toBeGreaterThanOrEqual(12);
      expect(table.right).toBeLessThanOrEqual(390);
      if (process.env.QUADGUARD_UI_SCREENSHOT !== '') await page.screenshot({ path: join(tmpdir(), 'quadguard-report-390.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 60_000);
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

