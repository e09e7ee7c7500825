/**
 * The first hour of a new user (issue #14's "done when"), with the built CLI as child processes, in a temp
 * directory that is not the clone and with a temp HOME (the real ~/.quadguard is never touched): `init`, `serve`
 * with the written config over stdio and over HTTP (with the token init wrote), `wrap` then `audit tail` and
 * `audit verify` with no `--store`, and `eval` on a hand-written case file. No flags beyond those the README shows.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CASES } from '../../scripts/gen-docs.js';
import { CLI, ROOT, spawnHttpProxy } from '../support/proxy-harness.js';

let tmp: string;
let home: string;
let project: string;
let elsewhere: string;
/** The environment a user's shell would give: PATH and HOME, nothing QuadGuard-specific. */
let env: Record<string, string>;

function cli(args: string[], cwd: string): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

async function stdioClient(args: string[], cwd: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, ...args], cwd, env: { ...env, QUADGUARD_LOG_LEVEL: 'info' }, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const client = new Client({ name: 'first-hour', version: '0.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'qg-first-hour-'));
  home = join(tmp, 'home');
  project = join(tmp, 'project');
  elsewhere = join(tmp, 'elsewhere');
  for (const d of [home, project, elsewhere]) mkdirSync(d, { recursive: true });
  env = { PATH: process.env.PATH ?? '', HOME: home };
  expect(project.startsWith(ROOT)).toBe(false);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the first hour, from a directory other than the clone', () => {
  it('init writes a config with its own policy copy and a 0600 agent token, and prints next steps', () => {
    const r = cli(['init'], project);
    expect(r.status, r.err).toBe(0);
    expect(r.out).toContain('next steps (from this folder):');
    expect(r.out).toContain('quadguard serve --http 8787');
    const config = readFileSync(join(project, 'quadguard.config.yaml'), 'utf8');
    expect(config).toMatch(/^policy: quadguard-policy\b/m);
    expect(config).toMatch(/token: \{ file: \.quadguard\/assistant\.token \}/);
    expect(statSync(join(project, '.quadguard', 'assistant.token')).mode & 0o777).toBe(0o600);
    expect(existsSync(join(project, 'quadguard-policy', 'book.yaml'))).toBe(true);
  });

  it('status names the config, its store, its policy and the token file', () => {
    const r = cli(['status'], project);
    expect(r.status, r.err).toBe(0);
    expect(r.out).toContain(`config:     ${join(project, 'quadguard.config.yaml')}`);
    expect(r.out).toContain(`store:      ${join(project, '.quadguard', 'state.db')}`);
    expect(r.out).toContain(`policy:     ${join(project, 'quadguard-policy')}`);
    expect(r.out).toContain(`assistant: file ${join(project, '.quadguard', 'assistant.token')}`);
  });

  it('serve (stdio) with the written config: tools listed, a denial in one message, the start line names the store', async () => {
    const { client, stderr } = await stdioClient(['serve'], project);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('workspace__write_file');
      expect(names).not.toContain('workspace__delete_file');
      const ok = await client.callTool({ name: 'workspace__write_file', arguments: { path: 'hello.txt', content: 'hi' } });
      expect(ok.isError, text(ok)).toBeFalsy();
      expect(readFileSync(join(project, 'quadguard-sandbox', 'hello.txt'), 'utf8')).toBe('hi');
      const denied = await client.callTool({ name: 'workspace__delete_file', arguments: { path: 'hello.txt' } });
      expect(denied.isError).toBe(true);
      expect(text(denied)).toMatch(/^Blocked by QuadGuard: the call to tool workspace__delete_file was not allowed\.\n/);
      expect(text(denied).match(/What to do instead/g)).toHaveLength(1);
    } finally {
      await client.close();
    }
    expect(stderr()).toContain(`"store":"${join(project, '.quadguard', 'state.db')}"`);
    expect(stderr()).not.toMatch(/"level":40/); // no warning on a clean start
  });

  it('serve --http with the written config: the token from init is required and accepted', async () => {
    const proxy = await spawnHttpProxy(['serve', '--http', '0'], { cwd: project, env: { ...env, QUADGUARD_LOG_LEVEL: 'info' }, timeoutMs: 30_000 });
    try {
      expect(proxy.stderr()).toContain('"auth":true');
      const url = new URL(`${proxy.url}/mcp`);
      const anonymous = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
      expect(anonymous.status).toBe(401);
      const token = readFileSync(join(project, '.quadguard', 'assistant.token'), 'utf8').trim();
      const client = new Client({ name: 'first-hour-http', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('workspace__read_file');
      } finally {
        await client.close();
      }
    } finally {
      await proxy.stop();
    }
  });

  it('audit tail and verify in the project folder read the config\'s store without --store', () => {
    const tail = cli(['audit', 'tail'], project);
    expect(tail.status, tail.err).toBe(0);
    expect(tail.out).toContain('workspace__write_file');
    const verify = cli(['audit', 'verify'], project);
    expect(verify.status, verify.err).toBe(0);
    expect(verify.out).toMatch(/^audit log ok: \d+ rows/);
  });

  it('wrap, then audit tail and audit verify with no --store, agree on ~/.quadguard/state.db', async () => {
    const { client, stderr } = await stdioClient(['wrap', '--', 'node', join(ROOT, 'dist', 'servers', 'workspace.js'), '--root', join(elsewhere, 'ws')], elsewhere);
    try {
      const r = await client.callTool({ name: 'write_file', arguments: { path: 'a.txt', content: 'x' } });
      expect(r.isError, text(r)).toBeFalsy();
    } finally {
      await client.close();
    }
    const store = join(home, '.quadguard', 'state.db');
    expect(stderr()).toContain(`"store":"${store}","storeFrom":"home"`);
    expect(existsSync(store)).toBe(true);
    const tail = cli(['audit', 'tail'], elsewhere);
    expect(tail.status, tail.err).toBe(0);
    expect(tail.out).toContain('workspace__write_file');
    const verify = cli(['audit', 'verify'], elsewhere);
    expect(verify.status, verify.err).toBe(0);
    expect(verify.out).toMatch(/^audit log ok: \d+ rows/);
    expect(cli(['status'], elsewhere).out).toContain(`store:      ${store}  (from $QUADGUARD_HOME, else ~/.quadguard; exists)`);
  });

  it('eval on a hand-written case file finds the shipped books from here', () => {
    writeFileSync(join(elsewhere, 'my-cases.jsonl'), `${EXAMPLE_CASES.map((c) => JSON.stringify(c)).join('\n')}\n`);
    const r = cli(['eval', '--cases', 'my-cases.jsonl', '--fail-under', '100%'], elsewhere);
    expect(r.status, r.err).toBe(0);
    expect(r.out).toMatch(/^overall\s+3\s+100\.0%/m);
  });
});
