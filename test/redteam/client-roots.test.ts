/**
 * Relative paths resolved against the roots the client declares (issue #12). `@modelcontextprotocol/server-filesystem`
 * started with no directories takes its allowed directories from the client's roots (roots/list, answered by the
 * proxy from the upstream client) and resolves a relative path against them, not against its working directory.
 * The built CLI (`serve`, stdio) with the default book (sandbox = this test's sandbox) in front of the real server;
 * the server's working directory is inside the sandbox, so a proxy that judged relative paths by the cwd alone
 * would let `move_file victim.txt` through while the server moves a file outside the sandbox.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaDecision } from '../e2e/helpers.js';
import { CLI, filesystemServer, startHttpProxy, waitFor, writeConfig } from '../support/proxy-harness.js';
import { bookFor } from '../support/sandbox-book.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'qg-roots-')));
const sandbox = join(dir, 'sandbox');
const outside = join(dir, 'outside');
mkdirSync(sandbox);
mkdirSync(outside);
const fs = filesystemServer(dir);
fs.args.pop(); // started with no directories: its allowed directories come from the client's roots only

const config = writeConfig(dir, {
  servers: { fs: { command: fs.command, args: fs.args, cwd: sandbox } },
  policy: bookFor(dir, sandbox),
  store: join(dir, 'state.db'),
  guard: { watcher: { quarantine: false } },
});

let roots: string[] = [sandbox];
let client: Client;
let stderr = '';
const uri = (d: string) => pathToFileURL(d).href;

const isDenied = (r: unknown): boolean => (r as CallToolResult).isError === true && metaDecision(r)?.decision === 'deny';
const textOf = (r: unknown): string => ((r as CallToolResult).content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('\n');

/** The server's own view of its allowed directories (list_allowed_directories), in order. */
async function allowed(): Promise<string[]> {
  const t = textOf(await client.callTool({ name: 'fs__list_allowed_directories', arguments: {} }));
  return t.split('\n').slice(1).filter(Boolean);
}

/** Changes the client's roots, tells the proxy, and waits until the server uses them. */
async function setRoots(next: string[]): Promise<void> {
  roots = next;
  await client.sendRootsListChanged();
  await waitFor(async () => JSON.stringify(await allowed()) === JSON.stringify(next), 15_000, `server roots ${next.join(', ')}`);
}

