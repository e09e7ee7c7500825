import { chmodSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_PATH, DEFAULT_POLICY, InstallError, initProject, installClient, sidecarPath, uninstallClient, type ClientName } from '../../src/install/index.js';
import { parseJson } from '../../src/install/jsonc.js';
import { FS_ENTRY, sandbox } from './helpers.js';

let sb: ReturnType<typeof sandbox>;
beforeEach(() => (sb = sandbox()));
afterEach(() => sb.cleanup());

const read = (f: string) => readFileSync(f, 'utf8');
const servers = (f: string, key = 'mcpServers') => (parseJson(read(f), { file: f, jsonc: true }).value as Record<string, Record<string, Record<string, unknown>>>)[key]!;
const backups = (f: string) => sb.files().filter((p) => join(sb.dir, p).startsWith(`${f}.bak-`));

function catchInstall(fn: () => unknown): InstallError {
  try {
    fn();
  } catch (err) {
    if (err instanceof InstallError) return err;
    throw err;
  }
  throw new Error('expected an InstallError');
}

/** One sample file per host, each with a stdio server, a remote one and keys QuadGuard does not know. */
const SAMPLES: Array<{ client: ClientName; key: string; text: string; remoteNote: RegExp }> = [
  {
    client: 'claude-desktop',
    key: 'mcpServers',
    text: `${JSON.stringify({ globalShortcut: 'Cmd+Space', mcpServers: { fs: FS_ENTRY, remote: { url: 'https://x.example/mcp' } }, preferences: { x: 1 } }, null, 2)}\n`,
    remoteNote: /Claude Desktop launches stdio servers only/,
  },
  {
    client: 'claude-code',
    key: 'mcpServers',
    text: `${JSON.stringify({ mcpServers: { fs: { type: 'stdio', ...FS_ENTRY }, remote: { type: 'http', url: 'https://x.example/mcp', headers: { Authorization: 'Bearer ${T}' } } } }, null, 2)}\n`,
    remoteNote: /guards stdio servers only/,
  },
  {
    client: 'cursor',
    key: 'mcpServers',
    text: `{\n  // Cursor servers\n  "mcpServers": {\n    "fs": ${JSON.stringify(FS_ENTRY)},\n    "remote": { "url": "https://x.example/mcp" }, // trailing comma next\n  },\n}\n`,
    remoteNote: /guards stdio servers only/,
  },
  {
    client: 'vscode',
    key: 'servers',
    text: `{\n\t"inputs": [{ "type": "promptString", "id": "tok", "password": true }],\n\t/* workspace servers */\n\t"servers": {\n\t\t"fs": ${JSON.stringify({ type: 'stdio', ...FS_ENTRY })},\n\t\t"remote": { "type": "sse", "url": "https://x.example/sse" }\n\t}\n}\n`,
    remoteNote: /guards stdio servers only/,
  },
];

