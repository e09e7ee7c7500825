/**
 * Store faults on SQLite, injected under a running `serve --http` (built CLI, 127.0.0.1): another process holding
 * the database's write lock past the busy timeout, and a full disk (a 4 MB tmpfs, mounted when the tests run as
 * root; skipped otherwise). The proxy never exits, keeps answering other requests while one waits for the lock,
 * denies truthfully (naming the store, saying the denial was not recorded), reports it on /readyz and /metrics,
 * and decides normally again once the fault ends.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/sqlite.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { connectHttp, runCli } from '../../src/cli/demos/kit.js';
import { makeSandbox, ROOT, server, startHttpProxy, waitFor, writeConfig, type HttpProxy } from '../support/proxy-harness.js';
import { messageVerdict } from './helpers.js';

const TOKEN = 'writer-token-0123456789abcdef';

async function start(dir: string, store: string): Promise<{ proxy: HttpProxy; client: Client }> {
  const cfg = writeConfig(dir, {
    servers: { ws: server('workspace', '--root', join(dir, 'workspace')) },
    policy: join(ROOT, 'policies', 'default'),
    store,
    agents: { writer: { token: { env: 'WRITER_TOKEN' } }, planner: {} },
  });
  const proxy = await startHttpProxy(cfg, { WRITER_TOKEN: TOKEN }, ['--no-ui']);
  return { proxy, client: await connectHttp(proxy.url, TOKEN, 'faults') };
}

const say = async (c: Client, content: string) => messageVerdict(await c.callTool({ name: 'guard_check_message', arguments: { sender: 'writer', recipient: 'planner', content } }));

describe('SQLite store faults under serve --http', () => {
  const sb = makeSandbox();
  afterAll(() => rmSync(sb.dir, { recursive: true, force: true }));

  it('a write lock held past the busy timeout: the loop stays free, the denial says why, the proxy survives', async () => {
    const store = join(sb.dir, 'locked.db');
    const { proxy, client } = await start(sb.dir, store);
    try {
      expect((await say(client, 'The draft is ready.')).decision).toBe('allow');
      const other = openDatabase(store);
      other.exec('BEGIN EXCLUSIVE');
      const started = Date.now();
      const waiting = say(client, 'The itinerary is attached.');
      // While that call waits for the lock, the listener answers: no busy wait blocks the event loop.
      const probes: number[] = [];
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, 300));
        const t = Date.now();
        expect((await fetch(`${proxy.url}/healthz`)).status).toBe(200);
        probes.push(Date.now() - t);
      }
      expect(Math.max(...probes), `healthz latencies ${probes.join(',')}`).toBeLessThan(500);
      const denied = await waiting;
      const took = Date.now() - started;
      expect(denied.decision).toBe('deny');
      // Whichever write of the interaction needs the lock first: the data-flow record, or the audit's group commit.
      expect(denied.rationale).toMatch(/could not be recorded|could not evaluate/);
      expect(denied.rationale).toContain(store);
      expect(denied.rationale).toMatch(/write lock/);
      // One wait (5 s), not one per store call of the interaction.
      expect(took).toBeLessThan(8000);
      const ready = await fetch(`${proxy.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(JSON.stringify(await ready.json())).toMatch(/busy/);
      // Keep the lock past the write-behind timer of the burst window (it used to throw and end the process).
      await new Promise((r) => setTimeout(r, 1500));
      other.exec('ROLLBACK');
      other.close();
      expect(proxy.child.exitCode).toBeNull();
      await waitFor(async () => (await say(client, 'Back to work: the hotel is booked.')).decision === 'allow', 15_000, 'allowed again');
      expect((await fetch(`${proxy.url}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
      expect(metrics).toMatch(/quadguard_store_errors_total\{engine="sqlite",op="[a-zA-Z.]+",reason="busy"\} [1-9]/);
    } finally {
      await client.close().catch(() => {});
      await proxy.stop();
    }
    const verify = await runCli(['audit', 'verify', '--store', store]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  }, 90_000);

  const mount = join(sb.dir, 'small');
  const mounted = (() => {
    if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
    try {
      mkdirSync(mount, { recursive: true });
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mount], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  afterAll(() => {
    if (mounted) execFileSync('umount', ['-l', mount], { stdio: 'ignore' });
  });

  it.skipIf(!mounted)('a full disk (4 MB tmpfs): denials say they were not recorded, the proxy survives and recovers', async () => {
    const store = join(mount, 'state.db');
    mkdirSync(join(mount, 'workspace'), { recursive: true });
    const { proxy, client } = await start(mount, store);
    const filler = join(mount, 'filler');
    try {
      expect((await say(client, 'The draft is ready.')).decision).toBe('allow');
      // Fill what is left of the file system.
      try {
        execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k', 'count=100'], { stdio: 'ignore' });
      } catch {
        // dd stops with ENOSPC: the disk is full, as wanted
      }
      let denied: ReturnType<typeof messageVerdict> | undefined;
      for (let i = 0; i < 400 && !denied; i++) {
        const v = await say(client, `Status ${i}: the itinerary draft is ready for review, with the hotel and flight details for the team offsite.`);
        if (v.decision === 'deny') denied = v;
      }
      expect(denied, 'a denial once the disk is full').toBeDefined();
      // The data-flow record, the audit's group commit or its journal fails first, whichever needs a new page first.
      expect(denied!.rationale).toMatch(/could not be recorded/);
      expect(denied!.rationale).toContain(store);
      expect(denied!.rationale).toMatch(/full/);
      expect(proxy.child.exitCode).toBeNull();
      expect((await fetch(`${proxy.url}/healthz`)).status).toBe(200);
      // /readyz is 503 from a failed write until one succeeds: with free pages left in the file a small write can still
      // succeed between two that fail, so ask again after each further interaction while the disk stays full.
      let readyBody = '';
      await waitFor(async () => {
        const ready = await fetch(`${proxy.url}/readyz`);
        if (ready.status === 503) readyBody = JSON.stringify(await ready.json());
        else await say(client, 'Status: still writing the itinerary draft for the offsite.');
        return ready.status === 503;
      }, 15_000, '/readyz 503 while the disk is full');
      expect(readyBody).toMatch(/full/);
      expect(await (await fetch(`${proxy.url}/metrics`)).text()).toMatch(/quadguard_store_errors_total\{engine="sqlite",op="[a-zA-Z.]+",reason="full"\} [1-9]/);

      rmSync(filler);
      await waitFor(async () => (await say(client, 'Back to work: the hotel is booked.')).decision === 'allow', 15_000, 'allowed again');
      expect((await fetch(`${proxy.url}/readyz`)).status).toBe(200);
    } finally {
      await client.close().catch(() => {});
      await proxy.stop();
      rmSync(filler, { force: true });
    }
    expect(proxy.child.exitCode).toBe(0);
    const verify = await runCli(['audit', 'verify', '--store', store]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  }, 120_000);

  it('an audit key path that is a folder fails with what to do, not a bare EISDIR', async () => {
    const dir = join(sb.dir, 'keydir');
    mkdirSync(join(dir, 'key-folder'), { recursive: true });
    const cfg = writeConfig(dir, { servers: {}, policy: join(ROOT, 'policies', 'default'), store: join(dir, 'state.db'), audit_key: { file: 'key-folder' } });
    const r = await runCli(['serve', '--config', cfg]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/audit key path .*key-folder is a folder, not a file/);
    expect(r.stderr).not.toMatch(/^EISDIR/m);
    writeFileSync(join(dir, 'unused'), '');
  }, 30_000);
});
