import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/load.js';
import { CLI, ROOT } from '../support/proxy-harness.js';
import { sandbox } from './helpers.js';

/** The built CLI, run as a user would; HOME points into the sandbox so nothing touches the real home. */
function quadguard(sb: ReturnType<typeof sandbox>, ...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    timeout: 20_000,
    cwd: sb.env.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: sb.env.home, APPDATA: join(sb.dir, 'appdata') },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

let sb: ReturnType<typeof sandbox>;
beforeAll(() => {
  expect(existsSync(join(ROOT, 'dist', 'src', 'install', 'install.js')), 'run `npm run build` first').toBe(true);
});
beforeEach(() => (sb = sandbox()));
afterEach(() => sb.cleanup());

describe('quadguard init/install/uninstall (spawned)', { timeout: 120_000 }, () => {
  it('exit codes: 2 without a selection or with an unknown server, 1 on bad JSON (file untouched), 0 otherwise', () => {
    const text = `${JSON.stringify({ mcpServers: { ws: { command: 'srv', args: ['a'] }, web: { url: 'https://x.example/mcp' } } }, null, 2)}\n`;
    const file = sb.write('project/.mcp.json', text);

    const list = quadguard(sb, 'install', '--client', 'claude-code');
    expect(list.code).toBe(2);
    expect(list.out).toBe(`servers in ${file}:\n  ws  (stdio)\n  web  (remote)  remote (url) server: \`quadguard wrap\` guards stdio servers only; list it under servers.<key>.url in a QuadGuard config and register \`quadguard serve\` instead\n`);
    expect(list.err).toMatch(/choose what to wrap: --server NAME \(repeatable\) or --all/);

    const unknown = quadguard(sb, 'install', '--client', 'claude-code', '--server', 'nope');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toBe(`quadguard: install_usage: no server "nope" in ${file}; servers: ws, web\n`);
    expect(quadguard(sb, 'install', '--client', 'emacs', '--all').code).toBe(2);

    const dry = quadguard(sb, 'install', '--client', 'claude-code', '--all', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/^--- .*\.mcp\.json\n/);
    expect(dry.out).toMatch(/would wrap ws\nskipped web: remote/);
    expect(dry.out).toMatch(/dry run: nothing written\n$/);
    expect(readFileSync(file, 'utf8')).toBe(text);

    const ok = quadguard(sb, 'install', '--client', 'claude-code', '--server', 'ws');
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^wrap ws$/m);
    expect(ok.out).toMatch(/^backup: .*\.mcp\.json\.bak-\d{8}T\d{6}Z$/m);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.ws.args.slice(1, 3)).toEqual(['wrap', '--policy']);

    const back = quadguard(sb, 'uninstall', '--client', 'claude-code', '--all');
    expect(back.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(quadguard(sb, 'uninstall', '--client', 'claude-code', '--all').out).toMatch(/nothing to change/);

    const bad = '{ "mcpServers": { "ws": { "command": "srv" ] } }';
    const badFile = sb.write('project/.cursor/mcp.json', bad);
    const broken = quadguard(sb, 'install', '--client', 'cursor', '--all');
    expect(broken.code).toBe(1);
    expect(broken.err).toBe(`quadguard: ${badFile}:1:44: install_parse_error: expected "," or "}" after an object member, found "] } }"\n`);
    expect(readFileSync(badFile, 'utf8')).toBe(bad);
    expect(existsSync(`${badFile}.quadguard.json`)).toBe(false);

    const desktop = quadguard(sb, 'install', '--client', 'claude-desktop', '--all');
    expect(desktop.code).toBe(1);
    expect(desktop.err).toMatch(/install_client_missing: Claude Desktop config folder .*\.config\/Claude does not exist/);
  });

  it('init writes a loadable config and refuses a second run with exit 1', () => {
    const first = quadguard(sb, 'init');
    expect(first.code).toBe(0);
    expect(loadConfigFile(join(sb.env.cwd, 'quadguard.config.yaml'), {}).config.servers.workspace).toBeDefined();
    const second = quadguard(sb, 'init');
    expect(second.code).toBe(1);
    expect(second.err).toMatch(/install_exists: .* already exist; pass --force/);
    expect(quadguard(sb, 'init', '--force').code).toBe(0);
  });

  it('a rewritten entry starts a working guarded MCP server (the workspace server through quadguard wrap)', async () => {
    const root = join(sb.dir, 'ws');
    const entry = { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'workspace.js'), '--root', root], env: { WORKSPACE_PUBLIC: join(sb.dir, 'public') } };
    const file = sb.write('appdata/Claude/claude_desktop_config.json', JSON.stringify({ mcpServers: { workspace: entry } }, null, 2));
    const r = quadguard(sb, 'install', '--client', 'claude-desktop', '--config-file', file, '--all');
    expect(r.code).toBe(0);
    const wrapped = JSON.parse(readFileSync(file, 'utf8')).mcpServers.workspace as { command: string; args: string[]; env: Record<string, string> };
    expect(wrapped.args).toContain('wrap');

    // Start it exactly as a host would: the entry's command, args and env (plus a sandboxed HOME for the store).
    const transport = new StdioClientTransport({ command: wrapped.command, args: wrapped.args, env: { ...wrapped.env, HOME: sb.env.home }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: 'claude-desktop-test', version: '0' });
    try {
      await client.connect(transport);
      const names = (await client.listTools()).tools.map((t) => t.name);
      // wrap keeps the server's own names: the host already tells its servers apart.
      expect(names, stderr).toEqual(expect.arrayContaining(['read_file', 'write_file', 'guard_check_message']));
      const res = await client.callTool({ name: 'write_file', arguments: { path: 'a.txt', content: 'hi' } });
      expect(res.isError, stderr).toBeFalsy();
      expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('hi');
      // The wrapped server got the entry's env through `--env`: its public folder exists where WORKSPACE_PUBLIC says.
      expect(existsSync(join(sb.dir, 'public'))).toBe(true);
    } finally {
      await client.close();
    }
    expect(existsSync(join(sb.env.home, '.quadguard', 'state.db'))).toBe(true);
  });
});
