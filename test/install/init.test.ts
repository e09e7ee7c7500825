import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/load.js';
import { loadBook } from '../../src/policy/load.js';
import { INIT_AGENT, INIT_CONFIG, INIT_POLICY_DIR, INIT_TOKEN_FILE, InstallError, initProject } from '../../src/install/index.js';
import { PACKAGE_ROOT } from '../../src/core/version.js';
import { sandbox } from './helpers.js';

let sb: ReturnType<typeof sandbox>;
beforeEach(() => (sb = sandbox()));
afterEach(() => sb.cleanup());

describe('quadguard init', () => {
  it('writes a config the config loader accepts as written: its own policy copy and a 0600 token file', () => {
    const r = initProject({ dir: sb.env.cwd });
    expect(r.config).toBe(join(sb.env.cwd, INIT_CONFIG));
    const loaded = loadConfigFile(r.config, {});
    expect(loaded.config.policy).toBe(join(sb.env.cwd, INIT_POLICY_DIR));
    expect(r.tokenFile).toBe(join(sb.env.cwd, INIT_TOKEN_FILE));
    expect(statSync(r.tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(r.tokenFile, 'utf8').trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(loaded.tokens.get(token)).toBe(INIT_AGENT);
    expect(loaded.config.store).toBe(join(sb.env.cwd, '.quadguard', 'state.db'));
    expect(loaded.config.servers.workspace).toMatchObject({ command: 'node', args: [join(PACKAGE_ROOT, 'dist', 'servers', 'workspace.js'), '--root', 'quadguard-sandbox'], cwd: sb.env.cwd, tools: { deny: ['delete_*'] } });
    expect(Object.keys(loaded.config.agents)).toEqual(['local', 'claude-desktop', 'claude-code', 'cursor', 'vscode', INIT_AGENT]);
  });

  it('copies the default book so the user can edit it, and the copy loads', async () => {
    const r = initProject({ dir: sb.env.cwd });
    for (const f of ['book.yaml', 'policy.md']) {
      expect(readFileSync(join(r.policyDir, f), 'utf8')).toBe(readFileSync(join(PACKAGE_ROOT, 'policies', 'default', f), 'utf8'));
    }
    expect(r.policyDir).toBe(join(sb.env.cwd, INIT_POLICY_DIR));
    const book = await loadBook(r.policyDir);
    expect(book).toBeDefined();
  });

  it('the commented examples are valid too: a token-from-env agent', () => {
    const r = initProject({ dir: sb.env.cwd });
    const text = readFileSync(r.config, 'utf8').replace(/^ {2}# (planner:| {2}token:| {2}profile: \{ role: planner)/gm, '  $1');
    writeFileSync(r.config, text);
    const loaded = loadConfigFile(r.config, { PLANNER_TOKEN: 'p'.repeat(20) });
    expect(loaded.tokens.get('p'.repeat(20))).toBe('planner');
  });

  it('refuses a token file other users can read, saying how to fix it', () => {
    const r = initProject({ dir: sb.env.cwd });
    chmodSync(r.tokenFile, 0o644);
    expect(() => loadConfigFile(r.config, {})).toThrow(/assistant\.token is readable by other users; run: chmod 600/);
    expect(loadConfigFile(r.config, {}, { tokens: false }).tokens.size).toBe(0);
  });

  it('refuses to overwrite without --force, naming the files', () => {
    initProject({ dir: sb.env.cwd });
    writeFileSync(join(sb.env.cwd, INIT_CONFIG), 'mine');
    let err: unknown;
    try {
      initProject({ dir: sb.env.cwd });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InstallError);
    expect((err as InstallError).code).toBe('install_exists');
    expect((err as InstallError).message).toMatch(/quadguard\.config\.yaml, .*book\.yaml, .*policy\.md, .*assistant\.token already exist; pass --force/);
    expect(readFileSync(join(sb.env.cwd, INIT_CONFIG), 'utf8')).toBe('mine');
    initProject({ dir: sb.env.cwd, force: true });
    expect(readFileSync(join(sb.env.cwd, INIT_CONFIG), 'utf8')).toMatch(/^# QuadGuard configuration/);
  });

  it('creates the target folder when it does not exist', () => {
    const dir = join(sb.dir, 'new', 'place');
    initProject({ dir });
    expect(existsSync(join(dir, INIT_CONFIG))).toBe(true);
  });
});
