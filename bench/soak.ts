/**
 * Soak (issue #30 part 6): a mixed load over Streamable HTTP, 16 sessions in a closed loop — 80% small reads, 15%
 * reads of ~200 KB files, 5% calls the default policy denies (`delete_file /etc/passwd`) — through
 * three front ends in the same run, taking turns in one-second slices as bench/throughput.ts does:
 *   supergateway --stateful (the baseline),
 *   quadguard serve --http, default policy, on a fresh SQLite store,
 *   quadguard serve --http, default policy, on a store aged beforehand by `--age-calls` private reads through the
 *   whole guard with a clock moving one simulated second per 16 calls (as bench/store-growth.ts does).
 * Prints calls/s and the ratio to supergateway, median/p99, the share of calls refused, and the store bytes per call
 * of the fresh store (pages in use after a checkpoint, over the calls it answered).
 *
 *   npm run build && npx tsx bench/soak.ts [--seconds 180] [--sessions 16] [--age-calls 20000] [--min-chars 65536,…]
 *     [--against DIR] [--prof DIR]
 *
 * `--min-chars` adds, per value, one more front end on a fresh store whose worker pool takes interactions from that
 * many characters (`guard.pool.min_chars`; the default front ends use the default), taking turns with the others: the
 * pool's threshold compared on the same mix in one run. `--against DIR` adds one more front end on a fresh store: the
 * built CLI of another checkout (e.g. the code before a change), so before and after take turns in one run.
 * `--prof DIR`: every QuadGuard front end runs under `node --cpu-prof`, its profile written to DIR when it exits.
 *
 * Each QuadGuard line also gives the proxy's CPU per call (its user + system time over the run, worker threads
 * included, from /proc; the downstream server is a process of its own and not counted): on a loaded machine the
 * calls/s move with the load, the CPU a call costs much less.
 *
 * Burst analysis and quarantine are off (the load would quarantine its own agent). A full figure wants a quiet
 * machine and minutes per front end; bench/smoke.sh runs it for a few seconds only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { openDatabase } from '../src/store/sqlite.js';
import YAML from 'yaml';
import { InteractionSchema } from '../src/core/types.js';
import { buildGuard } from '../src/guard/build.js';
import { builtCli, fmtMs, freePort, httpClient, ROOT, summarize, takeTurns, tsNode, waitForHttp } from './common.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '180' },
    sessions: { type: 'string', default: '16' },
    'age-calls': { type: 'string', default: '20000' },
    'min-chars': { type: 'string', default: '' },
    against: { type: 'string' },
    prof: { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const SESSIONS = Number(values.sessions);
const AGE_CALLS = Number(values['age-calls']);
const MIN_CHARS = values['min-chars'].split(',').filter((x) => x.trim() !== '').map(Number);
if (MIN_CHARS.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--min-chars takes positive integers separated by commas, got ${values['min-chars']}`);
const SLICE_MS = 1000;
const PROF = values.prof !== undefined ? ['--cpu-prof', '--cpu-prof-dir', resolve(values.prof)] : [];
const AGAINST = values.against !== undefined ? resolve(values.against, 'dist', 'cli', 'quadguard.js') : undefined;
if (AGAINST !== undefined && !existsSync(AGAINST)) throw new Error(`--against ${values.against}: ${AGAINST} is missing (build that checkout first)`);

let seed = 11;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const WORDS = 'acquisition board budget cluster deadline engineer forecast harbour invoice journal kernel ledger margin network office payroll quarter revenue salary ticket upgrade vendor warehouse'.split(' ');
const text = (chars: number) => {
  let s = '';
  while (s.length < chars) s += `${WORDS[Math.floor(rand() * WORDS.length)]} ${Math.floor(rand() * 100000)} `;
  return s.slice(0, chars);
};

const dir = mkdtempSync(join(tmpdir(), 'qg-soak-'));
const ws = join(dir, 'ws');
mkdirSync(ws);
const SMALL = 20;
const LARGE = 6;
for (let i = 0; i < SMALL; i++) writeFileSync(join(ws, `note-${i}.txt`), text(1_000));
for (let i = 0; i < LARGE; i++) writeFileSync(join(ws, `report-${i}.txt`), text(200_000));
/**
 * The next call of the mix. The denied one is `delete_file /etc/passwd` (policies/default: no-delete-outside-sandbox;
 * the workspace server refuses it as well, so every front end answers it with an error, as bench/overhead.ts does).
 */
