#!/usr/bin/env node
import module from 'node:module';
import { join } from 'node:path';
import { quadguardHome } from '../core/home.js';

/**
 * The `quadguard` executable. Before anything else is loaded, it turns on Node's compile cache (V8 code for every
 * module, kept between runs; Node ≥ 22.1) in `$QUADGUARD_HOME/compile-cache`, a directory of the user's own rather
 * than the shared temporary directory Node would pick. Node 20 has no compile cache and starts as before; Node
 * itself turns the cache off with NODE_DISABLE_COMPILE_CACHE=1, and a cache it cannot write is skipped.
 */
const enableCompileCache = (module as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
if (enableCompileCache) {
  try {
    enableCompileCache(join(quadguardHome(), 'compile-cache'));
  } catch {
    // No cache: the same start as without one.
  }
}

const { main } = await import('./program.js');
await main(process.argv);