beforeAll(async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--config', config, '--agent', 'rooted'],
    env: { PATH: process.env.PATH ?? '', QUADGUARD_LOG_LEVEL: 'info' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  client = new Client({ name: 'roots-client', version: '0' }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.map((d) => ({ uri: uri(d), name: d })) }));
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('relative paths against the roots the client declares (server-filesystem, no start directories)', () => {
  it('the server gets the client\'s roots through the proxy, though it asked before any client was connected', async () => {
    await waitFor(async () => JSON.stringify(await allowed()) === JSON.stringify([sandbox]), 15_000, 'first roots');
  }, 30_000);

  it('control: a relative move inside a root in the sandbox goes through, resolved against that root', async () => {
    writeFileSync(join(sandbox, 'a.txt'), 'a');
    const r = await client.callTool({ name: 'fs__move_file', arguments: { source: 'a.txt', destination: 'a2.txt' } });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(existsSync(join(sandbox, 'a2.txt'))).toBe(true);
  }, 30_000);

  it('a relative path after the client moved its root outside the sandbox is denied, and the file stays', async () => {
    writeFileSync(join(outside, 'victim.txt'), 'v');
    await setRoots([outside]);
    for (const source of ['victim.txt', './victim.txt', 'sub/../victim.txt']) {
      const r = await client.callTool({ name: 'fs__move_file', arguments: { source, destination: 'gone.txt' } });
      expect(isDenied(r), `${source}: ${JSON.stringify(r)}`).toBe(true);
      expect(metaDecision(r)?.rules).toContain('no-delete-outside-sandbox');
    }
    expect(existsSync(join(outside, 'victim.txt'))).toBe(true);
    expect(existsSync(join(outside, 'gone.txt'))).toBe(false);
    // The server itself would have done it: it reads files there by relative path.
    const read = await client.callTool({ name: 'fs__read_text_file', arguments: { path: 'victim.txt' } });
    expect(textOf(read)).toBe('v');
  }, 40_000);

  it('several roots, one outside the sandbox: a relative path is ambiguous, denied, and the denial names the roots', async () => {
    writeFileSync(join(sandbox, 'both.txt'), 'b');
    writeFileSync(join(outside, 'both.txt'), 'b');
    await setRoots([sandbox, outside]);
    const r = await client.callTool({ name: 'fs__move_file', arguments: { source: 'both.txt', destination: 'both2.txt' } });
    expect(isDenied(r), JSON.stringify(r)).toBe(true);
    // The client is told why: the relative paths have two candidate directories (cwd = first root, second root).
    expect(textOf(r)).toContain(`Relative paths "both.txt", "both2.txt" may resolve against any of 2 directories of server "fs"`);
    expect(textOf(r)).toContain(`${sandbox}, ${outside}`);
    expect(existsSync(join(sandbox, 'both.txt'))).toBe(true);
    expect(existsSync(join(outside, 'both.txt'))).toBe(true);
  }, 40_000);

  it('back to one root in the sandbox: relative paths go through again once the change has settled', async () => {
    await setRoots([sandbox]);
    await new Promise((r) => setTimeout(r, 2_100)); // ROOTS_SETTLE_MS: the old roots stay candidates meanwhile
    writeFileSync(join(sandbox, 'c.txt'), 'c');
    const r = await client.callTool({ name: 'fs__move_file', arguments: { source: 'c.txt', destination: 'c2.txt' } });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(existsSync(join(sandbox, 'c2.txt'))).toBe(true);
  }, 40_000);
});

describe('over HTTP, two clients: the roots belong to the server, not to the session that calls', () => {
  const hdir = join(dir, 'http');
  const hsandbox = join(hdir, 'sandbox');
  const houtside = join(hdir, 'outside');
  mkdirSync(hsandbox, { recursive: true });
  mkdirSync(houtside, { recursive: true });
  const hconfig = writeConfig(hdir, {
    servers: { fs: { command: fs.command, args: fs.args, cwd: hsandbox } },
    policy: bookFor(hdir, hsandbox),
    store: join(hdir, 'state.db'),
    guard: { watcher: { quarantine: false } },
  });
  const clients: Client[] = [];
  let stop: () => Promise<void> = async () => {};
  const connect = async (url: string, declared: string[]): Promise<Client> => {
    const c = new Client({ name: 'roots-http', version: '0' }, { capabilities: { roots: { listChanged: true } } });
    c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: declared.map((d) => ({ uri: uri(d) })) }));
    await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    clients.push(c);
    return c;
  };
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await stop();
  });

  it('a second client whose own root is in the sandbox cannot move a file by relative path from the first client\'s root', async () => {
    const proxy = await startHttpProxy(hconfig, {}, ['--no-ui']);
    stop = proxy.stop;
    const a = await connect(proxy.url, [houtside]);
    const shown = async (c: Client) => textOf(await c.callTool({ name: 'fs__list_allowed_directories', arguments: {} }));
    await waitFor(async () => (await shown(a)).includes(houtside), 15_000, 'the server takes the first client\'s roots');
    writeFileSync(join(houtside, 'victim.txt'), 'v');
    const b = await connect(proxy.url, [hsandbox]);
    // The server still uses the first client's roots: a relative path names a file outside the sandbox.
    expect(await shown(b)).toContain(houtside);
    const r = await b.callTool({ name: 'fs__move_file', arguments: { source: 'victim.txt', destination: 'gone.txt' } });
    expect(isDenied(r), JSON.stringify(r)).toBe(true);
    expect(existsSync(join(houtside, 'victim.txt'))).toBe(true);
    expect(existsSync(join(houtside, 'gone.txt'))).toBe(false);
  }, 60_000);
});
