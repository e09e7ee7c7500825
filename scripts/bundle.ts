/**
 * Bundles the `quadguard` executable with esbuild, after tsc (`npm run build` runs both):
 *
 *   dist/cli/quadguard.js          the CLI (package.json `bin`), from tsc's dist/src/cli/index.js
 *   dist/cli/pool-worker.js        what the worker threads of the long-text pool load (src/guard/pool-worker.ts;
 *                                  src/guard/text-pool.ts finds it beside the chunk it runs from)
 *   dist/cli/chunk-*.js            code shared by the two, and every lazily imported command module
 *   dist/cli/live.js               the live view's browser script (src/ui/client/, an IIFE for the browser), served
 *                                  as /ui/live.js
 *   dist/bundle-meta.json          esbuild's metafile: which file went into which chunk, what each chunk imports
 *                                  (test/build/bundle.test.ts reads it to check the bundle is fresh and lazy)
 *
 * Why: Node's ESM loader pays per file, and `policy check` loaded ~173 files (95 of them zod) as tsc lays them out;
 * bundled, it loads ~15. The bundle is made from tsc's output, not the sources, so what ships is exactly the code
 * tsc checked and the library export (`dist/src/index.js`) runs; esbuild only joins files.
 *
 * Code splitting keeps every `await import()` lazy: each command module, the guard, the MCP SDK and express are
 * chunks of their own, loaded only by the commands that need them (one file with everything ran `policy check`
 * ~4× slower than the split bundle). Every output sits in one flat folder, so a chunk's `import.meta.url` is a
 * sibling of the entries (`src/core/version.ts` walks up from it to package.json; `text-pool.ts` takes
 * `./pool-worker.js` from it).
 *
 *   npx tsx scripts/bundle.ts   (after `tsc -p tsconfig.build.json`)
 */
import { chmodSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, 'dist', 'cli');

/**
 * Loaded from node_modules at run time, as without the bundle:
 * - better-sqlite3: a native addon (and the checkpoint worker `require`s it by its resolved path);
 * - pg: optionally requires the native `pg-native`;
 * - yaml: `src/policy/load.ts` and `src/detectors/sql/access.ts` load it with `createRequire` (synchronously, only
 *   for books outside the plain subset), so a bundled copy would be a second `yaml` beside the one they load;
 * - pino: its transports run worker files located by `__dirname` (QuadGuard uses none, but a bundled pino would
 *   fail only the day one is configured);
 * - vectra: loaded only for a dense embedder, and it pulls in a large tree (openai, cheerio, …) of its own.
 */
// The OpenTelemetry packages load only when OTLP export is asked for (src/ops/tracing.ts): from node_modules, as
// published (bundled, their CommonJS builds lost named exports behind esbuild's dynamic-import wrapper).
const EXTERNAL = ['better-sqlite3', 'pg', 'pg-native', 'yaml', 'pino', 'vectra', '@opentelemetry/*'];

/** Bundled CommonJS packages (commander, express, …) call `require` for Node's built-ins; an ES module has none. */
const REQUIRE_SHIM = "import { createRequire as __quadguardCreateRequire } from 'node:module'; const require = __quadguardCreateRequire(import.meta.url);";

const entries = {
  quadguard: join(ROOT, 'dist', 'src', 'cli', 'index.js'),
  'pool-worker': join(ROOT, 'dist', 'src', 'guard', 'pool-worker.js'),
};
for (const file of Object.values(entries)) {
  if (!existsSync(file)) throw new Error(`scripts/bundle.ts: ${relative(ROOT, file)} is missing: run tsc first (npm run build)`);
}

// Chunk names carry a content hash: chunks of an earlier build would linger beside the new ones.
rmSync(OUT_DIR, { recursive: true, force: true });
const result = await build({
  entryPoints: entries,
  outdir: OUT_DIR,
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  banner: { js: REQUIRE_SHIM },
  // Follows tsc's own source maps back to src/ (read with `node --enable-source-maps`): stack traces name src/ files and
  // lines. Without the sources' text in them (the package does not ship src/), the maps are a fifth of the size.
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  logLevel: 'silent',
});
// A warning (a `require` esbuild could not follow, an import it could not see) would surface only at run time.
if (result.warnings.length > 0 || result.errors.length > 0) {
  for (const m of [...result.errors, ...result.warnings]) console.error(`${m.location ? `${m.location.file}:${m.location.line}: ` : ''}${m.text}`);
  process.exit(1);
}
chmodSync(join(OUT_DIR, 'quadguard.js'), 0o755);
// The live view's browser script, from its TypeScript modules (type-checked by `npm run typecheck` with the DOM
// library: src/ui/client/tsconfig.json). Not minified: what a person reads in the browser is what was written.
const live = await build({
  entryPoints: [join(ROOT, 'src', 'ui', 'client', 'main.ts')],
  outfile: join(OUT_DIR, 'live.js'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  logLevel: 'silent',
});
if (live.warnings.length > 0 || live.errors.length > 0) {
  for (const m of [...live.errors, ...live.warnings]) console.error(`${m.location ? `${m.location.file}:${m.location.line}: ` : ''}${m.text}`);
  process.exit(1);
}
writeFileSync(join(ROOT, 'dist', 'bundle-meta.json'), JSON.stringify(result.metafile));
