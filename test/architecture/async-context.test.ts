import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * On Node 20 and 22 a live AsyncLocalStorage (or any async hook) turns on promise hooks for the whole process: every
 * promise of every request pays for them (bench/README.md, "The HTTP front end"). So the proxy's own code uses
 * none; a request carries what it needs (its abort signal pins its guard generation: src/ops/live-guard.ts). Only
 * tracing, which the operator turns on, brings OpenTelemetry's context manager.
 */
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const ASYNC_CONTEXT = /\bfrom\s+['"](?:node:)?async_hooks['"]|\b(?:require|import)\(\s*['"](?:node:)?async_hooks['"]/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('async context in src/', () => {
  it('imports node:async_hooks nowhere (tracing loads OpenTelemetry\'s context manager only when asked)', () => {
    const files = sourceFiles(SRC).map((f) => relative(SRC, f).split(/[\\/]/).join('/'));
    expect(files.length).toBeGreaterThan(100);
    const using = files.filter((f) => ASYNC_CONTEXT.test(readFileSync(join(SRC, f), 'utf8')));
    expect(using).toEqual([]);
  });
});
