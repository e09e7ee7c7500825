/**
 * Data-flow benchmark: the time the data-flow stage adds per guarded interaction (docs/data-flow.md).
 *
 *   (a) `GuardPipeline.check` of an outgoing send_email (default book), data-flow on vs off (`guard.flow.enabled`),
 *       on a SQLite file store already holding 500 reads (≈ 2 KB each) of the same agent; the difference is what
 *       the fingerprint check adds to a call.
 *   (b) the stage alone: `inspect` of a send with a 200 B, 4 KB and 64 KB body (no match), and with a match;
 *       `record` of a 4 KB private read (fingerprints + one transaction).
 *
 * Run: npx tsx bench/dataflow.ts [msPerCase]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InteractionSchema, makeDecision, type Interaction } from '../src/core/types.js';
import { buildGuard } from '../src/guard/build.js';
import { line, ROOT, summarize, timed } from './common.js';

const budgetMs = Number(process.argv[2] ?? 3000);
const WORDS = 'acquisition board budget cluster deadline engineer forecast harbour invoice journal kernel ledger margin network office payroll quarter revenue salary ticket upgrade vendor warehouse'.split(' ');
let seed = 42;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const text = (chars: number) => {
  let s = '';
  while (s.length < chars) s += `${WORDS[Math.floor(rand() * WORDS.length)]}${rand() < 0.1 ? '. ' : ' '}${Math.floor(rand() * 1000)} `;
  return s.slice(0, chars);
};

const dir = mkdtempSync(join(tmpdir(), 'qg-bench-flow-'));
try {
  const policy = join(ROOT, 'policies', 'default');
  // No audit and no burst quarantine: thousands of calls a second would otherwise quarantine the bench agent.
  const watcher = { quarantine: false, burst_threshold: 1_000_000_000 };
  const on = await buildGuard({ policy, store: join(dir, 'on.db'), settings: { audit: false, watcher } });
  const off = await buildGuard({ policy, store: join(dir, 'off.db'), settings: { audit: false, watcher, flow: { enabled: false } } });
  const base = { agent: 'bench', session: 's1', profile: {} };
  const read = (t: string): Interaction => InteractionSchema.parse({ ...base, kind: 'tool_result', server: 'mail', tool: 'read_email', content: [{ type: 'text', text: t }] });
  const send = (body: string): Interaction => InteractionSchema.parse({ ...base, session: 's2', kind: 'tool_call', server: 'mail', tool: 'send_email', arguments: { to: 'x@partner.example', subject: 'notes', body } });
  const reads: string[] = [];
  for (let n = 0; n < 500; n++) {
    reads.push(text(2000));
    await on.pipeline.dataflow.record(read(reads[n]!), makeDecision({ decision: 'allow', rationale: 'seed', auditId: `seed-${n}` }));
  }
  const o = { warmup: 30, min: 100, max: 100_000, budgetMs };
  const small = send(text(200));
  console.log(`data flow, store with 500 reads of 2 KB (${join(dir, 'on.db')}), ${budgetMs} ms per case`);
  // Interleaved rounds, so load and JIT warm-up fall on both sides alike.
  const onMs: number[] = [];
  const offMs: number[] = [];
  for (let round = 0; round < 6; round++) {
    onMs.push(...(await timed(() => on.pipeline.check(small), { ...o, budgetMs: budgetMs / 6 })));
    offMs.push(...(await timed(() => off.pipeline.check(small), { ...o, budgetMs: budgetMs / 6 })));
  }
  const withFlow = summarize(onMs);
  const without = summarize(offMs);
  const check = await on.pipeline.check(small);
  if (check.decision !== 'allow') throw new Error(`the benchmark send was not allowed: ${check.rationale}`);
  console.log(line('pipeline check, send 200 B, flow on', withFlow, 40));
  console.log(line('pipeline check, send 200 B, flow off', without, 40));
  console.log(`  added by data flow (median): ${(withFlow.median - without.median).toFixed(3)} ms`);
  for (const size of [200, 4096, 65536]) {
    const i = send(text(size));
    console.log(line(`stage inspect, send ${size} B, no match`, summarize(await timed(() => on.pipeline.dataflow.inspect(i), o)), 40));
  }
  const leak = send(`fyi ${reads[17]!.slice(300, 900)}`);
  const found = await on.pipeline.dataflow.inspect(leak);
  if (!found.flow?.leak) throw new Error('the benchmark leak was not found');
  console.log(line('stage inspect, send 600 B, match', summarize(await timed(() => on.pipeline.dataflow.inspect(leak), o)), 40));
  let k = 0;
  const recordOne = () => on.pipeline.dataflow.record(read(text(4096)), makeDecision({ decision: 'allow', rationale: 'x', auditId: `r-${k++}` }));
  console.log(line('stage record, private read 4 KB', summarize(await timed(recordOne, o)), 40));
  await on.close();
  await off.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
