/**
 * Credentials in context for a field named only by its schema (issue #26 item 1, docs/data-flow.md): through the
 * built CLI's `serve` with the default policy, in front of servers/vault.ts (a password in `value`, `format:
 * password`; another in `p`, described as a password) and servers/outside.ts (`deliver`, an external send). The
 * credentials reach the tools they are for, are masked in the SQLite audit, and are refused in free text and at a
 * sink, where nothing of them arrives. (A refused copy in free text is not masked in the audit preview: the masker
 * knows formats, not this identity's credentials; the same holds for credentials named by their field.)
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/sqlite.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, makeSandbox, ROOT, storeCount, waitFor, writeConfig } from '../support/proxy-harness.js';

/** Passwords that look like nothing in particular: only the schema says what they are. */
const DB_PW = 'Tr0ub4dor-horse-staple';
const WIKI_PW = 'quiet-lantern-1987';

describe('a credential named only by its schema, through serve', () => {
  const sb = makeSandbox();
  const vaultLog = join(sb.dir, 'vault.jsonl');
  const outLog = join(sb.dir, 'outside.jsonl');
  const store = join(sb.dir, 'state.db');
  let session: Awaited<ReturnType<typeof connectStdio>>;
  const call = (name: string, args: Record<string, unknown>) => session.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join(' ');
  const logged = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');

  beforeAll(async () => {
    const cfg = writeConfig(sb.dir, {
      servers: {
        vault: { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'vault.js'), '--log', vaultLog] },
        out: { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'outside.js'), '--log', outLog] },
      },
      policy: join(ROOT, 'policies', 'default'),
      store,
    });
    session = await connectStdio(cfg, 'assistant');
    await session.client.listTools();
  }, 120_000);
  afterAll(async () => {
    await session?.client.close().catch(() => undefined);
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('gives each credential to the tool it is for, again and again', async () => {
    for (let n = 0; n < 2; n++) {
      const r = await call('vault__connect_database', { host: 'db.internal', user: 'app', value: DB_PW });
      expect(r.isError, text(r)).toBeFalsy();
    }
    const r = await call('vault__login', { account: 'ada', p: WIKI_PW });
    expect(r.isError, text(r)).toBeFalsy();
    expect(logged(vaultLog)).toContain(DB_PW);
    expect(logged(vaultLog)).toContain(WIKI_PW);
  }, 60_000);

  it('refuses them in free text and at a sink; nothing of them arrives there', async () => {
    const note = await call('vault__save_note', { text: `the database password is ${DB_PW}` });
    expect(note.isError).toBe(true);
    expect(text(note)).toContain('no-secret-leak');
    const sent = await call('out__deliver', { target: 'https://partner.example/hook', payload: WIKI_PW });
    expect(sent.isError).toBe(true);
    expect(text(sent)).toContain('no-secret-leak');
    expect(logged(vaultLog)).not.toContain('the database password');
    expect(logged(outLog)).toBe('');
  }, 60_000);

  it('keeps them masked in the audit where they were given: rows and recorded interactions', async () => {
    // Rows are committed to the store in groups after the answer (the journal holds them first): wait for the calls'.
    const given = "SELECT COUNT(*) AS n FROM audit WHERE kind = 'tool_call' AND tool IN ('connect_database', 'login') AND decision = 'allow'";
    await waitFor(() => storeCount(store, given) >= 3, 10_000, 'the three allowed calls\' rows in the store');
    const db = openDatabase(store, { readonly: true });
    try {
      const rows = db
        .prepare("SELECT a.*, coalesce(i.body, b.body) AS body FROM audit a JOIN audit_interaction i ON i.id = a.id LEFT JOIN audit_body b ON b.digest = i.body_digest WHERE a.kind = 'tool_call' AND a.tool IN ('connect_database', 'login')")
        .all() as Array<Record<string, unknown>>;
      expect(rows.filter((r) => r.decision === 'allow')).toHaveLength(3);
      for (const r of rows) {
        expect(String(r.body)).toContain('REDACTED');
        expect(JSON.stringify(r)).not.toContain(DB_PW);
        expect(JSON.stringify(r)).not.toContain(WIKI_PW);
      }
    } finally {
      db.close();
    }
  });
});
