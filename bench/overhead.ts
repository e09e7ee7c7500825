/**
 * Added latency of QuadGuard on a tools/call, allow path and deny path, over stdio and Streamable HTTP, against a
 * direct call and against a plain forwarding proxy, all measured in the same run (ratios are the robust figure).
 *
 *   npm run build && npx tsx bench/overhead.ts [budgetMsPerPath=3000] [--pairs N] [--paired-only]
 *
 * Downstream: the project's workspace server (servers/workspace.ts), `read_file notes.txt` (allow; and, as "allow,
 * varied", a different one of 6,000 files on every call) and
 * `delete_file /etc/passwd` (deny under policies/default: no-delete-outside-sandbox; the server itself refuses it
 * too, so the direct path is a real round trip with an error result). Paths:
 *   stdio  direct                    client → workspace
 *   stdio  quadguard, no policy      client → quadguard serve → workspace   (plain-forwarding baseline: supergateway
 *                                    cannot do stdio→stdio, so QuadGuard with no policy stands in for it)
 *   stdio  quadguard, default        … with policies/default (pipeline + audit into a SQLite file)
 *   stdio  …, provenance off         … the same book with guard.provenance.enabled false: what provenance adds
 *   http   supergateway              client → supergateway --stateful (Streamable HTTP) → workspace
 *   http   quadguard, no policy      client → quadguard serve --http → workspace
 *   http   quadguard, default        … with policies/default
 *   http   …, metrics off            … the same with `http.metrics: false`: what /metrics' counting adds
 *   stdio  …, journal off            … the same with `audit_journal: false`: each row committed before the answer
 * Every front end is connected at once and measured interleaved: each round makes a block of BLOCK calls of each
 * path through each front end, in turn, so a slow moment of the machine (another process, a GC, a CPU-frequency step)
 * falls on all of them alike instead of on whichever was measured then. Measured one after another, the HTTP ratio
 * moved from 1.4× to 3.1× between two runs of the same code, and the first path measured on a connection came out
 * slower. Within a block the calls follow one another, as an agent's do, so each is timed with its code warm, as before.
 * The guard's burst analysis and quarantine are switched off in the policy config (thousands of calls per second
 * from one agent would otherwise quarantine it, and every later call would take the quarantine short cut).
 * QuadGuard runs as users run it, the built bundle (package.json `bin`); the workspace server runs from its source
 * under tsx on every path alike. Loopback only; every child is stopped at the end.
 * Then it prints the guard's own time inside each guarded proxy (the `elapsed_ms` the audit rows record), next to
 * what the HTTP target leaves for it: 0.15 × supergateway's median.
 * Last, the two differences that have a budget of their own (metrics on vs off, issue 29: ≤ 0.05 ms; provenance on
 * vs off) are measured PAIRED: N pairs (default 10,000) of allow-path calls, one through each proxy back to back,
 * the order alternating pair by pair, and it prints the median of the paired differences with its 95% confidence
 * interval (the sign test's, from order statistics: no assumption on the shape of the latencies). A slow moment of
 * the machine falls on both calls of a pair, so the interval is narrow where the blocked medians above move by
 * ±0.25 ms between runs; its half-width is the bench's resolution and is printed. Beside the wall time it reads each
 * proxy's CPU time (all its threads, Linux /proc, ns) every 50 pairs: what a proxy adds is work, and its CPU time
 * hardly moves with the machine's load, where wall time does (a busy machine queues every call); it counts background
 * work too (GC, timers), so it errs high, never low. `--paired-only` starts just the
 * four proxies of those two pairs (warmed up for the same time) and skips the rest.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { openDatabase } from '../src/store/sqlite.js';
import YAML from 'yaml';
import { builtCli, fmtMs, freePort, httpClient, line, medianInterval, ROOT, summarize, tsNode, waitForHttp, type Summary } from './common.js';

const argv = process.argv.slice(2);
const flag = (name: string) => argv.indexOf(name);
const BUDGET = Number(argv.find((a, k) => !a.startsWith('--') && argv[k - 1] !== '--pairs') ?? 3000);
const PAIRS = flag('--pairs') >= 0 ? Number(argv[flag('--pairs') + 1]) : 10_000;
const PAIRED_ONLY = flag('--paired-only') >= 0;
if (!(BUDGET > 0) || !(PAIRS >= 20)) throw new Error('usage: npx tsx bench/overhead.ts [budgetMsPerPath>0] [--pairs N≥20] [--paired-only]');
/** At least this many calls of each path through each front end are measured, at most MAX. */
const MIN = 200;
/** Pairs per reading of the two proxies' CPU time in the paired comparisons. */
const CPU_BLOCK = 50;
/** Calls in a row of one path through one front end, before the next. */
const BLOCK = 50;
const MAX = 20_000;
/** Time spent calling every path of a connection before any is measured, per front end (interleaved). */
const WARMUP_MS = BUDGET;

