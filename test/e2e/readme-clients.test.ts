/**
 * The README's client entries agree with the config `quadguard init` writes (issue #28, friction 1): every
 * `--agent` the README names is an agent init declares, and each stdio entry of "Register it in your client",
 * taken from the README as written, starts against a fresh `init` folder and lists and guards its tools. `quadguard`
 * is put on PATH as `npm install -g` puts it (a link to the built CLI); `/abs/my-guard` and `${workspaceFolder}`
 * become the init folder. Then `quadguard install` for each of the four clients into the empty HOME, as a user whose
 * servers are in the client's own user file: each written entry starts from elsewhere against the init folder.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INIT_AGENT, INIT_STDIO_AGENTS } from '../../src/install/init.js';
import { CLI, ROOT } from '../support/proxy-harness.js';

interface Entry {
  client: string;
  command: string;
  args: string[];
}

/** The README section that registers QuadGuard in a client. */
function registerSection(readme: string): string {
  const start = readme.indexOf('## Register it in your client');
  const end = readme.indexOf('\n## ', start + 1);
  expect(start, 'README has a "Register it in your client" section').toBeGreaterThan(0);
  return readme.slice(start, end);
}

/** Every stdio entry of the section: the JSON blocks' servers and the `claude mcp add --transport stdio` lines. */
function readmeEntries(section: string): Entry[] {
  const entries: Entry[] = [];
  // One part per bold client name; its JSON blocks are its entries.
  for (const part of section.split(/\n(?=\*\*)/)) {
    const client = /^\*\*([^*]+)\*\*/.exec(part)?.[1];
    if (client === undefined) continue;
    for (const m of part.matchAll(/```json\n([\s\S]*?)```/g)) {
      const doc = JSON.parse(m[1]!) as { mcpServers?: Record<string, Entry>; servers?: Record<string, Entry> };
      for (const e of Object.values(doc.mcpServers ?? doc.servers ?? {})) entries.push({ client, command: e.command, args: e.args });
    }
  }
  for (const m of section.matchAll(/^claude mcp add --transport stdio .*? -- (.+)$/gm)) {
    const [command, ...args] = m[1]!.trim().split(/\s+/) as [string, ...string[]];
    entries.push({ client: 'Claude Code', command, args });
  }
  return entries;
}

