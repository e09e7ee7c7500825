import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/load.js';
import { loadBook } from '../../src/policy/load.js';
import { INIT_CONFIG, INIT_POLICY_DIR, InstallError, initProject } from '../../src/install/index.js';
import { PACKAGE_ROOT } from '../../src/core/version.js';
import { sandbox } from './helpers.js';

let sb: ReturnType<typeof sandbox>;
beforeEach(() => (sb = sandbox()));
afterEach(() => sb.cleanup());

describe('quadguard init', () => {
  it('writes a config the config loader accepts, pointing at the shipped default book', () => {
    const r = initProject({ dir: sb.env.cwd });
    expect(r.config).toBe(join(sb.env.cwd, INIT_CONFIG));
    const loaded = loadConfigFile(r.config, {});
    expect(loaded.config.policy).toBe(join(PACKAGE_ROOT, 'policies', 'default'));
    expect(loaded.config.store).toBe(join(sb.env.cwd, '.quadguard', 'state.db'));
    expect(loaded.config.servers.workspace).toMatchObject({ command: 'node', args: [join(PACKAGE_ROOT, 'dist', 'servers', 'workspace.js'), '--root', 'quadguard-sandbox'], cwd: sb.env.cwd, tools: { deny: ['delete_*'] } });
    expect(Object.keys(loaded.config.agents)).toEqual(['local']);
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

  it('the commented examples are valid too: the copied policy and a token-from-env agent', () => {
    const r = initProject({ dir: sb.env.cwd });
    const text = readFileSync(r.config, 'utf8')
      .replace(/^policy: .*$/m, '')
      .replace(/^# {3}policy: (\S+).*$/m, 'policy: $1')
      .replace(/^ {2}# (planner:| {2}token:| {2}profile: \{ role: planner)/gm, '  $1');
    writeFileSync(r.config, text);
    const loaded = loadConfigFile(r.config, { PLANNER_TOKEN: 'p'.repeat(20) });
    expect(loaded.config.policy).toBe(join(sb.env.cwd, INIT_POLICY_DIR));
    expect(loaded.tokens.get('p'.repeat(20))).toBe('planner');
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
    expect((err as InstallError).message).toMatch(/quadguard\.config\.yaml, .*book\.yaml, .*policy\.md already exist; pass --force/);
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
