/**
 * Red team (issue 27, class 5): a credential split across two arguments of one call. The `secrets` detector read
 * each field apart, so a GitHub token or an AWS key cut between the file name and the content of a `publish` was
 * published (on main a63fc55 the file appeared in the public folder). The fields of one call are now also read
 * joined, in their order and reversed. Through the built CLI with the project's workspace server as a child process.
 * Controls: an ordinary publish, and one whose name and content hold ids that are no credential, go through.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, ROOT, waitFor, writeConfig } from '../support/proxy-harness.js';

describe('red team: a credential split across two arguments (class 5)', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'qg-split-')));
  const root = join(dir, 'ws');
  const pub = join(dir, 'public');
  mkdirSync(root);
  mkdirSync(pub);
  const config = writeConfig(dir, {
    servers: { ws: { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'workspace.js'), '--root', root, '--public', pub] } },
    policy: join(ROOT, 'policies', 'default'),
    store: join(dir, 'state.db'),
    guard: { watcher: { quarantine: false } },
  });
  let client: Client;
  const publish = async (name: string, content: string) => (await client.callTool({ name: 'ws__publish', arguments: { name, content } })) as CallToolResult;

  beforeAll(async () => {
    client = (await connectStdio(config, 'publisher')).client;
    await waitFor(async () => (await client.listTools()).tools.some((t) => t.name === 'ws__publish'), 30_000, 'the workspace tools');
  }, 60_000);
  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each<[string, string, string]>([
    ['a GitHub token cut between name and content', 'ghp_AbCdEfGhIjKlMnOpQr', 'StUvWxYz0123456789'],
    ['an AWS key cut between name and content', 'AKIAIOSFOD', 'NN7EXAMPLE'],
    ['a GitHub token cut with the content first', 'StUvWxYz0123456789', 'ghp_AbCdEfGhIjKlMnOpQr'],
  ])('denies %s, and nothing is published', async (_what, name, content) => {
    const r = await publish(name, content);
    expect(r.isError).toBe(true);
    expect(existsSync(join(pub, name))).toBe(false);
  });

  it.each<[string, string, string]>([
    ['an ordinary note', 'notes.txt', 'Weekly notes: shipped the release, fixed two bugs.'],
    ['ids that are no credential', 'order-4711.txt', 'Order 4711 for customer C-1002 shipped on Friday.'],
  ])('control: publishes %s', async (_what, name, content) => {
    const r = await publish(name, content);
    expect(r.isError).toBeFalsy();
    expect(readdirSync(pub)).toContain(name);
  });
});
