/**
 * Closed-loop `read_file` calls through the built `quadguard serve --http` from N concurrent Streamable HTTP
 * sessions, for profiling the HTTP front end and for CPU per call: prints calls/s, median and p99, and the proxy's
 * own CPU time per call (user + system, /proc/<pid>/stat, Linux), which a loaded machine moves far less than wall
 * time. Build first (`npm run build`): the proxy runs from `dist/`, as users run it.
 *
 *   npx tsx bench/http-drive.ts [seconds=10] [policy|plain] [--sessions 8] [--warm SECONDS] [--mix] [--prof DIR] [--legs] [--windows N]
 *
 * `policy` (default): policies/default, burst analysis and quarantine off. `plain`: no policy. `--mix`: the soak's
 * mix (80% small reads of 20 files, 15% reads of ~200 KB files, 5% `delete_file /etc/passwd`, which the default
 * policy denies) instead of one small file. `--prof DIR`: the proxy runs under `node --cpu-prof`, its profile written
 * to DIR when it exits (keep profiles out of the repository). A warm-up (`--warm`, default a quarter of the time, at
 * least 1 s) comes first and is not counted: a proxy's code is optimised only after thousands of calls. `--legs` (one
 * session): the proxy runs with bench/call-legs.mjs loaded, and the time of a call in it is split into its legs
 * (request → the server's stdin, the server's round trip, → the answer's end, → the next request), wall and CPU.
 * `--windows N`: also the proxy's CPU per call and the median of every N calls of the measured run, to watch the
 * warm-up (the CPU per call of the policy path keeps falling for thousands of calls).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import YAML from 'yaml';
import { builtCli, fmtMs, freePort, httpClient, ROOT, summarize, tsNode, waitForHttp } from './common.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { sessions: { type: 'string', default: '8' }, warm: { type: 'string' }, mix: { type: 'boolean', default: false }, prof: { type: 'string' }, legs: { type: 'boolean', default: false }, windows: { type: 'string' } } });
const SECONDS = Number(positionals[0] ?? 10);
const MODE = positionals[1] ?? 'policy';
const SESSIONS = Number(values.sessions);
const WARM = values.warm === undefined ? Math.max(1, SECONDS / 4) : Number(values.warm);
if (!['policy', 'plain'].includes(MODE)) throw new Error(`mode must be policy or plain, not ${MODE}`);
if (!(SECONDS > 0)) throw new Error(`seconds must be a positive number, not ${positionals[0]}`);
if (!(WARM >= 0)) throw new Error(`--warm must be a number of seconds, not ${values.warm}`);
if (!Number.isSafeInteger(SESSIONS) || SESSIONS < 1) throw new Error(`--sessions must be a positive integer, not ${values.sessions}`);
const WINDOW = values.windows === undefined ? 0 : Number(values.windows);
if (values.windows !== undefined && (!Number.isSafeInteger(WINDOW) || WINDOW < 1)) throw new Error(`--windows must be a positive integer, not ${values.windows}`);
// The probe reads one call in flight at a time.
if (values.legs && SESSIONS !== 1) throw new Error('--legs reads one call at a time: give --sessions 1');

let seed = 11;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const WORDS = 'acquisition board budget cluster deadline engineer forecast harbour invoice journal kernel ledger margin network office payroll quarter revenue salary ticket upgrade vendor warehouse'.split(' ');
const text = (chars: number) => {
  const parts: string[] = [];
  for (let n = 0; n < chars; ) {
    const w = `${WORDS[Math.floor(rand() * WORDS.length)]} ${Math.floor(rand() * 100000)} `;
    parts.push(w);
    n += w.length;
  }
  return parts.join('').slice(0, chars);
};

const dir = mkdtempSync(join(tmpdir(), 'qg-http-drive-'));
const ws = join(dir, 'ws');
mkdirSync(ws);
writeFileSync(join(ws, 'notes.txt'), 'benchmark file: meeting notes, nothing secret\n');
if (values.mix) {
  for (let i = 0; i < 20; i++) writeFileSync(join(ws, `note-${i}.txt`), text(1_000));
  for (let i = 0; i < 6; i++) writeFileSync(join(ws, `report-${i}.txt`), text(200_000));
}
const next = (): { name: string; arguments: Record<string, string> } => {
  if (!values.mix) return { name: 'ws__read_file', arguments: { path: 'notes.txt' } };
  const r = rand();
  if (r < 0.8) return { name: 'ws__read_file', arguments: { path: `note-${Math.floor(rand() * 20)}.txt` } };
  if (r < 0.95) return { name: 'ws__read_file', arguments: { path: `report-${Math.floor(rand() * 6)}.txt` } };
  return { name: 'ws__delete_file', arguments: { path: '/etc/passwd' } };
};

const config = join(dir, 'quadguard.yaml');
writeFileSync(
  config,
  YAML.stringify({
    // Generous start-up bounds: on a loaded machine the server (under tsx) takes longer than the defaults to start.
    servers: { ws: { ...tsNode('servers/workspace.ts', '--root', ws), connect_timeout_ms: 120_000 } },
    discovery_timeout_ms: 120_000,
    store: join(dir, 'state.db'),
    ...(MODE === 'policy' ? { policy: join(ROOT, 'policies', 'default'), guard: { watcher: { burst_threshold: 1e9, quarantine: false } } } : {}),
  }),
);

/** User + system CPU seconds of a process so far (Linux /proc; NaN elsewhere). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100 on Linux)
  } catch {
    return Number.NaN;
  }
}

/** The probe's figures (bench/call-legs.mjs) since its last signal: its `n`th line, written when it is signalled. */
async function probeLine(n: number): Promise<Legs> {
  proc.kill('SIGUSR2');
  for (const until = performance.now() + 10_000; performance.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    const lines = existsSync(legsFile) ? readFileSync(legsFile, 'utf8').trim().split('\n') : [];
    if (lines.length >= n) return JSON.parse(lines[n - 1]!) as Legs;
  }
  throw new Error('the proxy did not answer SIGUSR2 with its call legs');
}

