/**
 * Messages a new user meets in the first hour (issue #28), through the built CLI: a taken HTTP port names the port
 * and the flag for another; `install` in a folder whose project file has no servers writes nothing and points to
 * `--scope user`; `status --config` says which servers cannot start.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../support/proxy-harness.js';

let dir: string;
let env: Record<string, string>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'qg-first-hour-msg-'));
  mkdirSync(join(dir, 'home'));
  env = { PATH: process.env.PATH ?? '', HOME: join(dir, 'home') };
  const init = spawnSync(process.execPath, [CLI, 'init'], { cwd: dir, env, encoding: 'utf8' });
  expect(init.status, init.stderr).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });

describe('first-hour messages', () => {
  it('serve --http on a taken port names the port and --http <other>, before starting any server', async () => {
    const holder: Server = createServer();
    const port = await new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)));
    try {
      const r = cli(['serve', '--http', String(port)]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(r.stderr).toContain(`quadguard serve --http ${port + 1}`);
      expect(r.stderr).not.toContain('Cannot read properties');
    } finally {
      holder.close();
    }
  });

  it('install in a folder with no project servers: nothing written, exit 1, --scope user named', () => {
    for (const client of ['claude-code', 'cursor', 'vscode']) {
      const r = cli(['install', '--client', client, '--all']);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stdout).toContain(`quadguard install --client ${client} --scope user --all`);
    }
    for (const f of ['.mcp.json', '.cursor/mcp.json', '.vscode/mcp.json']) expect(existsSync(join(dir, f))).toBe(false);
  });

  it('status --config names each server and whether it can start; one that cannot makes it exit 1', () => {
    const cfg = join(dir, 'broken.yaml');
    writeFileSync(cfg, 'servers:\n  broken:\n    command: no-such-mcp-server\n  ok:\n    command: node\n    args: [x.js]\n');
    const r = cli(['status', '--config', cfg]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('server:     broken: CANNOT START: "no-such-mcp-server" is not an executable file and not on PATH: fix servers.broken.command');
    expect(r.stdout).toMatch(/server: {5}ok: can start: \S*node x\.js/);
  });
});
