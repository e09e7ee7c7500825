import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive, connectStdio, filesystemServer, makeSandbox, server, waitFor, writeConfig } from '../support/proxy-harness.js';

const DECISION_KEY = 'io.github.quadguard/decision';
const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

describe('quadguard serve over stdio (real child processes)', () => {
  const sb = makeSandbox();
  const pidFile = join(sb.dir, 'misbehaving.pids');
  const cancelFile = join(sb.dir, 'misbehaving.cancelled');
  let client: Client;
  let transport: StdioClientTransport;
  let stderr: () => string;

  beforeAll(async () => {
    const cfg = writeConfig(sb.dir, {
      servers: {
        ws: { ...server('workspace', '--root', sb.workspace), tools: { deny: ['delete_*'] } },
        mail: server('mail', '--inbox', sb.inbox, '--outbox', sb.outbox),
        fs: { ...filesystemServer(sb.fsDir), tools: { allow: ['read_*', 'list_*', 'write_file'] } },
        bad: { ...server('misbehaving'), env: { MISBEHAVING_PID_FILE: pidFile, MISBEHAVING_CANCEL_FILE: cancelFile }, timeout_ms: 1500, tools: { deny: ['delete_all'] } },
      },
      agents: { tester: { profile: { role: 'nurse' } } },
      limits: { max_argument_depth: 8, max_argument_bytes: 20_000 },
      // The first listing waits for every server's first start; the default 10 s cap is missed on a loaded machine
      // (seen here at load 27: mail and fs missing), and the listing then lacks those servers' tools.
      discovery_timeout_ms: 90_000,
    });
    ({ client, transport, stderr } = await connectStdio(cfg));
  });
  afterAll(async () => {
    await client?.close();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('lists namespaced tools of every server, follows pagination, skips malformed tools, lists task-required ones as they are, hides denied ones', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names[0]).toBe('guard_check_message');
    expect(names).toEqual(expect.arrayContaining(['ws__read_file', 'mail__send_email', 'fs__read_text_file', 'fs__write_file', 'bad__echo', 'bad__structured', 'bad__slow']));
    expect(names).not.toContain('ws__delete_file');
    expect(names).not.toContain('bad__delete_all');
    expect(names).not.toContain('fs__move_file'); // not on the allow list
    expect(names).not.toContain('bad__bad_schema');
    const taskOnly = (await client.listTools()).tools.find((t) => t.name === 'bad__task_only');
    expect(taskOnly).toMatchObject({ description: 'Requires the tasks API', execution: { taskSupport: 'required' } });
    expect(stderr()).toContain('skipping malformed tool');
    const msg = (await client.listTools()).tools[0]!;
    expect(msg.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false, idempotentHint: true });
  });

  it('forwards an allowed call and rewrites resource links in the result', async () => {
    expect(text(await client.callTool({ name: 'ws__read_file', arguments: { path: 'notes.txt' } }))).toBe('hello notes\n');
    const w = (await client.callTool({ name: 'ws__write_file', arguments: { path: 'out.txt', content: 'x' } })) as CallToolResult;
    const link = w.content.find((c) => c.type === 'resource_link') as { uri: string };
    expect(link.uri).toBe('ws+workspace://files/out.txt');
    const read = await client.readResource({ uri: link.uri });
    expect(read.contents[0]).toMatchObject({ uri: 'ws+workspace://files/out.txt', text: 'x' });
    expect(text(await client.callTool({ name: 'fs__read_text_file', arguments: { path: join(sb.fsDir, 'a.txt') } }))).toBe('filesystem file\n');
  });

  it('denies a hidden tool with a structured denial that never reaches the server', async () => {
    const r = (await client.callTool({ name: 'ws__delete_file', arguments: { path: 'notes.txt' } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Blocked by QuadGuard: .*delete_file.*deny list.*What to do instead/s);
    expect(r._meta?.[DECISION_KEY]).toMatchObject({ decision: 'deny', source: 'filter', rules: ['servers.ws.tools'] });
    expect(r.structuredContent).toBeDefined();
    expect(readFileSync(join(sb.workspace, 'notes.txt'), 'utf8')).toBe('hello notes\n');
    const d = (await client.callTool({ name: 'bad__delete_all', arguments: {} })) as CallToolResult;
    expect(d.isError).toBe(true);
    expect(text(d)).not.toContain('everything deleted');
    await expect(client.callTool({ name: 'nope__x', arguments: {} })).rejects.toThrow(/^MCP error -32602: Unknown tool/);
  });

  it('lists and reads resources under server+scheme URIs, and gets prompts', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['ws+workspace://index', 'mail+mail://inbox']));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('mail+mail://messages/{id}');
    const inbox = await client.readResource({ uri: 'mail+mail://inbox' });
    expect(inbox.contents[0]?.uri).toBe('mail+mail://inbox');
    expect(JSON.stringify(inbox.contents)).toContain('bob@example.com');
    await expect(client.readResource({ uri: 'nosuch+mail://inbox' })).rejects.toThrow(/Resource not found/);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain('ws__summarize_file');
    const p = await client.getPrompt({ name: 'ws__summarize_file', arguments: { path: 'notes.txt' } });
    expect(JSON.stringify(p.messages)).toContain('hello notes');
  });

  it('routes guard_check_message (and its dotted alias) through the guard', async () => {
    const r = (await client.callTool({ name: 'guard_check_message', arguments: { sender: 'tester', recipient: 'planner', content: 'hi' } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(text(r))).toMatchObject({ decision: 'allow', violated_rules: [], witness: [], threat_level: 0 });
    const d = await client.callTool({ name: 'guard.check_message', arguments: { sender: 'tester', recipient: 'planner', content: 'hi' } });
    expect(JSON.parse(text(d)).decision).toBe('allow');
  });

  it('rejects deeply nested and oversized arguments before the guard and the server', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 20; i++) deep = { a: deep };
    await expect(client.callTool({ name: 'bad__echo', arguments: { text: deep } })).rejects.toThrow(/nested deeper than 8/);
    await expect(client.callTool({ name: 'bad__echo', arguments: { text: 'y'.repeat(30_000) } })).rejects.toThrow(/over the 20000-byte limit/);
  });

  it('forwards progress with the upstream token restored', async () => {
    const seen: number[] = [];
    const r = await client.callTool({ name: 'bad__slow', arguments: { steps: 3 } }, undefined, { onprogress: (p) => seen.push(p.progress) });
    expect(text(r)).toBe('done 3 steps (token present)');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('propagates tools/list_changed from a downstream server', async () => {
    let notified = false;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (notified = true));
    await client.callTool({ name: 'bad__add_tool', arguments: {} });
    await waitFor(() => notified, 5000, 'list_changed');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('bad__extra');
    expect(text(await client.callTool({ name: 'bad__extra', arguments: {} }))).toBe('extra works');
  });

  it('forwards upstream cancellation to the downstream server', async () => {
    const ac = new AbortController();
    const call = client.callTool({ name: 'bad__hang', arguments: {} }, undefined, { signal: ac.signal });
    setTimeout(() => ac.abort('user gave up'), 300);
    await expect(call).rejects.toThrow();
    await waitFor(() => existsSync(cancelFile) && readFileSync(cancelFile, 'utf8') === 'cancelled\n', 5000, 'downstream cancellation');
  });

  it('times out a hung tool with a clear isError result', async () => {
    const t0 = Date.now();
    const r = (await client.callTool({ name: 'bad__hang', arguments: {} })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('did not answer tools/call within 1500 ms (the setting servers.bad.timeout_ms, or wrap --timeout MS)'); // #28: names the setting
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(text(await client.callTool({ name: 'ws__read_file', arguments: { path: 'notes.txt' } }))).toBe('hello notes\n');
  });

  it('survives a crashed server: its tools fail with isError, others keep serving, it is restarted', async () => {
    const r = (await client.callTool({ name: 'bad__crash', arguments: {} })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/server "bad"/);
    expect(text(await client.callTool({ name: 'mail__list_inbox', arguments: {} }))).toContain('bob@example.com');
    await waitFor(async () => {
      const e = (await client.callTool({ name: 'bad__echo', arguments: { text: 'back' } })) as CallToolResult;
      return !e.isError && text(e) === 'back';
    }, 15_000, 'restart of the crashed server');
  });

  it('exits and stops every child when stdin closes (no orphans)', async () => {
    const proxyPid = transport.pid!;
    const childPids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number);
    expect(childPids.length).toBeGreaterThanOrEqual(2); // started, crashed, restarted
    expect(alive(proxyPid)).toBe(true);
    transport['_process']?.stdin?.end();
    await waitFor(() => !alive(proxyPid), 10_000, 'proxy exit');
    await waitFor(() => childPids.every((p) => !alive(p)), 10_000, 'children exit');
  });
});
