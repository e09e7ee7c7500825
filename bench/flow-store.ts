/**
 * The data-flow store's cost for a long private read (src/store/flow.ts `recordRead`): the CPU time of the event loop
 * to insert one read's hashes (16,384 by default: what a text past ~30 KiB leaves, its fingerprints and those of its
 * three forms) into a SQLite store already holding `--reads` such reads, each round a new read. CPU time, not wall
 * time: a loaded machine moves it far less. `--against DIR` runs the same rounds on another checkout's store code
 * (e.g. /work/main), alternated with this one's round by round in one process, and prints both.
 *
 *   npx tsx bench/flow-store.ts [--reads 40] [--rounds 8] [--hashes 16384] [--against DIR]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { GuardStore } from '../src/store/index.js';
import { ROOT } from './common.js';

const { values } = parseArgs({
  options: { reads: { type: 'string', default: '40' }, rounds: { type: 'string', default: '8' }, hashes: { type: 'string', default: '16384' }, against: { type: 'string' } },
});
const READS = Number(values.reads);
const ROUNDS = Number(values.rounds);
const HASHES = Number(values.hashes);
for (const [name, n] of [['--reads', READS], ['--rounds', ROUNDS], ['--hashes', HASHES]] as const) {
  if (!Number.isInteger(n) || n < (name === '--reads' ? 0 : 1)) throw new Error(`${name} takes a whole number, got ${n}`);
}

const hex = () => randomBytes(8).toString('hex');
const hashes = () => Array.from({ length: HASHES }, hex);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const read = (id: string) => ({ id, session: 's1', kind: 'tool_result' as const, server: 'files', tool: 'read_file', at: 1 });

const trees = [{ label: 'this checkout', root: ROOT }, ...(values.against !== undefined ? [{ label: values.against, root: resolve(values.against) }] : [])];
const dirs: string[] = [];
const runs: Array<{ label: string; store: GuardStore; ms: number[] }> = [];
try {
  for (const t of trees) {
    const { openGuardStore } = (await import(join(t.root, 'src', 'store', 'index.ts'))) as typeof import('../src/store/index.js');
    const dir = mkdtempSync(join(tmpdir(), 'qg-bench-flow-store-'));
    dirs.push(dir);
    const store = await openGuardStore(join(dir, 'state.db'));
    for (let r = 0; r < READS; r++) await store.flow.recordRead('bench', read(`pre-${r}`), hashes(), Number.MAX_SAFE_INTEGER, `r:pre-${r}`);
    runs.push({ label: t.label, store, ms: [] });
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const run of runs) {
      const h = hashes();
      const t0 = cpuMs();
      await run.store.flow.recordRead('bench', read(`round-${r}`), h, Number.MAX_SAFE_INTEGER, `r:round-${r}`);
      run.ms.push(cpuMs() - t0);
    }
  }
  console.log(`node ${process.version}; ${HASHES} hashes per read into a store of ${READS} such reads; CPU ms per read (the process, the event loop's inserts), rounds alternated`);
  for (const run of runs) {
    const sorted = [...run.ms].sort((a, b) => a - b);
    console.log(`${run.label.padEnd(16)} median ${sorted[sorted.length >> 1]!.toFixed(0).padStart(5)} ms  (${run.ms.map((x) => x.toFixed(0)).join(' ')})`);
  }
} finally {
  for (const run of runs) await run.store.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
