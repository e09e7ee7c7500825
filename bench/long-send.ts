/**
 * A long send and the event loop: `GuardPipeline.check` of a `write_file` call with 64 / 200 KB of prose (default
 * book, SQLite store, audit, a pool of one worker), with `guard.pool.min_send_chars` at its default (a send of
 * 32 K characters or more is read in the pool) and at 256 K (the former rule: a send read in the pool only from
 * `min_chars`, as a result is), the two pipelines alternated call by call in one process. For each: the event loop's
 * longest stall during the check (a 1 ms interval timer's longest gap: what every other session of the proxy waits),
 * the check's wall time and the process's CPU time (every thread).
 *
 *   npx tsx bench/long-send.ts [--kb 64,200] [--rounds 5]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { InteractionSchema, type Interaction } from '../src/core/types.js';
import { buildGuard } from '../src/guard/build.js';
import { ROOT } from './common.js';

const { values } = parseArgs({ options: { kb: { type: 'string', default: '64,200' }, rounds: { type: 'string', default: '5' } } });
const sizes = values.kb.split(',').map(Number);
const rounds = Number(values.rounds);
const prose = ['README.md', 'docs/architecture.md', 'docs/data-flow.md'].map((f) => readFileSync(join(ROOT, f), 'utf8')).join('\n');
const textOf = (kb: number) => prose.repeat(Math.ceil((kb * 1024) / prose.length)).slice(0, kb * 1024);

let n = 0;
const write = (content: string): Interaction => InteractionSchema.parse({ agent: 'bench', session: `s${n++}`, profile: {}, kind: 'tool_call', server: 'files', tool: 'write_file', arguments: { path: '/tmp/report.txt', content } });

const dir = mkdtempSync(join(tmpdir(), 'qg-bench-long-send-'));
const settings = (minSend: number) => ({ watcher: { quarantine: false, burst_threshold: 1e9 }, pool: { workers: 1, min_send_chars: minSend } });
const rules = [
  { name: 'min_send_chars 32 K (default)', guard: await buildGuard({ policy: join(ROOT, 'policies', 'default'), store: join(dir, 'send.db'), settings: settings(32 * 1024) }) },
  { name: 'min_send_chars 256 K (former)', guard: await buildGuard({ policy: join(ROOT, 'policies', 'default'), store: join(dir, 'former.db'), settings: settings(256 * 1024) }) },
];

/** The check of `i` with the loop's longest gap between 1 ms ticks meanwhile, its wall time and the process's CPU. */
async function measure(check: (i: Interaction) => Promise<unknown>, i: Interaction): Promise<{ stall: number; wall: number; cpu: number }> {
  let last = performance.now();
  let stall = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  await new Promise((r) => setTimeout(r, 10));
  stall = 0;
  last = performance.now();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await check(i);
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  // The tick after the check ends the last gap.
  await new Promise((r) => setTimeout(r, 5));
  clearInterval(tick);
  return { stall, wall, cpu: (c.user + c.system) / 1000 };
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
try {
  console.log(`node ${process.version}; default book, a pool of one worker; medians of ${rounds} checks a size and rule, the rules alternated`);
  for (const kb of sizes) {
    const text = textOf(kb);
    for (const r of rules) for (let w = 0; w < 2; w++) await r.guard.pipeline.check(write(`${text} warm ${w}`));
    const got = rules.map(() => ({ stall: [] as number[], wall: [] as number[], cpu: [] as number[] }));
    for (let k = 0; k < rounds; k++) {
      for (const [x, r] of rules.entries()) {
        const m = await measure((i) => r.guard.pipeline.check(i), write(`${text} ${k}`));
        got[x]!.stall.push(m.stall);
        got[x]!.wall.push(m.wall);
        got[x]!.cpu.push(m.cpu);
      }
    }
    for (const [x, r] of rules.entries()) {
      const g = got[x]!;
      console.log(`${kb} KB write, ${r.name.padEnd(30)} loop's longest stall ${median(g.stall).toFixed(1).padStart(7)} ms   wall ${median(g.wall).toFixed(1).padStart(7)} ms   CPU ${median(g.cpu).toFixed(1).padStart(7)} ms`);
    }
    console.log(`${kb} KB write: the loop's longest stall ${(median(got[0]!.stall) / median(got[1]!.stall)).toFixed(2)}× the former rule's`);
  }
} finally {
  for (const r of rules) await r.guard.close();
  rmSync(dir, { recursive: true, force: true });
}