const dir = mkdtempSync(join(tmpdir(), 'qg-overhead-'));
const ws = join(dir, 'ws');
mkdirSync(ws);
writeFileSync(join(ws, 'notes.txt'), 'benchmark file: meeting notes, nothing secret\n');
// The varied allow path reads a different file (different text) on every call, so nothing keyed by the text (the
// data-flow re-read skip) is reused: the cost of an agent reading many files, next to one re-reading one file.
const VARIED = 6000;
for (let k = 0; k < VARIED; k++) writeFileSync(join(ws, `notes-${k}.txt`), `benchmark file ${k}: minutes of week ${k % 52}, action item ${(k * 7919) % 10007}\n`);
const server = tsNode('servers/workspace.ts', '--root', ws);
const cli = builtCli;

function config(name: string, policy: boolean, guard: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): string {
  const file = join(dir, `${name}.yaml`);
  const cfg = {
    ...extra,
    servers: { ws: { ...server } },
    store: join(dir, `${name}.db`),
    ...(policy ? { policy: join(ROOT, 'policies', 'default'), guard: { watcher: { burst_threshold: 1_000_000_000, quarantine: false }, ...guard } } : {}),
  };
  writeFileSync(file, YAML.stringify(cfg));
  return file;
}
const plain = config('plain', false);
// One store per guarded front end, as one proxy runs: two processes writing one SQLite file would each see the other's
// commits (a reset page cache, threat state read again) on every switch between them.
const guardedStdio = config('guarded-stdio', true);
const guardedHttp = config('guarded-http', true);
// The same book with provenance switched off (docs/provenance.md): what provenance costs on the allow path.
const guardedNoProvenance = config('guarded-stdio-noprov', true, { provenance: { enabled: false } });
// The same book over HTTP with no metrics registry (`http.metrics: false`): what counting for /metrics costs.
const guardedNoMetrics = config('guarded-http-nometrics', true, {}, { http: { metrics: false } });
// The same book with each decision's audit row committed before the answer (the journal is the default).
const guardedNoJournal = config('guarded-stdio-nojournal', true, {}, { audit_journal: false });

const PATHS = ['allow', 'deny', 'varied'] as const;
type PathName = (typeof PATHS)[number];
type PathResult = Record<PathName, Summary>;

interface FrontEnd {
  label: string;
  client: Client;
  call: Record<PathName, () => Promise<void>>;
  ms: Record<PathName, number[]>;
  /** The proxy's process, for its CPU time (null: not known). */
  pid: () => number | null | undefined;
}

async function connect(label: string, transport: Transport, prefix: string, expectDenied: boolean, pid?: number): Promise<FrontEnd> {
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(transport);
  let next = 0;
  const read = async (path: string) => {
    const r = await client.callTool({ name: `${prefix}read_file`, arguments: { path } });
    if (r.isError) throw new Error(`${label}: allow-path call failed: ${JSON.stringify(r.content).slice(0, 200)}`);
  };
  const deny = async () => {
    const r = await client.callTool({ name: `${prefix}delete_file`, arguments: { path: '/etc/passwd' } });
    if (!r.isError) throw new Error(`${label}: deny-path call succeeded`);
    if (expectDenied && !JSON.stringify(r).includes('no-delete-outside-sandbox')) throw new Error(`${label}: not denied by the policy`);
  };
  return {
    label,
    client,
    call: { allow: () => read('notes.txt'), deny, varied: () => read(`notes-${next++ % VARIED}.txt`) },
    ms: { allow: [], deny: [], varied: [] },
    pid: () => pid ?? (transport instanceof StdioClientTransport ? transport.pid : null),
  };
}

