import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface PackageJson {
  name?: string;
  version: string;
  bin: { quadguard: string };
}

/** The installed package's root (holds package.json, policies/, servers/) and its package.json, found from this module's location. */
const PACKAGE: { root: string; json: PackageJson } = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  // Works from src/core/ (tsx, tests), from dist/src/core/ (tsc's output) and from dist/cli/ (the CLI bundle's chunks).
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const json = JSON.parse(readFileSync(candidate, 'utf8')) as PackageJson;
      if (json.name === 'quadguard') return { root: dir, json };
    }
    dir = dirname(dir);
  }
  throw new Error('quadguard: cannot find its package.json');
})();

/** Root of the installed package (holds package.json, policies/, servers/). */
export const PACKAGE_ROOT: string = PACKAGE.root;

/** The package version, read from package.json so it is never duplicated. */
export const VERSION: string = PACKAGE.json.version;

/** The `quadguard` executable, as package.json's `bin` names it (the esbuild bundle `dist/cli/quadguard.js`). */
export const CLI_ENTRY: string = join(PACKAGE_ROOT, PACKAGE.json.bin.quadguard);
