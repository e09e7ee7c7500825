import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Environment } from '../../src/install/index.js';

/** A temp folder standing in for both the home folder and the project, so tests never touch the real home. */
export function sandbox(): { dir: string; env: Environment; write: (rel: string, text: string) => string; files: () => string[]; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'qg-install-'));
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home);
  mkdirSync(project);
  return {
    dir,
    env: { cwd: project, home, platform: 'linux', appData: undefined },
    write(rel, text) {
      const file = join(dir, rel);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    files: () => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort(),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Entries as tests write them. */
export const FS_ENTRY = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp/sb'], env: { FS_TOKEN: 'abc' }, cwd: '/tmp', note: 'kept' };
