/**
 * Throughput over Streamable HTTP at 1, 8 and 32 concurrent sessions, each calling the workspace server's
 * `read_file` in a closed loop for a fixed time, through three front ends measured in the same run, level by level:
 *   supergateway --stateful (a plain forwarding gateway: the baseline the issue names),
 *   quadguard serve --http without a policy,
 *   quadguard serve --http with policies/default (tool_call and tool_result both checked and audited).
 * At each level the three front ends take turns in one-second slices until each has run its time, so a slow moment
 * of the machine falls on all of them alike (run one after another, the 1-session ratio of one code moved from 0.55×
 * to 0.92× between runs). Prints calls/s, median/p99 latency, p99/median, the ratio of calls/s to supergateway's, and
 * the proxy's RSS (/proc/<pid>/status VmRSS) before and after each level.
 *
 *   npm run build && npx tsx bench/throughput.ts [secondsPerLevel=4] [--levels 1,8,32] [--probe] [--against DIR]
 *
 * `--against DIR`: another checkout's built proxy (`DIR/dist/cli/quadguard.js`, e.g. the commit before) with the same
 * policy on a store of its own takes its turn among the front ends, and each level prints this checkout's policy proxy
 * against it: a before/after figure that the machine's load moves alike.
 *
 * `--probe`: each QuadGuard runs with bench/loop-probe.mjs loaded, and after each level its event loop's delay
 * (median, p99, max), its GC pauses (count, total, max) and its CPU over the level are printed, with the same for this
 * process (the client of every front end): what a latency tail is made of.
 *
 * Burst analysis and quarantine are off in the config (otherwise the load itself quarantines the agent). One
 * agent (anonymous, loopback). QuadGuard runs as the built bundle (package.json `bin`), as users run it; the
 * workspace server runs from its source under tsx behind every front end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import YAML from 'yaml';
import { builtCli, fmtMs, freePort, httpClient, ROOT, rssMiB, summarize, takeTurns, tsNode, waitForHttp, type Summary } from './common.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { levels: { type: 'string', default: '1,8,32' }, probe: { type: 'boolean', default: false }, against: { type: 'string' } } });
const AGAINST = values.against;
if (AGAINST !== undefined && !existsSync(join(AGAINST, 'dist', 'cli', 'quadguard.js'))) throw new Error(`--against ${AGAINST}: no dist/cli/quadguard.js there (build that checkout first)`);
const SECONDS = Number(positionals[0] ?? 4);
const LEVELS = values.levels.split(',').map(Number);
if (!(SECONDS > 0)) throw new Error(`seconds per level must be a positive number, not ${positionals[0]}`);
if (LEVELS.some((n) => !Number.isSafeInteger(n) || n < 1)) throw new Error(`--levels takes session counts such as 1,8,32, not ${values.levels}`);

const dir = mkdtempSync(join(tmpdir(), 'qg-throughput-'));
const ws = join(dir, 'ws');
mkdirSync(ws);
writeFileSync(join(ws, 'notes.txt'), 'benchmark file: meeting notes, nothing secret\n');
const server = tsNode('servers/workspace.ts', '--root', ws);
const cfg = join(dir, 'quadguard.yaml');
writeFileSync(cfg, YAML.stringify({
  servers: { ws: { ...server } },
  store: join(dir, 'state.db'),
  policy: join(ROOT, 'policies', 'default'),
  guard: { watcher: { burst_threshold: 1_000_000_000, quarantine: false } },
}));
// The other checkout's proxy (--against): the same config on a store of its own.
const againstCfg = join(dir, 'against.yaml');
writeFileSync(againstCfg, YAML.stringify({
  servers: { ws: { ...server } },
  store: join(dir, 'against.db'),
  policy: join(ROOT, 'policies', 'default'),
  guard: { watcher: { burst_threshold: 1_000_000_000, quarantine: false } },
}));
const plainCfg = join(dir, 'plain.yaml');
writeFileSync(plainCfg, YAML.stringify({ servers: { ws: { ...server } }, store: join(dir, 'plain.db') }));

interface Front {
  label: string;
  url: URL;
  prefix: string;
  proc: ChildProcess;
}
const fronts: Front[] = [];
/** Where a probed front end writes its figures (bench/loop-probe.mjs). */
const probeFile = (label: string) => join(dir, `probe-${label.replace(/\W+/g, '-')}.jsonl`);
async function start(label: string, command: string, args: string[], prefix: string, port: number, probe = false): Promise<Front> {
  const probed = probe ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${join(ROOT, 'bench', 'loop-probe.mjs')}`, QG_LOOP_PROBE: probeFile(label) } : {};
  const proc = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, QUADGUARD_LOG_LEVEL: 'error', ...probed } });
  const front = { label, url: new URL(`http://127.0.0.1:${port}/mcp`), prefix, proc };
  fronts.push(front);
  await waitForHttp(front.url.href);
  return front;
}

