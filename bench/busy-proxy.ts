/**
 * Another session while a large result goes through a real proxy (issue #30 part 4), over Streamable HTTP: session A
 * reads an `--mb` MB text file (prose, code and tables, as bench/large-result.ts), session B makes small reads paced
 * 5 ms apart while A's read is in flight. Three front ends take turns round by round, each starting the same
 * workspace server (servers/workspace.ts) as its downstream:
 *   supergateway --stateful (the baseline: it too reads, parses and writes the large line),
 *   quadguard serve --http without a policy (the proxy alone),
 *   quadguard serve --http, default policy, SQLite store (the proxy and the guard);
 * and `--against DIR` adds the built CLI of another checkout, without and with the policy (before and after in one run).
 * `--pool JSON` (repeatable) adds a front end of this build with the default policy and those `guard.pool` settings,
 * e.g. `--pool '{"read_ahead":true,"nice":0}'`; `--against-pool JSON` the same for the other checkout's CLI.
 *
 * For B it prints, per front end, the median during A's reads against two idle medians measured in the same round:
 * B's calls one right after another, and B's calls paced as during A's reads (a 5 ms timer after each answer, so the
 * process has gone to sleep: what back-to-back calls do not pay). In-process, bench/large-result.ts prints the same
 * ratios for the guard alone; here the proxy's own single turns (the downstream line's parse, the answer's
 * serialisation) are in too, and supergateway shows what any proxy pays for them on this machine.
 *
 *   npm run build && npx tsx bench/busy-proxy.ts [--mb 8] [--rounds 4] [--calls 40] [--against DIR] [--pool JSON]... [--against-pool JSON]...
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import YAML from 'yaml';
import { builtCli, fmtMs, freePort, httpClient, mixedText, ROOT, tsNode, waitForHttp } from './common.js';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '4' },
    calls: { type: 'string', default: '40' },
    against: { type: 'string' },
    pool: { type: 'string', multiple: true, default: [] },
    'against-pool': { type: 'string', multiple: true, default: [] },
  },
});
const MB = Number(values.mb);
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);
if (!(MB > 0 && MB <= 9)) throw new Error(`--mb takes a size above 0 and at most 9 (a downstream line is at most 10 MiB), got ${values.mb}`);
if (!(Number.isInteger(ROUNDS) && ROUNDS > 0 && Number.isInteger(CALLS) && CALLS > 0)) throw new Error('--rounds and --calls take positive integers');
const AGAINST = values.against !== undefined ? resolve(values.against, 'dist', 'cli', 'quadguard.js') : undefined;
if (AGAINST !== undefined && !existsSync(AGAINST)) throw new Error(`--against ${values.against}: ${AGAINST} is missing (build that checkout first)`);
const PACE_MS = 5;

const dir = mkdtempSync(join(tmpdir(), 'qg-busy-proxy-'));
const ws = join(dir, 'ws');
mkdirSync(ws);
const bigText = mixedText()(Math.floor(MB * 1024 * 1024) - 256);
writeFileSync(join(ws, 'big.txt'), bigText);
for (let i = 0; i < 20; i++) writeFileSync(join(ws, `note-${i}.txt`), `minutes of week ${i}: action items for the ${i}th review\n`);
const server = tsNode('servers/workspace.ts', '--root', ws);

function config(name: string, policy: boolean, pool?: Record<string, unknown>): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, YAML.stringify({
    servers: { ws: { ...server } },
    store: join(dir, `${name}.db`),
    ...(policy ? { policy: join(ROOT, 'policies', 'default'), guard: { watcher: { burst_threshold: 1_000_000_000, quarantine: false }, ...(pool ? { pool } : {}) } } : {}),
  }));
  return file;
}
const poolSettings = (json: string): Record<string, unknown> => JSON.parse(json) as Record<string, unknown>;

interface Front {
  label: string;
  prefix: string;
  proc: ChildProcess;
  a: Client;
  b: Client;
  busy: number[];
  backToBack: number[];
  paced: number[];
  bigRead: number[];
  ratios: { backToBack: number; paced: number }[];
}
const procs: ChildProcess[] = [];

async function start(label: string, prefix: string, command: string, args: (port: number) => string[]): Promise<Front> {
  const port = await freePort();
  const proc = spawn(command, args(port), { cwd: ROOT, stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, QUADGUARD_LOG_LEVEL: 'error' } });
  procs.push(proc);
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  await waitForHttp(url.href, 90_000);
  const connect = async (): Promise<Client> => {
    const c = new Client({ name: 'busy-proxy', version: '0' });
    await c.connect(httpClient(url));
    return c;
  };
  return { label, prefix, proc, a: await connect(), b: await connect(), busy: [], backToBack: [], paced: [], bigRead: [], ratios: [] };
}

let note = 0;
async function small(f: Front): Promise<number> {
  const t = performance.now();
  const r = await f.b.callTool({ name: `${f.prefix}read_file`, arguments: { path: `note-${note++ % 20}.txt` } }, undefined, { timeout: 120_000 });
  if (r.isError === true) throw new Error(`${f.label}: the small read was refused: ${JSON.stringify(r.content).slice(0, 300)}`);
  return performance.now() - t;
}

async function big(f: Front): Promise<number> {
  const t = performance.now();
  const r = await f.a.callTool({ name: `${f.prefix}read_file`, arguments: { path: 'big.txt' } }, undefined, { timeout: 300_000 });
  const content = r.content as { type: string; text?: string }[];
  if (r.isError === true || content[0]?.text?.length !== bigText.length) throw new Error(`${f.label}: the large read did not come back whole: ${JSON.stringify(r.content).slice(0, 300)}`);
  return performance.now() - t;
}

const median = (xs: readonly number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

/** One round of a front end: idle back to back, idle paced, then paced during A's large reads (until CALLS of them). */
async function round(f: Front): Promise<void> {
  const backToBack: number[] = [];
  for (let i = 0; i < CALLS; i++) backToBack.push(await small(f));
  const paced: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    await sleep(PACE_MS);
    paced.push(await small(f));
  }
  const busy: number[] = [];
  while (busy.length < CALLS) {
    let done = false;
    const reading = big(f).then((ms) => {
      done = true;
      f.bigRead.push(ms);
    });
    while (!done) {
      await sleep(PACE_MS);
      if (done) break;
      const ms = await small(f);
      // A call answered after the large read ended overlapped it only in part: still counted (it waited behind it).
      busy.push(ms);
    }
    await reading;
  }
  f.backToBack.push(...backToBack);
  f.paced.push(...paced);
  f.busy.push(...busy);
  f.ratios.push({ backToBack: median(busy) / median(backToBack), paced: median(busy) / median(paced) });
}

