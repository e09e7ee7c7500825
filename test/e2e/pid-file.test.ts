/**
 * `serve --pid-file` through the built CLI (docs/operations.md, "Reload"): the file is removed when the proxy exits
 * cleanly (SIGTERM's drain, SIGINT, a stdio client closing stdin), and `quadguard reload` refuses a stale one,
 * whether no process has its number or another program took the number since (which must not get the SIGHUP).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/demos/kit.js';
import { alive, CLI, makeSandbox, server, startHttpProxy, waitFor, writeConfig } from '../support/proxy-harness.js';

describe('serve --pid-file', () => {
  const sb = makeSandbox();
  const cfg = writeConfig(sb.dir, { servers: { ws: server('workspace', '--root', sb.workspace) }, store: join(sb.dir, 'state.db') });
  afterAll(() => rmSync(sb.dir, { recursive: true, force: true }));

  it.each(['SIGTERM', 'SIGINT'] as const)('is removed when the HTTP proxy exits on %s', async (signal) => {
    const pidFile = join(sb.dir, `${signal}.pid`);
    const proxy = await startHttpProxy(cfg, {}, ['--no-ui', '--pid-file', pidFile]);
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(proxy.child.pid));
    const exited = new Promise<number | null>((r) => proxy.child.once('exit', (code) => r(code)));
    proxy.child.kill(signal);
    expect(await exited).toBe(0);
    expect(existsSync(pidFile)).toBe(false);
  }, 60_000);

  it('is removed when a stdio client closes stdin', async () => {
    const pidFile = join(sb.dir, 'stdio.pid');
    const child = spawn(process.execPath, [CLI, 'serve', '--config', cfg, '--pid-file', pidFile], { env: { PATH: process.env.PATH ?? '', QUADGUARD_LOG_LEVEL: 'warn' }, stdio: ['pipe', 'ignore', 'ignore'] });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await waitFor(() => existsSync(pidFile), 30_000, 'pid file written');
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(child.pid));
    child.stdin!.end();
    expect(await exited).toBe(0);
    expect(existsSync(pidFile)).toBe(false);
  }, 60_000);

  it('left by a proxy killed outright: reload names it stale', async () => {
    const pidFile = join(sb.dir, 'killed.pid');
    const proxy = await startHttpProxy(cfg, {}, ['--no-ui', '--pid-file', pidFile]);
    const pid = proxy.child.pid!;
    const exited = new Promise((r) => proxy.child.once('exit', r));
    proxy.child.kill('SIGKILL');
    await exited;
    expect(existsSync(pidFile)).toBe(true);
    const r = await runCli(['reload', '--pid-file', pidFile]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`no process ${pid} is running (read from ${pidFile}: the proxy stopped and left it behind?)`);
  }, 60_000);

  it.runIf(process.platform === 'linux')('naming a process that is not a proxy: reload refuses and signals nothing', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      const pidFile = join(sb.dir, 'reused.pid');
      writeFileSync(pidFile, `${other.pid}\n`);
      const r = await runCli(['reload', '--pid-file', pidFile]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`process ${other.pid} (read from ${pidFile}) is not a quadguard proxy`);
      expect(r.stderr).toContain('nothing was signalled');
      await new Promise((res) => setTimeout(res, 300));
      expect(alive(other.pid!)).toBe(true);
    } finally {
      other.kill('SIGKILL');
    }
  }, 30_000);

  it('that cannot be written stops start-up with a clear error', async () => {
    const r = await runCli(['serve', '--config', cfg, '--http', '0', '--no-ui', '--pid-file', join(sb.dir, 'no-such-folder', 'q.pid')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--pid-file .*no-such-folder.*cannot write it .*give a file in a folder that exists/);
  }, 60_000);
});
