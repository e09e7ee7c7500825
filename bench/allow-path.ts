/**
 * The stdio allow path's guard work in process: an allowed `read_file` call and its result through
 * `GuardPipeline.check` as `serve` builds it (default book, a SQLite file with the journal, burst analysis off), the
 * path argument resolved first as the proxy resolves it (`resolvePathArguments`), the result and the next call each
 * a turn of the event loop later (as from a server and a client: the audit's group commits run as in the proxy; each block
 * waits out the group window before its CPU time is read, so a group is charged to its own block). Prints the CPU time per allowed
 * call (call + result) and the time in each stage, so a change to the guard's own per-call work can be judged without
 * the pipes and the scheduler (`bench/stdio-drive.ts` and `bench/overhead.ts` measure the whole path).
 *
 *   npx tsx bench/allow-path.ts [calls=4000] [--warmup 1000] [--vary N] [--against DIR] [--blocks 20]
 *
 * `--vary N`: read a different one of N files on every call (nothing keyed by the text or the path is reused).
 * `--against DIR`: another checkout of the project (e.g. `git worktree add /tmp/before <commit>`, with its
 * `node_modules` linked) run in this same process, block by block in alternation with this one (`--blocks` of
 * calls/blocks each), so that both see the same load; prints each one's CPU per call (median of the blocks) and the
 * paired difference. Profile it with `node --cpu-prof --import tsx bench/allow-path.ts`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ROOT } from './common.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { warmup: { type: 'string', default: '1000' }, vary: { type: 'string', default: '0' }, against: { type: 'string' }, blocks: { type: 'string', default: '20' }, untimed: { type: 'boolean', default: false } },
});
const CALLS = Number(positionals[0] ?? 4000);
const WARMUP = Number(values.warmup);
const VARY = Number(values.vary);
const BLOCKS = Number(values.blocks);
for (const [name, v] of [['calls', CALLS], ['--warmup', WARMUP], ['--vary', VARY], ['--blocks', BLOCKS]] as const) {
  if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${name} must be a whole number, not ${String(v)}`);
}
if (BLOCKS < 1) throw new Error('--blocks must be at least 1');

const dir = mkdtempSync(join(tmpdir(), 'qg-allow-'));
const ws = join(dir, 'ws');
mkdirSync(ws);
const files = VARY > 0 ? Array.from({ length: VARY }, (_, k) => `notes-${k}.txt`) : ['notes.txt'];
const texts = files.map((_, k) => (VARY > 0 ? `benchmark file ${k}: minutes of week ${k % 52}, action item ${(k * 7919) % 10007}\n` : 'benchmark file: meeting notes, nothing secret\n'));
files.forEach((f, k) => writeFileSync(join(ws, f), texts[k] as string));

interface Runner {
  label: string;
  call(n: number): Promise<void>;
  stageMs: Map<string, number>;
  resolveMs: number;
  /** The audit's group commits (a commit of pending journal rows), counted since the measured blocks began. */
  groups: number;
  close(): Promise<void>;
}

