import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/core/log.js';
import { createProxy } from '../../src/proxy/index.js';
import { CLI, connectStdio, makeSandbox, server, startHttpProxy, writeConfig } from '../support/proxy-harness.js';

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

describe('remote downstream servers (Streamable HTTP and legacy SSE)', () => {
  const sb = makeSandbox();
  let upstream: Awaited<ReturnType<typeof startHttpProxy>>;
  beforeAll(async () => {
    upstream = await startHttpProxy(writeConfig(sb.dir, { servers: { ws: server('workspace', '--root', sb.workspace) } }, 'inner.yaml'));
  });
  afterAll(async () => {
    await upstream?.stop();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('connects to a url over http and over sse and forwards calls and resources', async () => {
    const cfg = writeConfig(sb.dir, {
      servers: { remote: { url: `${upstream.url}/mcp`, transport: 'http' }, legacy: { url: `${upstream.url}/sse`, transport: 'sse' } },
    });
    const { client } = await connectStdio(cfg);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['remote__ws__read_file', 'legacy__ws__read_file']));
      expect(text(await client.callTool({ name: 'remote__ws__read_file', arguments: { path: 'notes.txt' } }))).toBe('hello notes\n');
      expect(text(await client.callTool({ name: 'legacy__ws__read_file', arguments: { path: 'notes.txt' } }))).toBe('hello notes\n');
      const r = await client.readResource({ uri: 'remote+ws+workspace://index' });
      expect(r.contents[0]?.uri).toBe('remote+ws+workspace://index');
    } finally {
      await client.close();
    }
  });

  // The SDK gives every request of a connection one shared abort signal, and Node's fetch leaves a listener on it per
  // request until GC: past 1,500 the proxy printed a MaxListenersExceededWarning to stderr on every call
  // (src/proxy/request-signal.ts).
  it('makes 1,800 calls over http and over sse without piling abort listeners up (no MaxListenersExceededWarning)', async () => {
    const cfg = writeConfig(sb.dir, {
      servers: { remote: { url: `${upstream.url}/mcp`, transport: 'http' }, legacy: { url: `${upstream.url}/sse`, transport: 'sse' } },
    }, 'many.yaml');
    const { client, stderr } = await connectStdio(cfg);
    try {
      for (const name of ['remote__ws__read_file', 'legacy__ws__read_file']) {
        for (let i = 0; i < 1800; i++) expect(text(await client.callTool({ name, arguments: { path: 'notes.txt' } }))).toBe('hello notes\n');
      }
      expect(stderr()).not.toContain('MaxListenersExceededWarning');
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe('remote downstream restart', () => {
  it('re-initialises after the remote forgets the session (HTTP 404) and retries the call once', async () => {
    const sb = makeSandbox();
    const innerCfg = writeConfig(sb.dir, { servers: { ws: server('workspace', '--root', sb.workspace) } }, 'inner.yaml');
    let inner = await startHttpProxy(innerCfg);
    const port = inner.port;
    const { client } = await connectStdio(writeConfig(sb.dir, { servers: { remote: { url: `${inner.url}/mcp` } } }));
    try {
      expect(text(await client.callTool({ name: 'remote__ws__read_file', arguments: { path: 'notes.txt' } }))).toBe('hello notes\n');
      await inner.stop();
      inner = await startHttpProxy(innerCfg, {}, ['--http', String(port)]);
      const r = (await client.callTool({ name: 'remote__ws__read_file', arguments: { path: 'notes.txt' } })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect(text(r)).toBe('hello notes\n');
    } finally {
      await client.close();
      await inner.stop();
      rmSync(sb.dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('quadguard wrap', () => {
  // Its own store, never the user's ~/.quadguard/state.db.
  const storeDir = mkdtempSync(join(tmpdir(), 'qg-wrap-'));
  const store = join(storeDir, 'state.db');
  afterAll(() => rmSync(storeDir, { recursive: true, force: true }));

  it('guards one stdio server without a config file, keeping its tool names', async () => {
    const s = server('misbehaving');
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'wrap', '--store', store, '--agent', 'desk', '--', s.command, ...s.args], stderr: 'ignore' });
    const client = new Client({ name: 't', version: '0' });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('echo');
      expect(names).not.toContain('misbehaving__echo');
      expect(text(await client.callTool({ name: 'echo', arguments: { text: 'wrapped' } }))).toBe('wrapped');
    } finally {
      await client.close();
    }
  });

  it('with --prefix, names the tools <key>__<tool> after the command', async () => {
    const s = server('misbehaving');
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'wrap', '--prefix', '--store', store, '--agent', 'desk', '--', s.command, ...s.args], stderr: 'ignore' });
    const client = new Client({ name: 't', version: '0' });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('misbehaving__echo');
      expect(text(await client.callTool({ name: 'misbehaving__echo', arguments: { text: 'wrapped' } }))).toBe('wrapped');
    } finally {
      await client.close();
    }
  });

  it('rejects a --policy path that does not exist', async () => {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, [CLI, 'wrap', '--policy', '/no/such/policy', '--', 'node', 'x.js'], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/policy: path \/no\/such\/policy does not exist/);
  });
});

describe('message tool naming', () => {
  it('lists guard.check_message when message_tool_name is dotted, and accepts both names', async () => {
    const proxy = createProxy({ config: validateConfig({ message_tool_name: 'dotted' }), logger: silentLogger() });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await proxy.serveTransport(st, { id: 's', agent: 'a', profile: {}, authenticated: false });
    const client = new Client({ name: 't', version: '0' });
    await client.connect(ct);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['guard.check_message']);
    const r = await client.callTool({ name: 'guard_check_message', arguments: { sender: 'a', recipient: 'b', content: 'c' } });
    expect(JSON.parse(text(r)).decision).toBe('allow');
    await client.close();
    await proxy.close();
  });
});
