/**
 * Every refusal is a recorded decision (issue #17): a mixed run through the built CLI over Streamable HTTP —
 * allowed calls, policy denials, an unknown tool, a tool hidden after a rug pull, a tool hidden by `tools.deny`,
 * a spoofed sender, oversized and too-deep arguments, a quarantined agent — and, call by call, what the client
 * received is compared with what the audit log says (decision, source, rule, and the id quoted to the client).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledServer, connectHttp, runCli } from '../../src/cli/demos/kit.js';
import { openStore, type Store } from '../../src/store/db.js';
import type { AuditRow } from '../../src/store/audit.js';
import { makeSandbox, ROOT, server, startHttpProxy, waitFor, writeConfig } from '../support/proxy-harness.js';
import { messageVerdict, metaDecision } from './helpers.js';
import { collect } from '../store/helpers.js';

const TOKENS = { ALICE_TOKEN: 'alice-token-0123456789abcdef', MALLORY_TOKEN: 'mallory-token-0123456789abcdef' };
const UI_TOKEN = 'refusals-ui-token-0123456789abcdef';

/** What one client saw: refused or not, and the decision id it was given (denials quote one). */
interface Seen {
  label: string;
  agent: string;
  refused: boolean;
  auditId?: string;
  /** The audit row the call must have produced. */
  expect: { kind: AuditRow['kind']; tool?: string; decision: 'allow' | 'deny'; source: string; rule?: string };
}

/** The `(decision 42-3fa9c1d2)` (or a journaled `j7f3a9c2e1b40.2a`) a protocol error quotes, or the `_meta` decision's auditId of a tool result. */
function auditIdOf(r: CallToolResult | Error): string | undefined {
  if (r instanceof Error) return /\(decision (\d+-[0-9a-f]{8}|j[0-9a-f]{12}\.[0-9a-z]+)\)/.exec(r.message)?.[1];
  const meta = metaDecision(r) as { auditId?: string } | undefined;
  if (meta?.auditId) return meta.auditId;
  return undefined;
}