/**
 * A new session on `f`. A keep-alive connection the front end closed while the client was too busy to notice fails
 * the first request sent on it ("other side closed": supergateway keeps Node's 5 s default, and opening 96 sessions
 * at once on a slow machine outlasts it); a client then opens the session again, on a new connection, and so does
 * this, twice at most. Any other failure is the front end's, and ends the run.
 */
async function session(f: Front): Promise<Client> {
  for (let attempt = 1; ; attempt++) {
    const c = new Client({ name: 'bench', version: '0' });
    try {
      await c.connect(httpClient(f.url));
      return c;
    } catch (err) {
      const cause = String((err as { cause?: unknown }).cause);
      await c.close().catch(() => undefined);
      if (attempt < 3 && /other side closed|ECONNRESET|socket hang up/i.test(cause)) continue;
      throw new Error(`${f.label}: connect failed: ${(err as Error).message}: ${cause}`, { cause: err });
    }
  }
}
const call = async (f: Front, c: Client) => {
  const r = await c.callTool({ name: `${f.prefix}read_file`, arguments: { path: 'notes.txt' } }).catch((err: unknown) => {
    throw new Error(`${f.label}: call failed: ${(err as Error).message}: ${String((err as { cause?: unknown }).cause)}`);
  });
  if (r.isError) throw new Error(`${f.label}: call failed: ${JSON.stringify(r.content).slice(0, 200)}`);
};

/** A level runs each front end in turn for this long at a time, until each has run SECONDS. */
const SLICE_MS = 1000;

interface LevelResult {
  rate: number;
  s: Summary;
  calls: number;
  rss: [number, number];
}

/**
 * One level: `n` sessions on every front end, run in slices of SLICE_MS taking turns (so a slow moment of the
 * machine falls on all of them alike), until each has run SECONDS; calls/s over its own slices, and latency summary.
 */
async function level(fs: readonly Front[], n: number): Promise<Map<Front, LevelResult>> {
  // Every front end's sessions are opened at once (96 at the 32-session level). With Node's 5 s keep-alive, the
  // client, too busy to read for 6 s, reused connections QuadGuard had closed ("other side closed"); it keeps idle
  // connections 65 s since (docs/proxying.md, "HTTP front end: connections").
  const runs = await Promise.all(
    fs.map(async (f) => {
      const clients = await Promise.all(Array.from({ length: n }, () => session(f)));
      for (const c of clients) await call(f, c);
      return { f, clients, ms: [] as number[], elapsed: 0, before: rssMiB(f.proc.pid!) };
    }),
  );
  await takeTurns(runs, SECONDS, SLICE_MS, (r, c) => call(r.f, c));
  const out = new Map<Front, LevelResult>();
  for (const r of runs) {
    const after = rssMiB(r.f.proc.pid!);
    await Promise.all(r.clients.map((c) => c.close()));
    out.set(r.f, { rate: r.ms.length / (r.elapsed / 1000), s: summarize(r.ms), calls: r.ms.length, rss: [r.before, after] });
  }
  return out;
}

interface ProbeFigures {
  loop: { p50: number; p99: number; max: number };
  gc: { count: number; totalMs: number; p99Ms: number; maxMs: number };
  cpuMs: number;
}
const probeLine = (p: ProbeFigures | undefined, calls: number) =>
  p === undefined
    ? 'no probe figures (the process did not answer SIGUSR2)'
    : `loop delay median ${p.loop.p50} ms, p99 ${p.loop.p99} ms, max ${p.loop.max} ms; GC ${p.gc.count} pauses, ${p.gc.totalMs} ms in all, p99 ${p.gc.p99Ms} ms, max ${p.gc.maxMs} ms; CPU ${p.cpuMs} ms (${((p.cpuMs * 1000) / Math.max(1, calls)).toFixed(0)} µs per call)`;
