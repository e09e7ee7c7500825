import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Root of the installed package (holds package.json, policies/, servers/), found from this module's location. */
export const PACKAGE_ROOT: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  // Works both from src/ (tsx, tests) and from dist/src/ (the built CLI).
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate) && (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name === 'quadguard') return dir;
    dir = dirname(dir);
  }
  throw new Error('quadguard: cannot find its package.json');
})();

/** The package version, read from package.json so it is never duplicated. */
export const VERSION: string = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
