import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium, requireChromium } from '../support/chromium.js';
import { runEvalCommand } from '../../src/cli/eval.js';
import { fixtureCases, HOSTILE_ID, tempDir, testGuardFactory, writeJsonl } from './support.js';

/** Set to a .png path to keep a full-page screenshot of the rendered report (for looking at it during work). */
const SCREENSHOT = process.env.QUADGUARD_EVAL_SCREENSHOT;

requireChromium('the HTML report tests');

describe.skipIf(!hasChromium)(`HTML report in headless Chromium`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the figures, the confusion matrices and the misclassified cases, and never runs case content', async () => {
    const dir = await tempDir();
    await writeJsonl(join(dir, 'cases.jsonl'), fixtureCases());
    const htmlOut = join(dir, 'report.html');
    await runEvalCommand(
      { cases: dir, policies: './policies', html: htmlOut, quiet: true },
      { guardFactory: () => testGuardFactory(), stdout: { write: () => true } },
    );

    const page = await browser.newPage({ viewport: { width: 1240, height: 900 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(pathToFileURL(htmlOut).href);

    // Overall accuracy: 4 of 7 cases right.
    await expect(page.locator('#overall-accuracy').innerText()).resolves.toBe('57.1%');
    await expect(page.locator('#overall-recall').innerText()).resolves.toBe('66.7%');
    // Confusion matrix cells, per suite.
    const cell = (suite: string, key: string) => page.locator(`td[data-suite="${suite}"][data-cell="${key}"] .count`);
    await expect(cell('shell', 'fn').innerText()).resolves.toBe('1');
    await expect(cell('chat', 'fp').innerText()).resolves.toBe('1');
    await expect(cell('chat', 'fn').innerText()).resolves.toBe('0');
    expect(await cell('shell', 'tp').isVisible()).toBe(true);

    // Misclassified cases are listed, visible, with their rationale; correctly decided ones are not.
    const wrong = page.locator('#misclassified');
    expect(await wrong.locator('article').getByText('shell/missed', { exact: true }).isVisible()).toBe(true);
    const wrongText = await wrong.innerText();
    expect(wrongText).toContain('Blocked: destructive shell command (rm -rf).');
    expect(wrongText).not.toContain('shell/rmrf');

    // Case content shows as text: the hostile id and the injected markup are on screen, literally.
    expect(await wrong.locator('article').getByText(HOSTILE_ID, { exact: true }).isVisible()).toBe(true);
    expect(wrongText).toContain('<img src=x onerror="window.__pwned=2"><b>bold</b>');
    expect(await page.locator('#misclassified b, #misclassified img, body script').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(pageErrors).toEqual([]);

    // The charts are drawn: rule bars with a non-zero true-positive bar, and histogram bars.
    const ruleBars = page.locator('svg[aria-label="cases per rule"] g.rule-bar');
    expect(await ruleBars.count()).toBe(2);
    const tpWidth = await ruleBars.first().locator('rect').nth(1).getAttribute('width');
    expect(Number(tpWidth)).toBeGreaterThan(0);
    const hist = page.locator('svg[aria-label="time per step histogram"]');
    expect(await hist.isVisible()).toBe(true);
    expect(await hist.locator('rect').count()).toBeGreaterThan(0);

    if (SCREENSHOT) await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await page.close();
  });
});