function lastProbe(label: string): ProbeFigures | undefined {
  const lines = readFileSync(probeFile(label), 'utf8').trim().split('\n');
  return lines.length > 0 && lines.at(-1) !== '' ? (JSON.parse(lines.at(-1)!) as ProbeFigures) : undefined;
}
/** The same figures for this process, the client of every front end. */
function clientProbe(): { reset(): void; read(): ProbeFigures } | undefined {
  if (!values.probe) return undefined;
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let gc: number[] = [];
  new PerformanceObserver((list) => void gc.push(...list.getEntries().map((e) => e.duration))).observe({ entryTypes: ['gc'] });
  let since = process.cpuUsage();
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  return {
    reset() {
      loop.reset();
      gc = [];
      since = process.cpuUsage();
    },
    read() {
      const cpu = process.cpuUsage(since);
      gc.sort((a, b) => a - b);
      return {
        loop: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
        gc: { count: gc.length, totalMs: Math.round(gc.reduce((a, b) => a + b, 0)), p99Ms: Math.round((gc[Math.floor(gc.length * 0.99)] ?? 0) * 10) / 10, maxMs: Math.round((gc.at(-1) ?? 0) * 10) / 10 },
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      };
    },
  };
}

try {
  const sgPort = await freePort();
  const sgCmd = `${server.command} ${server.args.map((a) => `'${a}'`).join(' ')}`;
  const sg = await start('supergateway', join(ROOT, 'node_modules', '.bin', 'supergateway'), ['--stdio', sgCmd, '--outputTransport', 'streamableHttp', '--stateful', '--port', String(sgPort), '--logLevel', 'none'], '', sgPort);
  const plainPort = await freePort();
  const plainCmd = builtCli('serve', '--config', plainCfg, '--http', String(plainPort));
  const plain = await start('quadguard, no policy', plainCmd.command, plainCmd.args, 'ws__', plainPort, values.probe);
  const policyPort = await freePort();
  const policyCmd = builtCli('serve', '--config', cfg, '--http', String(policyPort));
  const guarded = await start('quadguard, default policy', policyCmd.command, policyCmd.args, 'ws__', policyPort, values.probe);
  const againstPort = await freePort();
  const against = AGAINST === undefined ? undefined : await start(`--against, default policy`, process.execPath, [join(AGAINST, 'dist', 'cli', 'quadguard.js'), 'serve', '--config', againstCfg, '--http', String(againstPort)], 'ws__', againstPort);
  const measured = against === undefined ? [sg, plain, guarded] : [sg, plain, guarded, against];
  // Each front end is warmed up for as long as a level lasts (at least 200 calls): its hot code is optimised only
  // after thousands of calls, and with a short warm-up the first level (1 session) measured the warm-up.
  for (const f of fronts) {
    const warm = await session(f);
    const until = performance.now() + SECONDS * 1000;
    for (let i = 0; i < 200 || performance.now() < until; i++) await call(f, warm);
    await warm.close();
  }
  console.log(
    `node ${process.version}, ${process.platform}/${process.arch}; ${SECONDS} s per level and front end, closed loop, the front ends taking turns in ${SLICE_MS} ms slices; shared 2-core machine (client, front end and server share it): compare within the run`,
  );
  const probed = values.probe ? [plain, guarded] : [];
  const client = clientProbe();
  for (const n of LEVELS) {
    for (const f of probed) f.proc.kill('SIGUSR2');
    client?.reset();
    const results = await level(measured, n);
    for (const f of probed) f.proc.kill('SIGUSR2');
    const base = results.get(sg)!;
    for (const f of measured) {
      const r = results.get(f)!;
      console.log(
        `${String(n).padStart(3)} sessions  ${f.label.padEnd(26)} ${r.rate.toFixed(0).padStart(5)} calls/s (${(r.rate / base.rate).toFixed(2)}× supergateway)  median ${fmtMs(r.s.median).padStart(7)} ms  p99 ${fmtMs(r.s.p99).padStart(7)} ms (${(r.s.p99 / r.s.median).toFixed(1)}× median)  RSS ${r.rss[0].toFixed(0)} → ${r.rss[1].toFixed(0)} MiB`,
      );
    }
    if (against) console.log(`    this checkout's policy proxy against ${AGAINST}'s: ${(results.get(guarded)!.rate / results.get(against)!.rate).toFixed(3)}× the calls/s, median ${fmtMs(results.get(against)!.s.median)} → ${fmtMs(results.get(guarded)!.s.median)} ms`);
    if (probed.length > 0) await new Promise((done) => setTimeout(done, 300));
    for (const f of probed) console.log(`    ${f.label.padEnd(26)} ${probeLine(lastProbe(f.label), results.get(f)!.calls)}`);
    if (client) console.log(`    ${'the client (this process)'.padEnd(26)} ${probeLine(client.read(), [...results.values()].reduce((a, r) => a + r.calls, 0))}`);
  }
} finally {
  for (const f of fronts) f.proc.kill('SIGTERM');
  await new Promise((done) => setTimeout(done, 500));
  for (const f of fronts) if (f.proc.exitCode === null && f.proc.signalCode === null) f.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