interface Legs {
  calls: number;
  overlapped: number;
  wallUs: Record<string, number | null>;
  meanWallUs: Record<string, number | null>;
  cpuUs: Record<string, number | null>;
  commits: Record<string, { n: number; meanUs: number | null }>;
}

function printLegs(l: Legs): void {
  const names: Array<[string, string]> = [
    ['toServer', 'request → the call on the server\'s stdin'],
    ['server', 'the server\'s round trip (to its answer\'s first bytes)'],
    ['toAnswer', 'its answer → the response ended'],
    ['afterAnswer', 'the response ended → the next request'],
  ];
  console.log(`  the proxy's legs of ${l.calls} calls (${l.overlapped} overlapped, not read): median and mean wall, mean CPU (every thread)`);
  for (const [key, label] of names) {
    const c = l.commits[key]!;
    console.log(`    ${label.padEnd(56)} ${String(l.wallUs[key]).padStart(7)} µs wall (mean ${String(l.meanWallUs[key]).padStart(6)}) ${String(l.cpuUs[key]).padStart(7)} µs CPU; ${String(c.n).padStart(5)} audit commits began in it${c.n > 0 ? ` (${c.meanUs} µs each)` : ''}`);
  }
}

const port = await freePort();
const prof = values.prof ? ['--cpu-prof', '--cpu-prof-dir', values.prof] : [];
const cli = builtCli('serve', '--config', config, '--http', String(port), '--no-ui');
const legsFile = join(dir, 'legs.jsonl');
const probed = values.legs ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${join(ROOT, 'bench', 'call-legs.mjs')}`, QG_CALL_LEGS: legsFile } : {};
const proc = spawn(process.execPath, [...prof, ...cli.args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, QUADGUARD_LOG_LEVEL: 'warn', QUADGUARD_HOME: dir, ...probed } });
const url = new URL(`http://127.0.0.1:${port}/mcp`);
try {
  await waitForHttp(url.href, 120_000); // start-up on a loaded machine can take a minute
  const clients = await Promise.all(
    Array.from({ length: SESSIONS }, async () => {
      const c = new Client({ name: 'bench-http-drive', version: '0' });
      await c.connect(httpClient(url));
      return c;
    }),
  );
  let refused = 0;
  /** The proxy's CPU seconds at the start of the measured run and at the end of each window of it. */
  const windowCpu: number[] = [];
  /** Calls made so far, warm-up included (to divide a `--prof` profile, which covers the proxy's whole life). */
  let made = 0;
  const run = async (until: number, ms: number[] | undefined) => {
    await Promise.all(
      clients.map(async (c) => {
        while (performance.now() < until) {
          const t0 = performance.now();
          const call = next();
          const r = await c.callTool(call);
          made++;
          if (r.isError) {
            if (call.name !== 'ws__delete_file') throw new Error(`call failed: ${JSON.stringify(r.content).slice(0, 200)}`);
            refused++;
          }
          ms?.push(performance.now() - t0);
          if (ms && WINDOW > 0 && ms.length % WINDOW === 0) windowCpu.push(cpuSeconds(proc.pid!));
        }
      }),
    );
  };
  await run(performance.now() + WARM * 1000, undefined);
  const warmCalls = made;
  // The probe starts again from here: the warm-up's calls are its first line, not read.
  if (values.legs) await probeLine(1);
  const ms: number[] = [];
  const cpu0 = cpuSeconds(proc.pid!);
  windowCpu.push(cpu0);
  const t0 = performance.now();
  await run(t0 + SECONDS * 1000, ms);
  const wall = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(proc.pid!) - cpu0;
  const s = summarize(ms);
  console.log(
    `${MODE}${values.mix ? ', soak mix' : ''}, ${SESSIONS} sessions: ${ms.length} calls in ${wall.toFixed(1)} s, ${(ms.length / wall).toFixed(0)} calls/s, median ${fmtMs(s.median)} ms, p99 ${fmtMs(s.p99)} ms; proxy CPU ${((cpu / ms.length) * 1e6).toFixed(0)} µs/call (${((100 * cpu) / wall).toFixed(0)}% of a core)${values.mix ? `; ${refused} refused` : ''}; ${warmCalls} warm-up calls before`,
  );
  if (WINDOW > 0) {
    const rows: string[] = [];
    for (let w = 1; w < windowCpu.length; w++) {
      rows.push(`${((windowCpu[w]! - windowCpu[w - 1]!) / WINDOW * 1e6).toFixed(0)} µs / ${fmtMs(summarize(ms.slice((w - 1) * WINDOW, w * WINDOW)).median)} ms`);
    }
    console.log(`  each ${WINDOW}-call window, the proxy's CPU per call / the median: ${rows.join(', ') || '(fewer calls than a window)'}`);
  }
  if (values.legs) printLegs(await probeLine(2));
  await Promise.all(clients.map((c) => c.close()));
} finally {
  // SIGTERM drains and exits normally, so `--cpu-prof` writes its profile.
  proc.kill('SIGTERM');
  await new Promise<void>((done) => {
    const t = setTimeout(() => (proc.kill('SIGKILL'), done()), 20_000);
    proc.once('exit', () => (clearTimeout(t), done()));
  });
  rmSync(dir, { recursive: true, force: true });
}
