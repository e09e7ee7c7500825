/**
 * Red team: a credential sent as a name the client chooses — a tools/call name (and the server prefix split from
 * it), a prompts/get name, a guard_check_message recipient — must not be readable in the audit store, which people
 * read and export. The built CLI in front of the workspace server records each (refused or decided); the SQLite file
 * is then read directly. Before the fix the row's tool, server and recipient columns, and the recorded interaction,
 * kept such names in clear.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/sqlite.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, ROOT, server, storeCount, waitFor, writeConfig } from '../support/proxy-harness.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'qg-secret-names-')));
const store = join(dir, 'state.db');
const KEY = 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
/** A stretch of the token that no mask leaves. */
const PART = 'AbCdEfGhIjKlMnOp';

describe('red team: credentials sent as tool, server, prompt or recipient names', () => {
  let client: Client;
  let stderr: () => string;

  beforeAll(async () => {
    const sandbox = mkdtempSync(join(dir, 'ws-'));
    const config = writeConfig(dir, { servers: { ws: server('workspace', '--root', sandbox) }, policy: join(ROOT, 'policies', 'default'), store, guard: { watcher: { quarantine: false } } });
    ({ client, stderr } = await connectStdio(config));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('are masked in every audit column and in the recorded interaction', async () => {
    await expect(client.callTool({ name: KEY, arguments: {} })).rejects.toThrow(/Unknown tool/);
    await expect(client.callTool({ name: `${KEY}__read_file`, arguments: {} })).rejects.toThrow(/Unknown tool/);
    await expect(client.callTool({ name: `ws__${KEY}`, arguments: {} })).rejects.toThrow(/Unknown tool/);
    await expect(client.getPrompt({ name: KEY })).rejects.toThrow(/Unknown prompt/);
    await client.callTool({ name: 'guard_check_message', arguments: { sender: 'tester', recipient: KEY, content: 'hello' } });
    // Control: an ordinary name is kept as it is.
    await client.callTool({ name: 'guard_check_message', arguments: { sender: 'tester', recipient: 'bob', content: 'hello' } });
    // The proxy journals each row before it answers and commits them to the store in groups: wait for the last one.
    await waitFor(() => storeCount(store, "SELECT COUNT(*) AS n FROM audit WHERE recipient = 'bob'") > 0, 10_000, 'the control row in the store');

    const db = openDatabase(store, { readonly: true });
    try {
      const rows = db.prepare('SELECT * FROM audit ORDER BY id').all() as Array<Record<string, unknown>>;
      const bodies = db.prepare('SELECT coalesce(i.body, b.body) AS body FROM audit_interaction i LEFT JOIN audit_body b ON b.digest = i.body_digest').all() as Array<{ body: string | null }>;
      // Every attempt above was recorded: five with the credential, the control with bob.
      expect(rows.filter((r) => [r.tool, r.server, r.recipient].some((v) => typeof v === 'string' && v.includes('REDACTED')))).toHaveLength(5);
      expect(rows.some((r) => r.recipient === 'bob')).toBe(true);
      for (const r of rows) expect(JSON.stringify(r)).not.toContain(PART);
      for (const b of bodies) expect(b.body ?? '').not.toContain(PART);
    } finally {
      db.close();
    }
  }, 60_000);

  // The proxy's own log line for each refusal ("refused by the proxy") named the tool as the client sent it.
  it('are masked in the proxy\'s log too', async () => {
    await expect(client.callTool({ name: `ws__${KEY}`, arguments: {} })).rejects.toThrow(/Unknown tool/);
    await waitFor(() => stderr().includes('refused by the proxy'), 10_000, "the proxy's refusal on stderr");
    expect(stderr()).not.toContain(PART);
  }, 60_000);
});
