import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveStoreLocation } from '../../src/store/store-path.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'qg-store-path-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('where state lives (one rule for every command)', () => {
  it('--store wins, relative to the current directory', () => {
    writeFileSync(join(dir, 'quadguard.config.yaml'), 'store: from-config.db\n');
    expect(resolveStoreLocation({ store: 'x.db' }, dir, {})).toMatchObject({ path: join(dir, 'x.db'), source: 'flag' });
  });

  it("then --config's store:, relative to the config's folder (default .quadguard/state.db next to it)", () => {
    mkdirSync(join(dir, 'etc'));
    writeFileSync(join(dir, 'etc', 'a.yaml'), 'store: ../data/a.db\n');
    writeFileSync(join(dir, 'etc', 'b.yaml'), 'servers: {}\n');
    expect(resolveStoreLocation({ config: 'etc/a.yaml' }, dir, {})).toEqual({ path: join(dir, 'data', 'a.db'), source: 'config', config: join(dir, 'etc', 'a.yaml') });
    expect(resolveStoreLocation({ config: 'etc/b.yaml' }, dir, {}).path).toBe(join(dir, 'etc', '.quadguard', 'state.db'));
  });

  it('then ./quadguard.config.yaml when it exists', () => {
    writeFileSync(join(dir, 'quadguard.config.yaml'), 'store: here.db\n');
    expect(resolveStoreLocation({}, dir, {})).toMatchObject({ path: join(dir, 'here.db'), source: 'config' });
  });

  it('else $QUADGUARD_HOME/state.db, QUADGUARD_HOME defaulting to ~/.quadguard', () => {
    expect(resolveStoreLocation({}, dir, { QUADGUARD_HOME: join(dir, 'qh') })).toEqual({ path: join(dir, 'qh', 'state.db'), source: 'home', config: undefined });
    expect(resolveStoreLocation({}, dir, {}).path).toBe(join(homedir(), '.quadguard', 'state.db'));
  });

  it('a config whose store: is not a path is an error naming the field', () => {
    writeFileSync(join(dir, 'quadguard.config.yaml'), 'store: 3\n');
    expect(() => resolveStoreLocation({}, dir, {})).toThrow(/store: expected a file path/);
  });
});
