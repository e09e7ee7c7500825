// Loaded with `node --import` for the Node 22 test run in .ci/run: better-sqlite3 is a native addon, and the copy
// in node_modules is built for Node 20's ABI. .ci/run builds a second copy for Node 22 under .ci/node22/ and
// this hook points every `import 'better-sqlite3'` (ESM and require) at it; node_modules stays untouched.
import { registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';
import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';

const entry = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'node22', 'node_modules', 'better-sqlite3', 'lib', 'index.js')).href;
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'better-sqlite3') return { url: entry, format: 'commonjs', shortCircuit: true };
    return next(specifier, context);
  },
});
