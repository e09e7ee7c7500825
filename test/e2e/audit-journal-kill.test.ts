/**
 * The audit journal under `kill -9` (issue #30 part 1): the built CLI serves over HTTP on 127.0.0.1 with a SQLite
 * store; 8 clients send `guard_check_message` calls, each with a marker of its own, and the proxy is killed with
 * SIGKILL mid-load, then started again on the same store, several times. Afterwards the chain verifies
 * (`quadguard audit verify`) and every call that was answered has its row.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { auditSelect, readStored } from '../../src/store/audit-columns.js';
import { openDatabase } from '../../src/store/sqlite.js';
import { afterAll, describe, expect, it } from 'vitest';
import { connectHttp, runCli } from '../../src/cli/demos/kit.js';
import { makeSandbox, ROOT, server, startHttpProxy, waitFor, writeConfig } from '../support/proxy-harness.js';
import { messageVerdict } from './helpers.js';

const TOKEN = 'writer-token-0123456789abcdef';
const ROUNDS = 4;
const CLIENTS = 8;

describe('audit journal under kill -9 (serve --http, SQLite)', () => {
  const sb = makeSandbox();
  afterAll(() => rmSync(sb.dir, { recursive: true, force: true }));

  it('loses no answered decision and keeps the chain whole across kills', async () => {
    const store = join(sb.dir, 'killed.db');
    const cfg = writeConfig(sb.dir, {
      servers: { ws: server('workspace', '--root', join(sb.dir, 'workspace')) },
      policy: join(ROOT, 'policies', 'default'),
      store,
      audit_journal: true,
      agents: { writer: { token: { env: 'WRITER_TOKEN' } }, planner: {} },
    });
    const answered: string[] = [];
    let sent = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const proxy = await startHttpProxy(cfg, { WRITER_TOKEN: TOKEN }, ['--no-ui']);
      let killed = false;
      const clients = await Promise.all(Array.from({ length: CLIENTS }, (_, c) => connectHttp(proxy.url, TOKEN, `load-${c}`)));
      const load = clients.map(async (client, c) => {
        for (let i = 0; !killed; i++) {
          const marker = `m${round}x${c}x${i}`;
          sent++;
          try {
            const r = await client.callTool({ name: 'guard_check_message', arguments: { sender: 'writer', recipient: 'planner', content: `Status note ${marker}: the draft is ready.` } }, undefined, { timeout: 5000 });
            if (messageVerdict(r).decision) answered.push(marker);
          } catch {
            return; // the proxy is gone
          }
        }
      });
      // Kill once the load runs (some calls answered), at a different point of it each round.
      const before = answered.length;
      await waitFor(() => answered.length - before >= 10, 60_000, 'calls answered');
      await new Promise((r) => setTimeout(r, 50 + 150 * round));
      killed = true;
      proxy.child.kill('SIGKILL');
      await Promise.allSettled(load);
      await new Promise<void>((r) => (proxy.child.exitCode !== null || proxy.child.signalCode !== null ? r() : proxy.child.once('exit', () => r())));
      // The transports' requests died with the proxy; their close is not waited for.
      for (const c of clients) void c.close().catch(() => {});
    }
    expect(answered.length, `answered ${answered.length} of ${sent}`).toBeGreaterThanOrEqual(ROUNDS * 10);
    // `audit verify` opens the store, replays the last proxy's journal, and walks the chain.
    const verify = await runCli(['audit', 'verify', '--store', store]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    const db = openDatabase(store, { readonly: true });
    try {
      // Read as the store reads a row (a preview left out of the row is read from its recorded body).
      const rows = db.prepare(auditSelect("WHERE a.kind = 'message'")).all().map(readStored) as Array<{ preview: string }>;
      const previews = rows.map((r) => r.preview).join('\n');
      const missing = answered.filter((m) => !previews.includes(`${m}:`));
      expect(missing, `answered but not in the audit (of ${answered.length})`).toEqual([]);
    } finally {
      db.close();
    }
  }, 180_000);
});