/**
 * CPU time a process has used, all its threads (the main thread, libuv's pool, the GC's helpers), in ms with
 * nanosecond resolution (Linux `/proc/<pid>/task/<tid>/schedstat`); undefined elsewhere.
 */
function cpuMs(pid: number | null | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // The thread ended between the listing and the read
      }
    }
    return ns / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * Warms every front end up on all its paths (a proxy's hot code is optimised only after thousands of calls: the
 * median of each 500-call window falls for the first ~5,000), then measures them interleaved, a block at a time, until
 * each path of each front end has MIN calls and the budget is spent (or one has MAX).
 */
async function measureAll(fronts: FrontEnd[]): Promise<Map<FrontEnd, PathResult>> {
  await warmUp(fronts);
  const start = performance.now();
  const budget = BUDGET * PATHS.length * fronts.length;
  const count = () => fronts[0]!.ms.allow.length;
  while (count() < MIN || (count() < MAX && performance.now() - start < budget)) {
    for (const f of fronts) {
      for (const p of PATHS) {
        for (let k = 0; k < BLOCK; k++) {
          const t0 = performance.now();
          await f.call[p]();
          f.ms[p].push(performance.now() - t0);
        }
      }
    }
  }
  const out = new Map<FrontEnd, PathResult>();
  for (const f of fronts) {
    const r = { allow: summarize(f.ms.allow), deny: summarize(f.ms.deny), varied: summarize(f.ms.varied) };
    console.log(line(`${f.label} allow`, r.allow, 36));
    console.log(line(`${f.label} deny`, r.deny, 36));
    console.log(line(`${f.label} allow, varied`, r.varied, 36));
    out.set(f, r);
  }
  return out;
}

/**
 * What `a` adds over `b` on one path: PAIRS pairs of calls, one through each back to back (which goes first alternates
 * pair by pair, so neither gains from the other's warm caches), and the median of the paired differences with its
 * 95% interval. With `budgetMs`, says whether the interval shows the cost within the budget.
 */
async function paired(label: string, a: FrontEnd, b: FrontEnd, path: PathName, budgetMs?: number): Promise<void> {
  const d = new Float64Array(PAIRS);
  const cpu: number[] = [];
  let before = { a: cpuMs(a.pid()), b: cpuMs(b.pid()) };
  for (let k = 0; k < PAIRS; k++) {
    const [first, second] = k % 2 === 0 ? [a, b] : [b, a];
    const t0 = performance.now();
    await first.call[path]();
    const t1 = performance.now();
    await second.call[path]();
    const t2 = performance.now();
    d[k] = k % 2 === 0 ? t1 - t0 - (t2 - t1) : t2 - t1 - (t1 - t0);
    if ((k + 1) % CPU_BLOCK === 0 && before.a !== undefined && before.b !== undefined) {
      const after = { a: cpuMs(a.pid()), b: cpuMs(b.pid()) };
      if (after.a !== undefined && after.b !== undefined) cpu.push((after.a - before.a - (after.b - before.b)) / CPU_BLOCK);
      before = after;
    }
  }
  d.sort();
  const wall = medianInterval(d);
  const show = (what: string, x: { median: number; lo: number; hi: number }, n: string) =>
    console.log(`${what.padEnd(58)} added median ${fmtMs(x.median).padStart(7)} ms, 95% CI [${fmtMs(x.lo)}, ${fmtMs(x.hi)}] ms over ${n} (resolution ±${fmtMs((x.hi - x.lo) / 2)} ms)`);
  show(`${label}, wall time per call`, wall, `${PAIRS} pairs`);
  const cpuX = cpu.length >= 20 ? medianInterval(cpu.sort((x, y) => x - y)) : undefined;
  if (cpuX) show(`${label}, proxy CPU time per call`, cpuX, `${cpu.length} paired blocks of ${CPU_BLOCK}`);
  else console.log(`${label}, proxy CPU time per call: not measured (needs Linux /proc and ≥ ${20 * CPU_BLOCK} pairs)`);
  if (budgetMs !== undefined) {
    const verdict = (x: { lo: number; hi: number }) =>
      x.hi <= budgetMs ? `within (upper end ${fmtMs(x.hi)} ms ≤ ${budgetMs} ms)` : x.lo > budgetMs ? `OVER (lower end ${fmtMs(x.lo)} ms > ${budgetMs} ms)` : `not resolved (the interval contains ${budgetMs} ms: a quieter machine or more --pairs)`;
    console.log(`${''.padEnd(4)}budget ≤ ${budgetMs} ms: wall time ${verdict(wall)}; CPU time ${cpuX ? verdict(cpuX) : 'not measured'}`);
  }
}

