/**
 * `--agent` on stdio (issue #12): a name must be a valid identity (no zero-width or control characters, a sane
 * charset and length), and when the config lists its agents, one of them, so a quarantined stdio agent cannot
 * come back under a new name by restarting. Through the built CLI.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, server, writeConfig } from '../support/proxy-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'qg-agents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const serve = (config: string, agent: string) =>
  spawnSync(process.execPath, [CLI, 'serve', '--config', config, '--agent', agent], { input: '', encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '', QUADGUARD_LOG_LEVEL: 'warn' } });

describe('stdio --agent names', () => {
  const open = writeConfig(dir, { servers: {}, store: join(dir, 'a.db') }, 'open.yaml');
  const listed = writeConfig(dir, { servers: {}, store: join(dir, 'b.db'), agents: { alice: {}, 'build-bot': {} } }, 'listed.yaml');

  it.each([['zero-width', 'al\u200bice'], ['control', 'bob\u0007'], ['space', 'mallory 2'], ['too long', 'a'.repeat(65)], ['look-alike', '\u0430lice'], ['empty', '']])('refuses a %s name', (_, agent) => {
    const r = serve(open, agent);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/--agent .*agent name must be 1–64 of A-Z a-z 0-9 _ \. -/);
  });

  it('accepts a valid name when the config lists no agents (exits cleanly when stdin closes)', () => {
    const r = serve(open, 'local');
    expect(r.stderr).not.toMatch(/config_invalid/);
    expect(r.status).toBe(0);
  });

  it('limits the name to the configured agents when the config lists them', () => {
    const r = serve(listed, 'eve');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/--agent "eve" is not one of the known agents \(alice, build-bot\)/);
    const ok = serve(listed, 'build-bot');
    expect(ok.stderr).not.toMatch(/config_invalid/);
    expect(ok.status).toBe(0);
  });
});

describe('wrap --agent names (limited like serve)', () => {
  const ws = server('workspace', '--root', dir);
  const wrap = (agentArgs: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) =>
    spawnSync(process.execPath, [CLI, 'wrap', '--store', join(dir, 'w.db'), ...agentArgs, '--', ws.command, ...ws.args], {
      input: '',
      encoding: 'utf8',
      timeout: 30_000,
      cwd: opts.cwd ?? dir,
      env: { PATH: process.env.PATH ?? '', QUADGUARD_LOG_LEVEL: 'warn', ...opts.env },
    });

  it('refuses a name outside --agents, before the server starts', () => {
    const r = wrap(['--agents', 'alice,build-bot', '--agent', 'eve']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/--agent "eve" is not one of the known agents \(alice, build-bot\)/);
    const ok = wrap(['--agents', 'alice', '--agents', 'build-bot', '--agent', 'build-bot']);
    expect(ok.stderr).not.toMatch(/config_invalid/);
    expect(ok.status).toBe(0);
  });

  it('takes the list from $QUADGUARD_AGENTS', () => {
    const r = wrap(['--agent', 'mallory'], { env: { QUADGUARD_AGENTS: 'alice' } });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/--agent "mallory" is not one of the known agents \(alice\)/);
  });

  it('takes the list from ./quadguard.config.yaml\'s agents: when neither is given', () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    writeConfig(cwd, { servers: {}, store: join(dir, 'c.db'), agents: { alice: {} } }, 'quadguard.config.yaml');
    const r = wrap(['--agent', 'alice2'], { cwd });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/--agent "alice2" is not one of the known agents \(alice\)/);
    expect(wrap(['--agent', 'alice'], { cwd }).status).toBe(0);
  });

  it('still validates the form with no list', () => {
    const r = wrap(['--agent', 'al\u200bice']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/agent name must be 1–64/);
    expect(wrap(['--agent', 'anyone']).status).toBe(0);
  });
});