/** The allow path of the checkout at `root` (its src/, loaded by tsx), on a store of its own. */
async function runner(root: string, label: string): Promise<Runner> {
  const load = (p: string) => import(pathToFileURL(join(root, 'src', p)).href);
  const [{ buildGuard }, { GUARD_STAGES }, { resolvePathArguments }] = await Promise.all([load('guard/build.ts'), load('guard/stages/index.ts'), load('proxy/resolved-paths.ts')]);
  // Where the checkout shares the proxy's realpath answers with the guard's check of the call, the proxy's way.
  type Sharing = <T>(i: object, answers: Map<string, string | null>, fn: () => Promise<T>) => Promise<T>;
  const sharing = await load('detectors/real-paths.ts').then((m: { sharingRealPaths: Sharing }) => m.sharingRealPaths, () => undefined);
  type Stage = { name: string; run(ctx: unknown, env: unknown): void | Promise<void> };
  const out: Runner = { label, stageMs: new Map(), resolveMs: 0, groups: 0, call: async () => {}, close: async () => {} };
  // Counts the audit's group commits: how many calls share one transaction in this bench's turns.
  type Log = { pending: unknown[]; commitPending(this: Log): void };
  const log = ((await load('store/audit.ts')) as { AuditLog: { prototype: Log } }).AuditLog.prototype;
  const commit = log.commitPending;
  log.commitPending = function (this: Log) {
    if (this.pending.length > 0) out.groups++;
    commit.call(this);
  };
  // Each stage's time, summed (wall time inside the stage: the stages of one check run back to back on one thread).
  const timed = (GUARD_STAGES as Stage[]).map((s) => ({
    ...s,
    async run(ctx: unknown, env: unknown) {
      const t0 = performance.now();
      try {
        await s.run(ctx, env);
      } finally {
        out.stageMs.set(s.name, (out.stageMs.get(s.name) ?? 0) + performance.now() - t0);
      }
    },
  }));
  const guard = await buildGuard({
    policy: join(root, 'policies', 'default'),
    store: join(mkdtempSync(join(dir, 'store-')), 'state.db'),
    settings: { watcher: { burst_threshold: 1e9, quarantine: false } },
    // The timer makes every stage async (a promise and a turn each): `--untimed` runs the stages as the proxy does.
    ...(values.untimed ? {} : { stages: timed }),
  });
  const server = { command: process.execPath, args: [], resolve_paths: true };
  const base = { agent: 'local', session: 'stdio-5b7f9c4e-2d1a-4f3b-9c8e-7a6d5e4f3b2a', profile: {}, server: 'ws', tool: 'read_file' };
  out.call = async (n) => {
    const k = n % files.length;
    const t0 = performance.now();
    const answers = new Map<string, string | null>();
    const pinned = resolvePathArguments(server, { path: files[k] }, ['path'], [ws], answers);
    out.resolveMs += performance.now() - t0;
    const asked = { ...base, kind: 'tool_call', arguments: pinned.args ?? {}, roots: [ws], pathKeys: ['path'] };
    const d1 = sharing ? await sharing(asked, answers, () => guard.pipeline.check(asked)) : await guard.pipeline.check(asked);
    if (d1.decision !== 'allow') throw new Error(`${label}: call ${n} denied: ${d1.rationale}`);
    // The server's answer comes in a later turn of the event loop, and so does the client's next call: what the
    // store does after a turn (the audit's group commit) runs here as it runs in the proxy.
    await nextTurn();
    const d2 = await guard.pipeline.check({ ...base, kind: 'tool_result', content: [{ type: 'text', text: texts[k] }] });
    if (d2.decision !== 'allow') throw new Error(`${label}: result ${n} denied: ${d2.rationale}`);
    await nextTurn();
  };
  out.close = () => guard.close();
  return out;
}

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));
/** Longer than the audit's group window: a block's last group is committed inside its own block's CPU time. */
const groupsDone = (): Promise<void> => new Promise((r) => setTimeout(r, 30));
const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;
const us = (ms: number): string => `${(ms * 1000).toFixed(1).padStart(7)} µs`;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

const runners = [await runner(ROOT, 'this checkout')];
if (values.against) runners.push(await runner(resolve(values.against), values.against));
try {
  for (const r of runners) for (let n = 0; n < WARMUP; n++) await r.call(n);
  await groupsDone();
  for (const r of runners) {
    r.stageMs.clear();
    r.resolveMs = 0;
  }
  for (const r of runners) r.groups = 0;
  const perBlock = Math.max(1, Math.floor(CALLS / BLOCKS));
  const blockCpu = runners.map(() => [] as number[]);
  const totalCpu = runners.map(() => 0);
  const totalWall = runners.map(() => 0);
  for (let b = 0; b < BLOCKS; b++) {
    // Alternate which goes first, so neither always follows the other's garbage.
    const order = b % 2 === 0 ? runners.map((_, j) => j) : runners.map((_, j) => runners.length - 1 - j);
    for (const j of order) {
      const r = runners[j] as Runner;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (let n = 0; n < perBlock; n++) await r.call(WARMUP + b * perBlock + n);
      totalWall[j]! += performance.now() - t0;
      await groupsDone();
      const c = cpuMs(process.cpuUsage(c0));
      totalCpu[j]! += c;
      blockCpu[j]!.push(c / perBlock);
    }
  }
  const calls = perBlock * BLOCKS;
  console.log(`${calls} allowed calls (call + result) each after ${WARMUP} warm-up, ${files.length} file(s), in ${BLOCKS} blocks:`);
  runners.forEach((r, j) => {
    console.log(`${r.label}: CPU per call ${us(totalCpu[j]! / calls)} (median of blocks ${us(median(blockCpu[j]!))}), wall per call ${us(totalWall[j]! / calls)}`);
    console.log(`  audit group commits per call ${(r.groups / calls).toFixed(2)}`);
    console.log(`  resolvePathArguments ${us(r.resolveMs / calls)}`);
    for (const [name, ms] of [...r.stageMs].sort((a, b) => b[1] - a[1])) console.log(`  ${name.padEnd(16)} ${us(ms / calls)}`);
  });
  if (runners.length === 2) {
    const diffs = blockCpu[0]!.map((x, b) => x - (blockCpu[1]![b] as number));
    const below = diffs.filter((d) => d < 0).length;
    console.log(`paired CPU per call, this checkout − ${values.against}: median ${us(median(diffs))} (${below} of ${BLOCKS} blocks lower)`);
  }
} finally {
  for (const r of runners) await r.close();
  rmSync(dir, { recursive: true, force: true });
}