/** Calls every path of every front end in turn for WARMUP_MS per front end, measuring nothing. */
async function warmUp(fronts: FrontEnd[]): Promise<void> {
  for (const until = performance.now() + WARMUP_MS * fronts.length; performance.now() < until; ) {
    for (const f of fronts) for (const p of PATHS) await f.call[p]();
  }
}

/**
 * Medians of the guard's own time (audit `elapsed_ms`) for the allowed `read_file` calls and their results in a store,
 * over the later half of its rows (the warm-up takes about the first quarter).
 */
function guardMs(file: string): { call: number; result: number } {
  const db = openDatabase(file, { readonly: true, fileMustExist: true });
  try {
    const of = (kind: string) => {
      const xs = (db.prepare("SELECT elapsed_ms AS ms FROM audit WHERE kind = ? AND decision = 'allow' AND tool = 'read_file' AND id > (SELECT max(id) / 2 FROM audit) ORDER BY elapsed_ms").all(kind) as { ms: number }[]).map((x) => x.ms);
      return xs.length > 0 ? xs[Math.floor(xs.length / 2)]! : Number.NaN;
    };
    return { call: of('tool_call'), result: of('tool_result') };
  } finally {
    db.close();
  }
}

const children: ChildProcess[] = [];
async function httpServer(command: string, args: string[], port: number): Promise<URL> {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, QUADGUARD_LOG_LEVEL: 'warn' } });
  children.push(child);
  await waitForHttp(`http://127.0.0.1:${port}/mcp`, 90_000); // eight front ends start at once on a shared machine
  return new URL(`http://127.0.0.1:${port}/mcp`);
}
/** A guarded HTTP proxy front end whose process is known (for its CPU time). */
async function httpProxyFront(label: string, c: { command: string; args: string[] }, port: number): Promise<FrontEnd> {
  const url = await httpServer(c.command, c.args, port);
  return connect(label, httpClient(url), 'ws__', true, children.at(-1)!.pid);
}
const stdio = (c: { command: string; args: string[] }) =>
  new StdioClientTransport({ command: c.command, args: c.args, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', QUADGUARD_LOG_LEVEL: 'warn' }, stderr: 'inherit' });

const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

/** The paired differences with a budget or a question of their own (see the header). */
async function pairedSection(fronts: { httpOn: FrontEnd; httpOff: FrontEnd; provOn: FrontEnd; provOff: FrontEnd }): Promise<void> {
  console.log(`-- paired: ${PAIRS} pairs of allow-path calls each, one through each proxy back to back, order alternating (load average before: ${load()})`);
  await paired('http allow: metrics on vs off', fronts.httpOn, fronts.httpOff, 'allow', 0.05);
  await paired('stdio allow: provenance on vs off', fronts.provOn, fronts.provOff, 'allow');
  console.log(`   (load average after: ${load()}; the interval is the figure's uncertainty on this machine at this load)`);
}

/** The guard's own time in each guarded proxy, from its audit rows. */
function guardTimes(): void {
  console.log('-- the guard\'s own checks inside each proxy (elapsed_ms of its audit rows: stages up to the row, not its commit)');
  for (const [label, name] of [['stdio', 'guarded-stdio'], ['stdio, provenance off,', 'guarded-stdio-noprov'], ['http', 'guarded-http'], ['http, metrics off,', 'guarded-http-nometrics'], ['stdio, journal off,', 'guarded-stdio-nojournal']] as const) {
    const ms = guardMs(join(dir, `${name}.db`));
    console.log(`${label} quadguard+policy: allowed tool_call median ${fmtMs(ms.call)} ms + its tool_result ${fmtMs(ms.result)} ms = ${fmtMs(ms.call + ms.result)} ms per allowed call`);
  }
}

try {
  console.log(`node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} cores, load average ${load()} (1, 5, 15 min)`);
  if (PAIRED_ONLY) {
    console.log(`--paired-only: four proxies, warm-up ${WARMUP_MS} ms per proxy, then ${PAIRS} pairs per comparison`);
    const pOn = await freePort();
    const pOff = await freePort();
    const on = cli('serve', '--config', guardedHttp, '--http', String(pOn));
    const off = cli('serve', '--config', guardedNoMetrics, '--http', String(pOff));
    const fronts = {
      httpOn: await httpProxyFront('http quadguard, default policy', on, pOn),
      httpOff: await httpProxyFront('http quadguard, default policy, metrics off', off, pOff),
      provOn: await connect('stdio quadguard, default policy', stdio(cli('serve', '--config', guardedStdio)), 'ws__', true),
      provOff: await connect('stdio quadguard, default policy, provenance off', stdio(cli('serve', '--config', guardedNoProvenance)), 'ws__', true),
    };
    await warmUp(Object.values(fronts));
    await pairedSection(fronts);
    for (const f of Object.values(fronts)) await f.client.close();
    guardTimes();
  } else {
    const p1 = await freePort();
    const p2 = await freePort();
    const p3 = await freePort();
    const p4 = await freePort();
    const sg = join(ROOT, 'node_modules', '.bin', 'supergateway');
    const sgCmd = `${server.command} ${server.args.map((a) => `'${a}'`).join(' ')}`;
    const c2 = cli('serve', '--config', plain, '--http', String(p2));
    const c3 = cli('serve', '--config', guardedHttp, '--http', String(p3));
    const c4 = cli('serve', '--config', guardedNoMetrics, '--http', String(p4));
    const fronts = [
      await connect('stdio direct', stdio(server), '', false),
      await connect('stdio quadguard, no policy', stdio(cli('serve', '--config', plain)), 'ws__', false),
      await connect('stdio quadguard, default policy', stdio(cli('serve', '--config', guardedStdio)), 'ws__', true),
      await connect('stdio quadguard, default policy, provenance off', stdio(cli('serve', '--config', guardedNoProvenance)), 'ws__', true),
      await connect('http supergateway', httpClient(await httpServer(sg, ['--stdio', sgCmd, '--outputTransport', 'streamableHttp', '--stateful', '--port', String(p1), '--logLevel', 'none'], p1)), '', false),
      await connect('http quadguard, no policy', httpClient(await httpServer(c2.command, c2.args, p2)), 'ws__', false),
      await httpProxyFront('http quadguard, default policy', c3, p3),
      await httpProxyFront('http quadguard, default policy, metrics off', c4, p4),
      await connect('stdio quadguard, default policy, journal off', stdio(cli('serve', '--config', guardedNoJournal)), 'ws__', true),
    ];
    console.log(`nine front ends measured interleaved, in blocks of ${BLOCK} calls; warm-up ${WARMUP_MS} ms per front end, then ~${BUDGET} ms per path and front end; on a shared machine the blocked medians are noisy (±0.25 ms here): compare within the run, and see the paired figures at the end`);
    const results = await measureAll(fronts);
    const [direct, qgPlain, qgPolicy, qgNoProv, sgR, httpPlain, httpPolicy, httpNoMetrics, qgNoJournal] = fronts.map((f) => results.get(f)!);
    const r = { direct, qgPlain, qgPolicy, qgNoProv, sg: sgR, httpPlain, httpPolicy, httpNoMetrics, qgNoJournal };

    const cmp = (label: string, a: Summary, b: Summary) =>
      console.log(`${label.padEnd(58)} added median ${fmtMs(a.median - b.median).padStart(7)} ms (${(a.median / b.median).toFixed(2)}×), p90 ${fmtMs(a.p90 - b.p90).padStart(7)} ms (${(a.p90 / b.p90).toFixed(2)}×)`);
    console.log('-- allow path');
    cmp('stdio quadguard+policy vs direct', r.qgPolicy!.allow, r.direct!.allow);
    cmp('stdio quadguard+policy vs quadguard without policy', r.qgPolicy!.allow, r.qgPlain!.allow);
    cmp('stdio quadguard without policy vs direct', r.qgPlain!.allow, r.direct!.allow);
    cmp('http quadguard+policy vs supergateway', r.httpPolicy!.allow, r.sg!.allow);
    cmp('http quadguard+policy vs quadguard without policy', r.httpPolicy!.allow, r.httpPlain!.allow);
    cmp('http quadguard without policy vs supergateway', r.httpPlain!.allow, r.sg!.allow);
    console.log('-- allow path, a different file on every call (nothing keyed by the text is reused)');
    cmp('stdio quadguard+policy vs direct', r.qgPolicy!.varied, r.direct!.varied);
    cmp('stdio quadguard+policy vs quadguard without policy', r.qgPolicy!.varied, r.qgPlain!.varied);
    cmp('stdio quadguard without policy vs direct', r.qgPlain!.varied, r.direct!.varied);
    cmp('http quadguard+policy vs supergateway', r.httpPolicy!.varied, r.sg!.varied);
    console.log('-- what provenance adds (the same book with guard.provenance.enabled false)');
    cmp('stdio allow: provenance on vs off', r.qgPolicy!.allow, r.qgNoProv!.allow);
    cmp('stdio allow, varied: provenance on vs off', r.qgPolicy!.varied, r.qgNoProv!.varied);
    console.log('-- what the audit journal saves (the same book with audit_journal false: each row committed before the answer)');
    cmp('stdio allow: journal on vs off', r.qgPolicy!.allow, r.qgNoJournal!.allow);
    cmp('stdio allow, varied: journal on vs off', r.qgPolicy!.varied, r.qgNoJournal!.varied);
    cmp('stdio allow: journal off vs quadguard without policy', r.qgNoJournal!.allow, r.qgPlain!.allow);
    console.log('-- what /metrics adds (the same HTTP proxy with http.metrics false)');
    cmp('http allow: metrics on vs off', r.httpPolicy!.allow, r.httpNoMetrics!.allow);
    cmp('http allow, varied: metrics on vs off', r.httpPolicy!.varied, r.httpNoMetrics!.varied);
    console.log('-- deny path (QuadGuard answers without forwarding; direct/supergateway get the server\'s own refusal)');
    cmp('stdio quadguard+policy vs direct', r.qgPolicy!.deny, r.direct!.deny);
    cmp('stdio quadguard+policy vs quadguard without policy', r.qgPolicy!.deny, r.qgPlain!.deny);
    cmp('http quadguard+policy vs supergateway', r.httpPolicy!.deny, r.sg!.deny);
    cmp('http quadguard+policy vs quadguard without policy', r.httpPolicy!.deny, r.httpPlain!.deny);
    guardTimes();
    console.log(`the HTTP target (≤ 1.15× supergateway's median of ${fmtMs(r.sg!.allow.median)} ms) leaves ${fmtMs(0.15 * r.sg!.allow.median)} ms for all the guard adds`);
    await pairedSection({ httpOn: fronts[6]!, httpOff: fronts[7]!, provOn: fronts[2]!, provOff: fronts[3]! });
    for (const f of fronts) await f.client.close();
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
  await new Promise((done) => setTimeout(done, 500));
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