describe.each(SAMPLES)('$client', ({ client, key, text, remoteNote }) => {
  it('install wraps the stdio server, keeps everything else, skips the remote one; uninstall restores the exact bytes', () => {
    const file = sb.write('project/cfg.json', text);
    const r = installClient({ client, configFile: file, select: { all: true }, env: sb.env });
    expect(r.changed).toEqual(['fs']);
    expect(r.skipped).toEqual([{ name: 'remote', reason: expect.stringMatching(remoteNote) }]);
    expect(r.written).toBe(true);

    const fs = servers(file, key).fs!;
    expect(fs.command).toBe(process.execPath);
    expect(fs.args).toEqual([CLI_PATH, 'wrap', '--policy', DEFAULT_POLICY, '--agent', client, '--name', 'fs', '--env', 'FS_TOKEN', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '/tmp/sb']);
    expect(fs).toMatchObject({ env: { FS_TOKEN: 'abc' }, cwd: '/tmp', note: 'kept' });
    expect(Object.keys(fs)).toEqual(Object.keys(servers(sb.write('orig.json', text), key).fs!)); // key order kept
    expect(servers(file, key).remote).toEqual(servers(sb.write('orig2.json', text), key).remote);
    // Everything outside the entry is byte-identical (comments included).
    const after = read(file);
    const entryStart = text.indexOf('"fs": ') + 6;
    expect(after.slice(0, entryStart)).toBe(text.slice(0, entryStart));
    const tail = text.slice(text.indexOf('"remote"'));
    expect(after.endsWith(tail)).toBe(true);

    expect(backups(file)).toHaveLength(1);
    expect(read(join(sb.dir, backups(file)[0]!))).toBe(text);
    expect(existsSync(sidecarPath(file))).toBe(true);

    const u = uninstallClient({ client, configFile: file, select: { all: true }, env: sb.env });
    expect(u.changed).toEqual(['fs']);
    expect(read(file)).toBe(text);
    expect(existsSync(sidecarPath(file))).toBe(false);
    // Idempotent: nothing left to restore.
    const again = uninstallClient({ client, configFile: file, select: { all: true }, env: sb.env });
    expect(again).toMatchObject({ changed: [], written: false });
    expect(read(file)).toBe(text);
  });

  it('does not wrap an entry twice', () => {
    const file = sb.write('project/cfg.json', text);
    installClient({ client, configFile: file, select: { names: ['fs'] }, env: sb.env });
    const once = read(file);
    const r = installClient({ client, configFile: file, select: { all: true }, env: sb.env });
    expect(r.changed).toEqual([]);
    expect(r.skipped).toContainEqual({ name: 'fs', reason: 'already wrapped by QuadGuard' });
    expect(r.written).toBe(false);
    expect(read(file)).toBe(once);
    expect(backups(file)).toHaveLength(1);
  });

  it('dry run prints the diff and writes nothing', () => {
    const file = sb.write('project/cfg.json', text);
    const before = sb.files();
    const r = installClient({ client, configFile: file, select: { all: true }, dryRun: true, env: sb.env });
    expect(r.written).toBe(false);
    expect(r.changed).toEqual(['fs']);
    expect(r.diff).toMatch(/^--- .*cfg\.json\n\+\+\+ .*\(after\)\n@@ line \d+ @@\n-\s+"fs": \{/);
    expect(r.diff).toMatch(/^-.*"npx"/m);
    expect(r.diff).toContain(`+${key === 'servers' ? '\t\t\t' : '      '}"command": ${JSON.stringify(process.execPath)},`);
    expect(read(file)).toBe(text);
    expect(sb.files()).toEqual(before);
  });
});

describe('malformed and unexpected files', () => {
  it('bad JSON: error at file:line:column, file byte-identical, no backup or sidecar', () => {
    const text = '{\n  "mcpServers": {\n    "fs": { "command": "npx" "args": [] }\n  }\n}\n';
    const file = sb.write('project/.cursor/mcp.json', text);
    const err = catchInstall(() => installClient({ client: 'cursor', configFile: file, select: { all: true }, env: sb.env }));
    expect(err.code).toBe('install_parse_error');
    expect(err.format()).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')}:3:30: install_parse_error: expected "," or "}"`));
    expect(readFileSync(file)).toEqual(Buffer.from(text));
    expect(sb.files().filter((f) => f.includes('mcp.json'))).toEqual(['project/.cursor/mcp.json']);
  });

  it('comments in a plain-JSON client file are refused with their line, not dropped', () => {
    const text = '{\n  // mine\n  "mcpServers": {}\n}\n';
    const file = sb.write('project/.mcp.json', text);
    const err = catchInstall(() => installClient({ client: 'claude-code', configFile: file, select: { all: true }, env: sb.env }));
    expect(err.location).toMatchObject({ line: 2, column: 3 });
    expect(err.message).toMatch(/comments are not allowed/);
    expect(read(file)).toBe(text);
  });

  it('valid JSON of the wrong shape names the field', () => {
    const file = sb.write('project/.vscode/mcp.json', '{ "servers": [] }');
    const err = catchInstall(() => installClient({ client: 'vscode', configFile: file, select: { all: true }, env: sb.env }));
    expect(err.code).toBe('install_invalid');
    expect(err.message).toMatch(/servers/);
  });

  it('entries that are neither stdio nor remote are skipped with a reason', () => {
    const file = sb.write('project/c.json', JSON.stringify({ mcpServers: { odd: { command: 5 } } }));
    const r = installClient({ client: 'cursor', configFile: file, select: { all: true }, env: sb.env });
    expect(r.skipped).toEqual([{ name: 'odd', reason: expect.stringMatching(/not a stdio server entry/) }]);
    expect(r.written).toBe(false);
  });
});

describe('selection, options and locations', () => {
  const text = `${JSON.stringify({ mcpServers: { a: { command: 'srv-a' }, 'My_Server.v2': { command: 'srv-b', args: ['x'] } } }, null, 2)}\n`;

  it('without --server/--all it only lists; an unknown name is a usage error naming the servers', () => {
    const file = sb.write('project/c.json', text);
    const r = installClient({ client: 'cursor', configFile: file, select: undefined, env: sb.env });
    expect(r.listing).toEqual([{ name: 'a', kind: 'stdio' }, { name: 'My_Server.v2', kind: 'stdio' }]);
    expect(r.written).toBe(false);
    const err = catchInstall(() => installClient({ client: 'cursor', configFile: file, select: { names: ['nope'] }, env: sb.env }));
    expect(err.code).toBe('install_usage');
    expect(err.message).toBe(`no server "nope" in ${file}; servers: a, My_Server.v2`);
    expect(read(file)).toBe(text);
  });

  it('--server wraps only that one; the QuadGuard key is sanitised; --use-npx and --policy are honoured', () => {
    const file = sb.write('project/c.json', text);
    sb.write('project/pol/book.yaml', 'name: x\n');
    const r = installClient({ client: 'cursor', configFile: file, select: { names: ['My_Server.v2'] }, useNpx: true, policy: 'pol', env: sb.env });
    expect(r.changed).toEqual(['My_Server.v2']);
    const s = servers(file);
    expect(s.a).toEqual({ command: 'srv-a' });
    expect(s['My_Server.v2']).toEqual({ command: 'npx', args: ['-y', 'quadguard', 'wrap', '--policy', join(sb.env.cwd, 'pol'), '--agent', 'cursor', '--name', 'my-server-v2', '--', 'srv-b', 'x'] });
    expect(installClient({ client: 'cursor', configFile: file, select: { all: true }, env: sb.env }).skipped).toContainEqual({ name: 'My_Server.v2', reason: 'already wrapped by QuadGuard' });
    expect(catchInstall(() => installClient({ client: 'cursor', configFile: file, select: { all: true }, policy: 'missing', env: sb.env })).code).toBe('install_usage');
  });

  it('an entry that runs `quadguard serve` is not wrapped: the bundled CLI of a checkout, or tsc\'s, which older entries name', () => {
    for (const args of [['./dist/cli/quadguard.js', 'serve'], ['./dist/src/cli/index.js', 'serve'], ['/abs/qg/dist/cli/quadguard.js', 'serve']]) {
      const file = sb.write('project/c.json', JSON.stringify({ mcpServers: { guard: { command: 'node', args: [...args, '--config', 'q.yaml'] } } }));
      const r = installClient({ client: 'cursor', configFile: file, select: { all: true }, env: sb.env });
      expect(r.skipped, args.join(' ')).toEqual([{ name: 'guard', reason: `already runs QuadGuard (${args[1]}); not wrapped twice` }]);
    }
  });

  it('uninstall without the sidecar rebuilds the original from the wrapped command line', () => {
    const file = sb.write('project/c.json', text);
    installClient({ client: 'cursor', configFile: file, select: { all: true }, env: sb.env });
    rmSync(sidecarPath(file));
    const u = uninstallClient({ client: 'cursor', configFile: file, select: { names: ['a'] }, env: sb.env });
    expect(u.notes).toContain('a: no sidecar record; rebuilt from the wrapped command line');
    expect(servers(file).a).toEqual({ command: 'srv-a', args: [] });
    expect(servers(file)['My_Server.v2']!.command).toBe(process.execPath);
  });

  it('Claude Code user scope edits only the top-level mcpServers of ~/.claude.json and keeps its mode', () => {
    const state = { numStartups: 12, projects: { '/p': { mcpServers: { local: { command: 'x' } }, history: [{ display: 'hi' }] } }, mcpServers: { a: { command: 'srv-a' } }, oauthAccount: { email: 'e' } };
    const text2 = JSON.stringify(state, null, 2);
    const file = sb.write('home/.claude.json', text2);
    chmodSync(file, 0o600);
    const r = installClient({ client: 'claude-code', scope: 'user', select: { all: true }, env: sb.env });
    expect(r.file).toBe(file);
    const after = JSON.parse(read(file)) as typeof state;
    expect({ ...after, mcpServers: undefined }).toEqual({ ...state, mcpServers: undefined });
    expect(after.mcpServers.a).toMatchObject({ command: process.execPath });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    uninstallClient({ client: 'claude-code', scope: 'user', select: { all: true }, env: sb.env });
    expect(read(file)).toBe(text2);
  });

  it('default locations per client and platform; Claude Desktop needs its folder; no empty project file is created', () => {
    const desktop = catchInstall(() => installClient({ client: 'claude-desktop', select: { all: true }, env: sb.env }));
    expect(desktop.code).toBe('install_client_missing');
    expect(desktop.message).toContain(join(sb.env.home, '.config', 'Claude'));
    const mac = { ...sb.env, platform: 'darwin' as const };
    sb.write('home/Library/Application Support/Claude/claude_desktop_config.json', text);
    expect(installClient({ client: 'claude-desktop', select: undefined, env: mac }).file).toBe(join(sb.env.home, 'Library/Application Support/Claude/claude_desktop_config.json'));
    const win = { ...sb.env, platform: 'win32' as const, appData: join(sb.dir, 'appdata') };
    sb.write('appdata/Claude/claude_desktop_config.json', '{}');
    expect(installClient({ client: 'claude-desktop', select: { all: true }, env: win }).file).toBe(join(sb.dir, 'appdata', 'Claude', 'claude_desktop_config.json'));
    expect(catchInstall(() => installClient({ client: 'claude-desktop', scope: 'project', select: { all: true }, env: mac })).code).toBe('install_usage');

    const r = installClient({ client: 'vscode', select: { all: true }, env: sb.env });
    expect(r).toMatchObject({ file: join(sb.env.cwd, '.vscode', 'mcp.json'), created: false, written: false, noServers: true });
    expect(existsSync(r.file)).toBe(false);
    expect(r.notes[0]).toContain('nothing written');
    expect(r.notes[0]).toContain('quadguard install --client vscode --scope user --all');
    const cursorUser = catchInstall(() => installClient({ client: 'cursor', scope: 'user', select: { all: true }, env: sb.env }));
    expect(cursorUser.code).toBe('install_client_missing');
    expect(cursorUser.message).toContain(join(sb.env.home, '.cursor', 'mcp.json'));
    expect(installClient({ client: 'claude-code', select: { all: true }, dryRun: true, env: sb.env }).file).toBe(join(sb.env.cwd, '.mcp.json'));
    expect(existsSync(join(sb.env.cwd, '.mcp.json'))).toBe(false);
  });

  it('in an `init` folder, wrapped entries take that folder\'s config (its policy, store and agents); --policy overrides it', () => {
    initProject({ dir: sb.env.cwd });
    const file = sb.write('project/.mcp.json', text);
    const r = installClient({ client: 'claude-code', select: { names: ['a'] }, env: sb.env });
    const config = join(sb.env.cwd, 'quadguard.config.yaml');
    expect(r.notes).toContain(`wrapped servers use ${config} (its policy, store and agents; --policy to use a book instead)`);
    expect(servers(file).a).toEqual({ command: process.execPath, args: [CLI_PATH, 'wrap', '--config', config, '--agent', 'claude-code', '--name', 'a', '--', 'srv-a'] });
    const pinned = installClient({ client: 'claude-code', select: { names: ['My_Server.v2'] }, policy: DEFAULT_POLICY, env: sb.env });
    expect(pinned.changed).toEqual(['My_Server.v2']);
    expect(servers(file)['My_Server.v2']!.args).toContain('--policy');
  });

  it('in a folder whose config lacks the client\'s agent, or does not load, install stops before writing and says why', () => {
    const file = sb.write('project/.mcp.json', text);
    sb.write('project/quadguard.config.yaml', 'agents:\n  local: {}\n');
    const missing = catchInstall(() => installClient({ client: 'cursor', configFile: file, select: { all: true }, env: sb.env }));
    expect(missing.message).toMatch(/declares no agent "cursor" \(it has local\).*add it under agents:/);
    sb.write('project/quadguard.config.yaml', 'agents:\n  cursor: {}\nsevers: {}\n');
    const bad = catchInstall(() => installClient({ client: 'cursor', configFile: file, select: { all: true }, env: sb.env }));
    expect(bad.code).toBe('install_usage');
    expect(bad.message).toContain('severs');
    expect(read(file)).toBe(text);
  });

  it('uninstall notices an entry edited since install and still restores the original', () => {
    const file = sb.write('project/c.json', text);
    installClient({ client: 'cursor', configFile: file, select: { names: ['a'] }, env: sb.env });
    const edited = read(file).replace('"--agent"', '"--timeout", "5", "--agent"');
    sb.write('project/c.json', edited);
    const u = uninstallClient({ client: 'cursor', configFile: file, select: { all: true }, env: sb.env });
    expect(u.notes).toContain('a: edited since install; restored the original (the edited version is in the backup)');
    expect(read(file)).toBe(text);
  });
});