const pick = (): { name: string; arguments: Record<string, string> } => {
  const r = rand();
  if (r < 0.8) return { name: 'read_file', arguments: { path: `note-${Math.floor(rand() * SMALL)}.txt` } };
  if (r < 0.95) return { name: 'read_file', arguments: { path: `report-${Math.floor(rand() * LARGE)}.txt` } };
  return { name: 'delete_file', arguments: { path: '/etc/passwd' } };
};

const server = tsNode('servers/workspace.ts', '--root', ws);
const config = (store: string, minChars?: number) => {
  const file = join(dir, `${store}.yaml`);
  writeFileSync(file, YAML.stringify({
    servers: { ws: { ...server } },
    store: join(dir, `${store}.db`),
    policy: join(ROOT, 'policies', 'default'),
    guard: { watcher: { burst_threshold: 1_000_000_000, quarantine: false }, ...(minChars !== undefined ? { pool: { min_chars: minChars } } : {}) },
  }));
  return file;
};

/** Ages `store` through the whole guard in this process: private reads of the mix's texts, one simulated second per SESSIONS calls. */
async function age(store: string): Promise<void> {
  let clock = Date.now() - (AGE_CALLS / SESSIONS) * 1000;
  const guard = await buildGuard({ policy: join(ROOT, 'policies', 'default'), store: join(dir, `${store}.db`), now: () => clock, settings: { watcher: { quarantine: false, burst_threshold: 1_000_000_000 } } });
  const texts = [...Array.from({ length: SMALL }, () => text(1_000)), ...Array.from({ length: LARGE }, () => text(200_000))];
  for (let c = 0; c < AGE_CALLS; c++) {
    clock += 1000 / SESSIONS;
    const t = rand() < 0.85 ? texts[Math.floor(rand() * SMALL)]! : texts[SMALL + Math.floor(rand() * LARGE)]!;
    await guard.pipeline.check(InteractionSchema.parse({ agent: 'soak', session: `s${c % SESSIONS}`, profile: {}, kind: 'tool_result', server: 'ws', tool: 'read_file', content: [{ type: 'text', text: t }] }));
  }
  await guard.close();
}

/** Pages in use after a checkpoint from a second connection. */
function storeBytes(file: string): number {
  const db = openDatabase(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    return ((db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number)) * (db.pragma('page_size', { simple: true }) as number);
  } finally {
    db.close();
  }
}

/** User + system CPU of process `pid` so far (ms; every thread of it), or undefined where /proc is not there. */
function cpuMs(pid: number | undefined): number | undefined {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

interface Front {
  label: string;
  url: URL;
  prefix: string;
  proc: ChildProcess;
  store?: string;
}
const fronts: Front[] = [];
async function start(f: Omit<Front, 'proc' | 'url'>, command: string, args: string[], port: number): Promise<Front> {
  const proc = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, QUADGUARD_LOG_LEVEL: 'error' } });
  const front = { ...f, url: new URL(`http://127.0.0.1:${port}/mcp`), proc };
  fronts.push(front);
  // A loaded machine can take longer than the default 20 s to start a proxy and its server.
  await waitForHttp(front.url.href, 90_000);
  return front;
}

/** One call of the mix; true when the front end refused it. */
async function call(f: Front, c: Client): Promise<boolean> {
  const p = pick();
  const r = await c.callTool({ name: `${f.prefix}${p.name}`, arguments: p.arguments }, undefined, { timeout: 60_000 });
  return r.isError === true;
}