describe('e2e: the audit agrees with what clients received, refusal by refusal', () => {
  const sb = makeSandbox();
  const storeFile = join(sb.dir, 'state.db');
  let proxy: Awaited<ReturnType<typeof startHttpProxy>> | undefined;
  let alice: Client;
  let mallory: Client;
  let store: Store;
  let firstId = 0;
  const seen: Seen[] = [];

  const call = async (c: Client, agent: string, label: string, name: string, args: Record<string, unknown>, expectRow: Seen['expect']) => {
    const r = await c.callTool({ name, arguments: args }).then((x) => x as CallToolResult, (e: Error) => e);
    const refused = r instanceof Error || r.isError === true;
    const id = auditIdOf(r);
    seen.push({ label, agent, refused, ...(id ? { auditId: id } : {}), expect: expectRow });
    return r;
  };

  beforeAll(async () => {
    const cfg = writeConfig(sb.dir, {
      servers: { ws: { ...server('workspace', '--root', sb.workspace), tools: { deny: ['write_file'] } }, weather: { ...bundledServer('shifty'), capabilities: { '*': ['private_source'] } } },
      policy: join(ROOT, 'policies', 'default'),
      store: storeFile,
      limits: { max_argument_bytes: 4000, max_argument_depth: 8 },
      // planner: a configured agent, so a message to it is one between known agents (a recipient outside the list is refused).
      agents: { alice: { token: { env: 'ALICE_TOKEN' } }, mallory: { token: { env: 'MALLORY_TOKEN' } }, planner: {} },
    });
    proxy = await startHttpProxy(cfg, { ...TOKENS, QUADGUARD_UI_TOKEN: UI_TOKEN });
    alice = await connectHttp(proxy.url, TOKENS.ALICE_TOKEN, 'e2e');
    mallory = await connectHttp(proxy.url, TOKENS.MALLORY_TOKEN, 'e2e');
    store = openStore(storeFile);
    firstId = (await store.audit.tail(1))[0]?.id ?? 0;
  }, 120_000);
  afterAll(async () => {
    await alice?.close().catch(() => {});
    await mallory?.close().catch(() => {});
    await proxy?.stop();
    await store?.close();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('records every refusal with the decision and source the client was given', async () => {
    const ok = await call(alice, 'alice', 'allowed read', 'ws__read_file', { path: 'notes.txt' }, { kind: 'tool_call', tool: 'read_file', decision: 'allow', source: 'pipeline' });
    expect((ok as CallToolResult).isError, JSON.stringify(ok)).toBeFalsy();

    await call(alice, 'alice', 'policy denial', 'ws__delete_file', { path: '/etc/hostname' }, { kind: 'tool_call', tool: 'delete_file', decision: 'deny', source: 'pipeline', rule: 'no-delete-outside-sandbox' });
    const unknown = await call(alice, 'alice', 'unknown tool', 'nope__x', {}, { kind: 'tool_call', tool: 'x', decision: 'deny', source: 'unknown', rule: 'unknown-tool' });
    expect(unknown).toBeInstanceOf(Error);
    expect((unknown as Error).message).toMatch(/Unknown tool: nope__x/);
    const filtered = await call(alice, 'alice', 'filtered tool', 'ws__write_file', { path: 'a.txt', content: 'x' }, { kind: 'tool_call', tool: 'write_file', decision: 'deny', source: 'filter', rule: 'servers.ws.tools' });
    expect((filtered as CallToolResult).isError).toBe(true);

    // Rug pull: the changed tool is hidden; a call to it is refused and recorded as refused, never as allowed.
    await call(alice, 'alice', 'allowed control call', 'weather__deploy_update', {}, { kind: 'tool_call', tool: 'deploy_update', decision: 'allow', source: 'pipeline' });
    await waitFor(async () => !(await alice.listTools()).tools.some((t) => t.name === 'weather__get_forecast'), 30_000, 'the changed tool to be hidden');
    const hidden = await call(alice, 'alice', 'hidden tool', 'weather__get_forecast', { city: 'Lisbon' }, { kind: 'tool_call', tool: 'get_forecast', decision: 'deny', source: 'hidden', rule: 'tool-hidden' });
    expect(hidden).toBeInstanceOf(Error);

    const spoof = await call(alice, 'alice', 'spoofed sender', 'guard_check_message', { sender: 'bob', recipient: 'planner', content: 'hello' }, { kind: 'message', decision: 'deny', source: 'identity', rule: 'sender-must-match-identity' });
    expect(messageVerdict(spoof).decision).toBe('deny');
    const own = await call(alice, 'alice', 'allowed message', 'guard_check_message', { sender: 'alice', recipient: 'planner', content: 'The draft is ready.' }, { kind: 'message', decision: 'allow', source: 'pipeline' });
    expect(messageVerdict(own).decision).toBe('allow');

    const big = await call(alice, 'alice', 'oversized arguments', 'ws__read_file', { path: 'x'.repeat(5000) }, { kind: 'tool_call', tool: 'read_file', decision: 'deny', source: 'limits', rule: 'limits.max_argument_bytes' });
    expect((big as Error).message).toMatch(/over the 4000-byte limit/);
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 12; i++) deep = { d: deep };
    const tooDeep = await call(alice, 'alice', 'too-deep arguments', 'ws__read_file', { path: 'notes.txt', deep }, { kind: 'tool_call', tool: 'read_file', decision: 'deny', source: 'limits', rule: 'limits.max_argument_depth' });
    expect((tooDeep as Error).message).toMatch(/nested deeper than 8/);

    // Quarantine, as the watcher would set it (the store is shared by file): every call of mallory is refused.
    await store.state.quarantine('mallory', 'test: quarantined for the audit comparison', 'test');
    const q = await call(mallory, 'mallory', 'quarantined agent', 'ws__read_file', { path: 'notes.txt' }, { kind: 'tool_call', tool: 'read_file', decision: 'deny', source: 'quarantine' });
    expect(metaDecision(q)?.rationale).toMatch(/quarantined/);

    // Call by call: the rows of the calls (not results, not admin rows), in order, say what each client received.
    const callRows = async () => (await collect(store.audit.iterate(firstId + 1))).filter((r) => (r.kind === 'tool_call' || r.kind === 'message') && (r.agent === 'alice' || r.agent === 'mallory'));
    // The proxy answers once a row is in its audit journal and commits it right after (docs/operations.md).
    await waitFor(async () => (await callRows()).length >= seen.length, 5000, 'the rows of every call to be committed').catch(() => {});
    const rows = await callRows();
    const report = seen.map((s, i) => `${s.label}: client ${s.refused ? 'refused' : 'served'}; audit ${rows[i] ? `${rows[i]!.decision}/${rows[i]!.source} ${rows[i]!.tool ?? rows[i]!.kind}` : 'nothing'}`).join('\n');
    expect(rows.length, report).toBe(seen.length);
    seen.forEach((s, i) => {
      const row = rows[i]!;
      expect({ label: s.label, agent: row.agent, kind: row.kind, decision: row.decision, source: row.source }, report).toEqual({
        label: s.label,
        agent: s.agent,
        kind: s.expect.kind,
        decision: s.expect.decision,
        source: s.expect.source,
      });
      expect(row.decision === 'deny', `${s.label}: client and audit disagree\n${report}`).toBe(s.refused);
      if (s.expect.tool) expect(row.tool, s.label).toBe(s.expect.tool);
      if (s.expect.rule) expect(row.rules, s.label).toContain(s.expect.rule);
      // Every refusal quotes the id of the row that records it (guard_check_message carries no id in its body).
      if (s.refused && s.expect.kind !== 'message') expect(s.auditId, `${s.label}: no decision id given to the client`).toBe(row.auditId);
    });
    // The hidden tool was never recorded as allowed after the rug pull.
    const afterPull = rows.slice(seen.findIndex((s) => s.label === 'allowed control call') + 1);
    expect(afterPull.some((r) => r.tool === 'get_forecast' && r.decision === 'allow')).toBe(false);
    // Refusals recorded with their arguments (masked) where it is safe: the oversized path is there as a preview.
    const bigRow = rows[seen.findIndex((s) => s.label === 'oversized arguments')]!;
    expect(bigRow.preview).toMatch(/^\{"path":"xxxx/);
    expect((await store.audit.verify()).ok).toBe(true);

    // The live view serves the same rows: every refusal is there with its decision and source.
    const snap = (await (await fetch(`${proxy!.url}/ui/api/snapshot`, { headers: { authorization: `Bearer ${UI_TOKEN}` } })).json()) as { decisions: AuditRow[] };
    const shown = new Map(snap.decisions.map((r) => [r.auditId, r]));
    for (const row of rows) expect(shown.get(row.auditId), `live view misses ${row.auditId}`).toMatchObject({ decision: row.decision, source: row.source, kind: row.kind });

    // `audit tail` names who refused when it was not the policy pipeline.
    const tail = await runCli(['audit', 'tail', '-n', '100', '--store', storeFile]);
    expect(tail.code, tail.stderr).toBe(0);
    for (const source of ['unknown', 'filter', 'hidden', 'identity', 'limits', 'quarantine']) expect(tail.stdout).toMatch(new RegExp(`^\\S+ +\\S+ +deny .*\\(by ${source}\\)`, 'm'));
  }, 120_000);
});