try {
  const fronts: Front[] = [];
  const sgCmd = `${server.command} ${server.args.map((a) => `'${a}'`).join(' ')}`;
  fronts.push(await start('supergateway', '', join(ROOT, 'node_modules', '.bin', 'supergateway'), (port) => ['--stdio', sgCmd, '--outputTransport', 'streamableHttp', '--stateful', '--logLevel', 'none', '--port', String(port)]));
  const quadguard = async (label: string, cli: { command: string; args: string[] }, cfg: string): Promise<Front> => start(label, 'ws__', cli.command, (port) => [...cli.args, 'serve', '--config', cfg, '--http', String(port)]);
  fronts.push(await quadguard('quadguard, no policy', builtCli(), config('plain', false)));
  fronts.push(await quadguard('quadguard, default policy', builtCli(), config('guarded', true)));
  if (AGAINST !== undefined) {
    fronts.push(await quadguard('quadguard --against, no policy', { command: process.execPath, args: [AGAINST] }, config('against-plain', false)));
    fronts.push(await quadguard('quadguard --against, default policy', { command: process.execPath, args: [AGAINST] }, config('against', true)));
    for (const [n, json] of values['against-pool'].entries()) {
      fronts.push(await quadguard(`quadguard --against, default policy, pool ${json}`, { command: process.execPath, args: [AGAINST] }, config(`against-pool-${n}`, true, poolSettings(json))));
    }
  }
  for (const [n, json] of values.pool.entries()) fronts.push(await quadguard(`quadguard, default policy, pool ${json}`, builtCli(), config(`pool-${n}`, true, poolSettings(json))));
  // Warm-up: each front end's first large read and a few small ones compile its paths.
  for (const f of fronts) {
    await big(f);
    for (let i = 0; i < 20; i++) await small(f);
    f.bigRead.length = 0;
  }
  console.log(`node ${process.version}; ${MB} MB text result, ${ROUNDS} rounds of ${CALLS}+ calls per front end, taking turns`);
  for (let r = 0; r < ROUNDS; r++) {
    for (const f of fronts) await round(f);
    console.error(`round ${r + 1} of ${ROUNDS} done`);
  }
  const fmtRatio = (xs: number[]): string => xs.map((x) => `${x.toFixed(1)}×`).join(' ');
  for (const f of fronts) {
    const busy = median(f.busy);
    console.log(`${f.label}:`);
    console.log(`  the large read ${fmtMs(median(f.bigRead))} ms (median of ${f.bigRead.length})`);
    console.log(`  B during it: median ${fmtMs(busy)} ms, max ${fmtMs(Math.max(...f.busy))} ms, ${f.busy.length} calls`);
    console.log(`  B idle back to back ${fmtMs(median(f.backToBack))} ms: during / idle ${(busy / median(f.backToBack)).toFixed(2)}× (rounds ${fmtRatio(f.ratios.map((x) => x.backToBack))})`);
    console.log(`  B idle paced ${fmtMs(median(f.paced))} ms: during / idle ${(busy / median(f.paced)).toFixed(2)}× (rounds ${fmtRatio(f.ratios.map((x) => x.paced))})`);
  }
  for (const f of fronts) {
    await f.a.close();
    await f.b.close();
  }
} finally {
  for (const p of procs) p.kill('SIGTERM');
  await Promise.all(procs.map((p) => (p.exitCode !== null || p.signalCode !== null ? undefined : new Promise((r) => p.once('exit', r)))));
  rmSync(dir, { recursive: true, force: true });
}