try {
  const started = Date.now();
  await age('aged');
  const agedBytes = storeBytes(join(dir, 'aged.db'));
  console.log(`aged store: ${AGE_CALLS} private reads through the guard, ${(agedBytes / 1024 / 1024).toFixed(1)} MiB, in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const sgPort = await freePort();
  const sgCmd = `${server.command} ${server.args.map((a) => `'${a}'`).join(' ')}`;
  await start({ label: 'supergateway', prefix: '' }, join(ROOT, 'node_modules', '.bin', 'supergateway'), ['--stdio', sgCmd, '--outputTransport', 'streamableHttp', '--stateful', '--port', String(sgPort), '--logLevel', 'none'], sgPort);
  for (const store of ['fresh', 'aged']) {
    const port = await freePort();
    const cmd = builtCli('serve', '--config', config(store), '--http', String(port));
    await start({ label: `quadguard, ${store} store`, prefix: 'ws__', store: join(dir, `${store}.db`) }, cmd.command, [...PROF, ...cmd.args], port);
  }
  for (const n of MIN_CHARS) {
    const port = await freePort();
    const store = `fresh-min-${n}`;
    const cmd = builtCli('serve', '--config', config(store, n), '--http', String(port));
    await start({ label: `quadguard, pool from ${n >= 1024 ? `${n / 1024} KiB` : n}`, prefix: 'ws__', store: join(dir, `${store}.db`) }, cmd.command, [...PROF, ...cmd.args], port);
  }
  if (AGAINST !== undefined) {
    const port = await freePort();
    await start({ label: 'quadguard --against, fresh', prefix: 'ws__', store: join(dir, 'against.db') }, process.execPath, [...PROF, AGAINST, 'serve', '--config', config('against'), '--http', String(port)], port);
  }
  const before = new Map(fronts.filter((f) => f.store).map((f) => [f, storeBytes(f.store!)]));
  // Sessions are opened one at a time: 16 × 5 at once (supergateway starts a server per session) made supergateway
  // drop connections at load 15.
  const runs = [];
  for (const f of fronts) {
    const clients: Client[] = [];
    for (let n = 0; n < SESSIONS; n++) {
      const c = new Client({ name: 'soak', version: '0' });
      await c.connect(httpClient(f.url));
      clients.push(c);
    }
    runs.push({ f, clients, ms: [] as number[], denied: 0, elapsed: 0, cpu: 0 });
  }
  const cpuBefore = new Map(runs.map((r) => [r, cpuMs(r.f.proc.pid)]));
  await takeTurns(runs, SECONDS, SLICE_MS, async (r, c) => {
    if (await call(r.f, c)) r.denied++;
  });
  for (const r of runs) {
    const [a, b] = [cpuBefore.get(r), cpuMs(r.f.proc.pid)];
    r.cpu = a !== undefined && b !== undefined ? b - a : NaN;
  }
  for (const r of runs) await Promise.all(r.clients.map((c) => c.close()));
  console.log(`node ${process.version}; ${SESSIONS} sessions, ${SECONDS} s per front end in ${SLICE_MS} ms turns; mix 80% ~1 KB reads, 15% ~200 KB reads, 5% denied (delete_file /etc/passwd); shared machine: compare within the run`);
  const base = runs[0]!.ms.length / (runs[0]!.elapsed / 1000);
  for (const r of runs) {
    const rate = r.ms.length / (r.elapsed / 1000);
    const s = summarize(r.ms);
    const grown = r.f.store ? storeBytes(r.f.store) - before.get(r.f)! : undefined;
    console.log(
      `${r.f.label.padEnd(30)} ${rate.toFixed(0).padStart(5)} calls/s (${(rate / base).toFixed(2)}× supergateway)  median ${fmtMs(s.median).padStart(7)} ms  p99 ${fmtMs(s.p99).padStart(7)} ms  refused ${((100 * r.denied) / Math.max(1, r.ms.length)).toFixed(1)}%` +
        (r.f.store && Number.isFinite(r.cpu) ? `  CPU ${((1000 * r.cpu) / Math.max(1, r.ms.length)).toFixed(0)} µs/call` : '') +
        (grown === undefined ? '' : `  store +${(grown / 1024).toFixed(0)} KiB, ${(grown / Math.max(1, r.ms.length)).toFixed(0)} B/call`),
    );
  }
  const [, fresh, aged] = runs.map((r) => r.ms.length / (r.elapsed / 1000));
  console.log(`aged store vs fresh: ${(aged! / fresh!).toFixed(2)}×`);
} finally {
  for (const f of fronts) f.proc.kill('SIGTERM');
  // A profile is written as the proxy exits: give it time to.
  const exited = (f: Front) => f.proc.exitCode !== null || f.proc.signalCode !== null;
  for (let waited = 0; waited < (PROF.length > 0 ? 20_000 : 500) && !fronts.every(exited); waited += 100) await new Promise((done) => setTimeout(done, 100));
  for (const f of fronts) if (!exited(f)) f.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
