/**
 * Issue #30 part 4 through the built CLI: while `quadguard serve --http` checks one session's 8 MB result, another
 * session's small call is answered. The downstream server (fixtures/big-result-server.mjs) says when the report has
 * left it in full; the small call asked after that reaches the proxy behind the whole report, on the same pipe. When
 * its answer arrives, the test reads the audit: with the pool, the report's check is still under way (its row is not
 * there yet); in the control (`guard.pool.workers: 0`, the detectors on the event loop) nothing else ran while the
 * report was read, so its row is already written (to the audit journal, before the answer). The order is asserted, not a time.
 *
 * The third case takes the detectors out of it: a book whose rules read calls only, so the report's check has nothing
 * to read and what it costs in proportion to its length is its audit row (the 8 MB payload serialised, hashed and
 * masked). That row is built in the pool too: the ping is answered before the report's row exists. Built on the
 * event loop (as before), the ping waited for it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { connectHttp } from '../../src/cli/demos/kit.js';
import { journalDir } from '../../src/store/audit-journal.js';
import { openDatabase } from '../../src/store/sqlite.js';
import { makeSandbox, ROOT, startHttpProxy, waitFor, writeConfig } from '../support/proxy-harness.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef01';
const FIXTURE = join(import.meta.dirname, 'fixtures', 'big-result-server.mjs');

describe('e2e: another session is answered while an 8 MB result is checked', () => {
  const sb = makeSandbox();
  afterAll(() => rmSync(sb.dir, { recursive: true, force: true }));

  /**
   * Whether the report's result is in the audit yet (its check is over): in the proxy's audit journal, where its row is
   * written before the answer, or in the store, where the journal's rows are committed in groups a few ms later. The
   * journal is read first: a row committed (and the journal emptied) in between is in the store by then.
   */
  const reportAudited = (store: string): boolean => {
    const dir = journalDir(store);
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
        if (!line.includes('"tool_result"')) continue;
        try {
          const { fields } = JSON.parse(line) as { fields: { kind: string; tool: string } };
          if (fields.kind === 'tool_result' && fields.tool.endsWith('report')) return true;
        } catch {
          // A line being written: not a row yet.
        }
      }
    }
    const db = openDatabase(store, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM audit WHERE kind = 'tool_result' AND tool LIKE '%report'").get() as { n: number }).n > 0;
    } finally {
      db.close();
    }
  };

  /**
   * The report (alice) and the ping asked once the report has left the server (bob): whether the report's check was
   * over when the ping was answered, and the order both came back in.
   */
  async function order(workers: number, policy = join(ROOT, 'policies', 'default'), label = String(workers)): Promise<{ auditedAtPing: boolean; order: string[]; report: CallToolResult; ping: CallToolResult; stderr: string }> {
    const sent = join(sb.dir, `sent-${label}`);
    const store = join(sb.dir, `state-${label}.db`);
    const cfg = writeConfig(
      sb.dir,
      {
        servers: { big: { command: process.execPath, args: [FIXTURE, '--mb', '8', '--sent', sent] } },
        policy,
        store,
        agents: { alice: { token: { value: ALICE } }, bob: { token: { value: BOB } } },
        limits: { max_message_bytes: 9 * 1024 * 1024 },
        guard: { pool: { workers } },
      },
      `quadguard-${label}.yaml`,
    );
    const proxy = await startHttpProxy(cfg);
    const clients: Client[] = [];
    try {
      const alice = await connectHttp(proxy.url, ALICE, 'alice');
      const bob = await connectHttp(proxy.url, BOB, 'bob');
      clients.push(alice, bob);
      // Both sessions are up and the small call passes on its own.
      expect(((await bob.callTool({ name: 'big__ping', arguments: {} })) as CallToolResult).isError).toBeFalsy();
      const seen: string[] = [];
      const report = alice.callTool({ name: 'big__report', arguments: {} }, undefined, { timeout: 300_000 }).then((r) => (seen.push('report'), r as CallToolResult));
      await waitFor(() => existsSync(sent), 120_000, 'the report to leave the server');
      let auditedAtPing = false;
      const ping = bob.callTool({ name: 'big__ping', arguments: {} }, undefined, { timeout: 300_000 }).then((r) => {
        auditedAtPing = reportAudited(store);
        seen.push('ping');
        return r as CallToolResult;
      });
      const [r, p] = await Promise.all([report, ping]);
      return { auditedAtPing, order: seen, report: r, ping: p, stderr: proxy.stderr() };
    } finally {
      for (const c of clients) await c.close().catch(() => {});
      await proxy.stop();
    }
  }

  it('with the pool, the small call of the other session is answered before the 8 MB result', async () => {
    const r = await order(1);
    expect(r.report.isError, JSON.stringify(r.report).slice(0, 500)).toBeFalsy();
    expect((r.report.content[0] as { text: string }).text.length).toBe(8 * 1024 * 1024);
    expect((r.ping.content[0] as { text: string }).text).toBe('pong');
    expect(r.auditedAtPing).toBe(false);
    expect(r.order).toEqual(['ping', 'report']);
    expect(reportAudited(join(sb.dir, 'state-1.db'))).toBe(true);
    expect(r.stderr).not.toMatch(/read on the event loop/);
  }, 300_000);

  it('with the pool, the 8 MB result\'s audit row is built off the event loop: the small call is answered before it exists', async () => {
    const book = join(sb.dir, 'calls-only');
    mkdirSync(book, { recursive: true });
    writeFileSync(
      join(book, 'book.yaml'),
      [
        'name: calls-only',
        'version: "1"',
        'predicates:',
        '  - name: secret_in_call',
        '    description: A tool call carries a credential.',
        '    scope: action',
        "    tools: ['**']",
        '    detectors: [{ type: secrets, field: arguments }]',
        'rules:',
        '  - id: no-secret-calls',
        '    text: Tool calls carry no credentials.',
        '    applies_to: [tool_call]',
        "    formula: '!secret_in_call'",
        '    severity: high',
        '',
      ].join('\n'),
    );
    const r = await order(1, book, 'audit-row');
    expect(r.report.isError, JSON.stringify(r.report).slice(0, 500)).toBeFalsy();
    expect((r.report.content[0] as { text: string }).text.length).toBe(8 * 1024 * 1024);
    expect((r.ping.content[0] as { text: string }).text).toBe('pong');
    expect(r.auditedAtPing).toBe(false);
    expect(r.order).toEqual(['ping', 'report']);
    expect(reportAudited(join(sb.dir, 'state-audit-row.db'))).toBe(true);
  }, 300_000);

  it('control: with the detectors on the event loop, the 8 MB result was checked before the small call was answered', async () => {
    const r = await order(0);
    expect(r.report.isError).toBeFalsy();
    expect(r.auditedAtPing).toBe(true);
  }, 300_000);
});
