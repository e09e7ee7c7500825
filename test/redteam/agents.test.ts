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
import { CLI, writeConfig } from '../support/proxy-harness.js';

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
    expect(r.stderr).toMatch(/--agent "eve" is not one of the agents in the config \(alice, build-bot\)/);
    const ok = serve(listed, 'build-bot');
    expect(ok.stderr).not.toMatch(/config_invalid/);
    expect(ok.status).toBe(0);
  });
});
