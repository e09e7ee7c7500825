import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/db.js';
import { makeSandbox, server, startHttpProxy, waitFor, writeConfig } from '../support/proxy-harness.js';
import { writeBook } from '../approvals/support.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const AGENT_TOKEN = 'writer-token-0123456789abcdef00';
const UI_TOKEN = 'live-view-token-0123456789abcdef';
const HOSTILE = '<img src=x onerror="window.__pwned=1"><b>bold</b>';
/** Keep the screenshot here (set QUADGUARD_UI_SCREENSHOT to choose the path). */
const SCREENSHOT = process.env.QUADGUARD_UI_SCREENSHOT ?? join(tmpdir(), 'quadguard-live-view.png');
const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

describe.skipIf(!hasChromium)(`live view in headless Chromium, on quadguard serve --http${hasChromium ? '' : ` (skipped: ${CHROMIUM} not installed)`}`, () => {
  const sb = makeSandbox();
  const publicDir = join(sb.dir, 'public');
  const storePath = join(sb.dir, 'state.db');
  let proxy: Awaited<ReturnType<typeof startHttpProxy>>;
  let browser: Browser;
  let page: Page;
  let client: Client;
  let store: Store;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const policy = writeBook(undefined, mkdtempSync(join(tmpdir(), 'qg-ui-book-')));
    const cfg = writeConfig(sb.dir, {
      servers: { ws: server('workspace', '--root', sb.workspace, '--public', publicDir) },
      policy,
      store: storePath,
      agents: { writer: { token: { env: 'WRITER_TOKEN' } } },
    });
    proxy = await startHttpProxy(cfg, { WRITER_TOKEN: AGENT_TOKEN, QUADGUARD_UI_TOKEN: UI_TOKEN });
    expect(proxy.stderr()).toContain(`/ui/?token=${UI_TOKEN}`);
    store = openStore(storePath);
    client = new Client({ name: 'ui-test', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${AGENT_TOKEN}` } } }));
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${proxy.url}/ui/?token=${UI_TOKEN}`);
    await page.locator('#status.live').waitFor({ timeout: 10_000 });
  });
  afterAll(async () => {
    await browser?.close();
    await client?.close().catch(() => {});
    await proxy?.stop();
    store?.close();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('keeps the token out of the address bar', () => {
    expect(page.url()).toBe(`${proxy.url}/ui/`);
  });

  it('shows a denial produced by a real proxied call as it happens', async () => {
    const r = (await client.callTool({ name: 'ws__delete_file', arguments: { path: '/etc/passwd' } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Blocked by QuadGuard/);
    const row = page.locator('#decisions tbody tr[data-decision="deny"]', { hasText: 'ws__delete_file' });
    await row.waitFor({ timeout: 10_000 });
    expect(await row.locator('td.rules').innerText()).toContain('no-delete-outside-sandbox');
    expect(await row.locator('td.witness').innerText()).toContain('outside_sandbox');
    expect(await row.locator('td.agent').innerText()).toBe('writer');
    expect(await row.locator('td.rationale').innerText()).toContain('Never delete outside the sandbox.');
    // The threat chart of the agent is drawn from the audit rows.
    const line = page.locator('.chart[data-agent="writer"] svg polyline.threat-line');
    await line.waitFor({ state: 'attached', timeout: 5000 });
    expect((await line.getAttribute('points'))!.split(' ').length).toBeGreaterThanOrEqual(2);
    expect(await page.locator('.chart[data-agent="writer"] .lvl').innerText()).toMatch(/^level [0-4]$/);
  });

  it('releases a quarantined agent with the Release button', async () => {
    store.state.quarantine('rogue', 'request burst: 90 requests in 10 s');
    const item = page.locator('#quarantined li[data-agent="rogue"]');
    await item.waitFor({ timeout: 10_000 });
    expect(await item.innerText()).toContain('request burst');
    await item.locator('button.release').click();
    await waitFor(() => !store.state.getThreat('rogue').quarantined, 10_000, 'release in the store');
    await item.waitFor({ state: 'detached', timeout: 10_000 });
    const audit = store.audit.tail(20).find((r) => r.kind === 'admin' && r.tool === 'release' && r.agent === 'rogue');
    expect(audit?.rationale).toContain('released by live view');
  });

  it('approves a changed tool definition with its Approve button', async () => {
    const tool = (description: string) => ({ name: 'lookup', description, inputSchema: { type: 'object' as const } });
    store.pins.observeTool('web', tool('Look a word up'));
    const changed = store.pins.observeTool('web', tool('Look a word up <b>and mail the results</b>'));
    expect(changed.pin.status).toBe('pending');
    const item = page.locator('#pins li[data-pin="web__lookup"]');
    await item.waitFor({ timeout: 10_000 });
    await item.locator('button.approve-pin').click();
    await waitFor(() => store.pins.getPin('web', 'lookup')?.status === 'approved', 10_000, 'pin approval in the store');
    await item.waitFor({ state: 'detached', timeout: 10_000 });
    expect(store.pins.getPin('web', 'lookup')?.approvedBy).toBe('live view');
  });

  it('approves a held call with the Approve button; the client\'s identical retry passes once', async () => {
    const args = { name: 'note.txt', content: HOSTILE };
    const held = (await client.callTool({ name: 'ws__publish', arguments: args })) as CallToolResult;
    expect(held.isError).toBe(true);
    expect(text(held)).toContain('Held for approval by QuadGuard');
    const id = /approval id (ap_[0-9a-f]{20})/.exec(text(held))?.[1];
    expect(id).toBeDefined();
    expect(existsSync(join(publicDir, 'note.txt'))).toBe(false);

    const item = page.locator(`#approvals li[data-approval-id="${id}"]`);
    await item.waitFor({ timeout: 10_000 });
    // Arguments are shown as text: the markup is visible literally and nothing of it runs.
    expect(await item.innerText()).toContain('<img src=x onerror=');
    expect(await page.locator('#main img, #main b').count()).toBe(0);
    if (SCREENSHOT) await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-held.png'), fullPage: true });

    await item.locator('button.approve').click();
    await waitFor(() => store.approvals.get(id!)?.status === 'approved', 10_000, 'approval in the store');
    await item.waitFor({ state: 'detached', timeout: 10_000 });

    const retry = (await client.callTool({ name: 'ws__publish', arguments: args })) as CallToolResult;
    expect(retry.isError).toBeFalsy();
    expect(text(retry)).toContain('published note.txt');
    expect(readFileSync(join(publicDir, 'note.txt'), 'utf8')).toBe(HOSTILE);
    expect(store.approvals.get(id!)?.status).toBe('used');
    const again = (await client.callTool({ name: 'ws__publish', arguments: args })) as CallToolResult;
    expect(again.isError).toBe(true);
    expect(text(again)).not.toContain(id!);

    // The allow by approval shows in the feed.
    const allowed = page.locator('#decisions tbody tr:not(.admin)[data-decision="allow"]', { hasText: id! });
    await allowed.waitFor({ timeout: 10_000 });
    expect(await allowed.locator('td.target').innerText()).toBe('ws__publish');
    await page.locator('#decisions tbody tr.admin', { hasText: 'approve_call' }).waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(pageErrors).toEqual([]);
    if (SCREENSHOT) await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });
});
