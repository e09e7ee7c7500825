import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { InteractionSchema } from '../../src/core/types.js';
import { buildGuard, type BuiltGuard } from '../../src/guard/build.js';
import { tempDir } from '../store/helpers.js';
import { CLI } from '../support/proxy-harness.js';
import { DEFAULT_BOOK } from './stages/support.js';

/**
 * The quarantine gate reads an agent's threat state from memory while the SQLite file is unchanged
 * (src/store/state.ts getThreat). Another process's quarantine or release must still decide the very next check.
 * Spawns the built CLI and a node process on the built store: run `npm run build` first.
 */
const STORE = new URL('../../dist/src/store/index.js', import.meta.url).href;

function run(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('threat state shared by processes on one SQLite file', { timeout: 120_000 }, () => {
  let guard: BuiltGuard | undefined;
  const t = tempDir();
  afterEach(async () => {
    await guard?.close();
    t.cleanup();
  });

  it('sees a quarantine written by another process and a release by `quadguard agents release` at the next check', async () => {
    guard = await buildGuard({ policy: DEFAULT_BOOK, store: t.file, settings: { watcher: { burst_threshold: 1e9 } } });
    const call = InteractionSchema.parse({ kind: 'tool_call', agent: 'planner', session: 's1', server: 'ws', tool: 'read_file', arguments: { path: 'notes.txt' } });
    const check = () => guard!.pipeline.check(call);
    for (let k = 0; k < 3; k++) expect((await check()).decision).toBe('allow');

    const q = run(['--input-type=module', '-e', `const { openStore } = await import(${JSON.stringify(STORE)}); const s = openStore(${JSON.stringify(t.file)}); await s.state.quarantine('planner', 'quarantined by another proxy'); s.close();`]);
    expect(q, q.err).toMatchObject({ code: 0 });
    for (let k = 0; k < 2; k++) {
      const d = await check();
      expect(d).toMatchObject({ decision: 'deny', source: 'quarantine' });
      expect(d.rationale).toMatch(/quarantined by another proxy/);
    }

    const rel = run([CLI, 'agents', 'release', 'planner', '--by', 'carol', '--store', t.file]);
    expect(rel, rel.err).toMatchObject({ code: 0, out: 'released planner: tau 0, level 0\n' });
    for (let k = 0; k < 2; k++) expect((await check()).decision).toBe('allow');

    // And again: a second quarantine by another process after this process cached the released state.
    const q2 = run(['--input-type=module', '-e', `const { openStore } = await import(${JSON.stringify(STORE)}); const s = openStore(${JSON.stringify(t.file)}); await s.state.quarantine('planner', 'again'); s.close();`]);
    expect(q2, q2.err).toMatchObject({ code: 0 });
    expect(await check()).toMatchObject({ decision: 'deny', source: 'quarantine' });
  });
});