let tmp: string;
let project: string;
let elsewhere: string;
let env: Record<string, string>;
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'qg-readme-clients-'));
  project = join(tmp, 'my-guard');
  elsewhere = join(tmp, 'elsewhere');
  const bin = join(tmp, 'bin');
  for (const d of [project, elsewhere, bin, join(tmp, 'home')]) mkdirSync(d, { recursive: true });
  symlinkSync(CLI, join(bin, 'quadguard'));
  env = { PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`, HOME: join(tmp, 'home') };
  const init = spawnSync(process.execPath, [CLI, 'init'], { cwd: project, env, encoding: 'utf8' });
  expect(init.status, init.stderr).toBe(0);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("the README's client entries and the config init writes", () => {
  it('every --agent the README names is an agent init declares', () => {
    const named = [...readme.matchAll(/--agent"?,? "?([A-Za-z0-9_.-]+)/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThanOrEqual(4);
    const declared = [...INIT_STDIO_AGENTS, INIT_AGENT] as string[];
    expect(named.filter((a) => !declared.includes(a))).toEqual([]);
  });

  const entries = readmeEntries(registerSection(readme));
  it('the README shows an entry for each of the four clients', () => {
    expect(new Set(entries.map((e) => e.client))).toEqual(new Set(['Claude Desktop', 'Claude Code', 'Cursor', 'VS Code']));
  });

  it.each(entries.map((e) => [e.client, e] as const))('%s: the entry as written starts against the init config and guards its tools', async (_name, entry) => {
    const args = entry.args.map((a) => a.replace('/abs/my-guard', project).replace('${workspaceFolder}', project));
    const transport = new StdioClientTransport({ command: entry.command, args, cwd: elsewhere, env, stderr: 'pipe' });
    let err = '';
    transport.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    const client = new Client({ name: 'readme-entry', version: '0.0.0' });
    try {
      await client.connect(transport);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names, err).toContain('workspace__write_file');
      const ok = (await client.callTool({ name: 'workspace__write_file', arguments: { path: 'from-readme.txt', content: 'hi' } })) as CallToolResult;
      expect(ok.isError, JSON.stringify(ok.content)).toBeFalsy();
      const denied = (await client.callTool({ name: 'workspace__delete_file', arguments: { path: 'from-readme.txt' } })) as CallToolResult;
      expect((denied.content[0] as { text: string }).text).toMatch(/^Blocked by QuadGuard/);
    } finally {
      await client.close();
    }
    expect(err).not.toContain('config_invalid');
  });

  it('MCP Inspector: the command after its `--` starts against the init config (the Inspector\'s own --config is not in the way)', async () => {
    const line = /npx @modelcontextprotocol\/inspector -- (quadguard serve [^`\n]+)/.exec(registerSection(readme));
    expect(line, 'README shows how to call the MCP Inspector').not.toBeNull();
    const [command, ...args] = line![1]!.trim().split(/\s+/) as [string, ...string[]];
    const transport = new StdioClientTransport({ command, args: args.map((a) => a.replace('/abs/my-guard', project)), cwd: elsewhere, env, stderr: 'pipe' });
    const client = new Client({ name: 'inspector-entry', version: '0.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('workspace__write_file');
    } finally {
      await client.close();
    }
  });

  it('install run in the init folder: the wrapped entry, started from elsewhere, uses that folder\'s policy and store', async () => {
    const workspace = join(ROOT, 'dist', 'servers', 'workspace.js');
    writeFileSync(join(project, '.mcp.json'), `${JSON.stringify({ mcpServers: { notes: { command: 'node', args: [workspace, '--root', join(tmp, 'notes')] } } }, null, 2)}\n`);
    const install = spawnSync(process.execPath, [CLI, 'install', '--client', 'claude-code', '--all'], { cwd: project, env, encoding: 'utf8' });
    expect(install.status, install.stderr).toBe(0);
    expect(install.stdout).toContain(`wrapped servers use ${join(project, 'quadguard.config.yaml')}`);
    const entry = (JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, Entry> }).mcpServers.notes!;
    const client = new Client({ name: 'installed-entry', version: '0.0.0' });
    await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, cwd: elsewhere, env, stderr: 'pipe' }));
    try {
      const r = (await client.callTool({ name: 'write_file', arguments: { path: 'n.txt', content: 'AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' } })) as CallToolResult;
      expect(r.isError).toBe(true);
    } finally {
      await client.close();
    }
    const tail = spawnSync(process.execPath, [CLI, 'audit', 'tail'], { cwd: project, env, encoding: 'utf8' });
    expect(tail.status, tail.stderr).toBe(0);
    expect(tail.stdout).toMatch(/claude-code.*write_file|write_file.*claude-code/);
  });

  // Each client's user file in the empty HOME (Linux paths), with one ordinary server of the user's in it.
  const userFiles = [
    ['claude-desktop', '.config/Claude/claude_desktop_config.json', 'mcpServers'],
    ['claude-code', '.claude.json', 'mcpServers'],
    ['cursor', '.cursor/mcp.json', 'mcpServers'],
    ['vscode', '.config/Code/User/mcp.json', 'servers'],
  ] as const;
  it.each(userFiles)('install --client %s --scope user in the init folder: the written entry starts from elsewhere, lists and guards its tools under that client\'s agent', async (clientName, rel, key) => {
    const file = join(tmp, 'home', rel);
    mkdirSync(dirname(file), { recursive: true });
    const original = `${JSON.stringify({ [key]: { notes: { command: 'node', args: [join(ROOT, 'dist', 'servers', 'workspace.js'), '--root', join(tmp, `notes-${clientName}`)] } } }, null, 2)}\n`;
    writeFileSync(file, original);
    const install = spawnSync(process.execPath, [CLI, 'install', '--client', clientName, '--scope', 'user', '--all'], { cwd: project, env, encoding: 'utf8' });
    expect(install.status, install.stderr).toBe(0);
    expect(install.stdout).toContain(`wrapped servers use ${join(project, 'quadguard.config.yaml')}`);
    const entry = (JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, Entry>>)[key]!.notes!;
    expect(entry.args).toEqual(expect.arrayContaining(['--agent', clientName]));
    const client = new Client({ name: `installed-${clientName}`, version: '0.0.0' });
    await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, cwd: elsewhere, env, stderr: 'pipe' }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('write_file');
      const r = (await client.callTool({ name: 'write_file', arguments: { path: 'k.txt', content: 'AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' } })) as CallToolResult;
      expect((r.content[0] as { text: string }).text).toMatch(/^Blocked by QuadGuard/);
    } finally {
      await client.close();
    }
    const tail = spawnSync(process.execPath, [CLI, 'audit', 'tail'], { cwd: project, env, encoding: 'utf8' });
    expect(tail.stdout).toMatch(new RegExp(`${clientName}.*write_file|write_file.*${clientName}`));
    const uninstall = spawnSync(process.execPath, [CLI, 'uninstall', '--client', clientName, '--scope', 'user', '--all'], { cwd: project, env, encoding: 'utf8' });
    expect(uninstall.status, uninstall.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(original);
  }, 90_000); // three CLI runs and a proxy with its server: ~20 s on a loaded 2-core machine
});
