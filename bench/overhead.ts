/**
 * Added latency of QuadGuard on a tools/call, allow path and deny path, over stdio and Streamable HTTP, against a
 * direct call and against a plain forwarding proxy, all measured in the same run (ratios are the robust figure).
 *
 *   npm run build && npx tsx bench/overhead.ts [budgetMsPerPath=3000]
 *
 * Downstream: the project's workspace server (servers/workspace.ts), `read_file notes.txt` (allow; and, as "allow,
 * varied", a different one of 6,000 files on every call) and
 * `delete_file /etc/passwd` (deny under policies/default: no-delete-outside-sandbox; the server itself refuses it
 * too, so the direct path is a real round trip with an error result). Paths:
 *   stdio  direct                    client → workspace
 *   stdio  quadguard, no policy      client → quadguard serve → workspace   (plain-forwarding baseline: supergateway
 *                                    cannot do stdio→stdio, so QuadGuard with no policy stands in for it)
 *   stdio  quadguard, default        … with policies/default (pipeline + audit into a SQLite file)
 *   http   supergateway              client → supergateway --stateful (Streamable HTTP) → workspace
 *   http   quadguard, no policy      client → quadguard serve --http → workspace
 *   http   quadguard, default        … with policies/default
 * The guard's burst analysis and quarantine are switched off in the policy config (thousands of calls per second
 * from one agent would otherwise quarantine it, and every later call would take the quarantine short cut).
 * QuadGuard runs as users run it, the built bundle (package.json `bin`); the workspace server runs from its source
 * under tsx on every path alike. Loopback only; every child is stopped at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import YAML from 'yaml';
import { builtCli, fmtMs, freePort, httpClient, line, ROOT, summarize, timed, tsNode, waitForHttp, type Summary } from './common.js';

const BUDGET = Number(process.argv[2] ?? 3000);
const LOOP = { warmup: 100, min: 200, max: 20_000, budgetMs: BUDGET };
/** Time spent calling every path of a connection before any is measured. */
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

function config(name: string, policy: boolean): string {
  const file = join(dir, `${name}.yaml`);
  const cfg = {
    servers: { ws: { ...server } },
    store: join(dir, `${name}.db`),
    ...(policy ? { policy: join(ROOT, 'policies', 'default'), guard: { watcher: { burst_threshold: 1_000_000_000, quarantine: false } } } : {}),
  };
  writeFileSync(file, YAML.stringify(cfg));
  return file;
}
const plain = config('plain', false);
const guarded = config('guarded', true);

interface PathResult { allow: Summary; deny: Summary; varied: Summary }

async function measure(label: string, transport: Transport, prefix: string, expectDenied: boolean): Promise<PathResult> {
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
  // Warm up on all three paths first: a proxy's hot code is optimised only after thousands of calls (the median of
  // each 500-call window falls for the first ~5,000), so a short warm-up made whichever path ran first look slower.
  for (const until = performance.now() + WARMUP_MS; performance.now() < until; ) {
    await read('notes.txt');
    await deny();
    await read(`notes-${next++ % VARIED}.txt`);
  }
  const a = summarize(await timed(() => read('notes.txt'), LOOP));
  const d = summarize(await timed(deny, LOOP));
  const v = summarize(await timed(() => read(`notes-${next++ % VARIED}.txt`), LOOP));
  await client.close();
  console.log(line(`${label} allow`, a, 36));
  console.log(line(`${label} deny`, d, 36));
  console.log(line(`${label} allow, varied`, v, 36));
  return { allow: a, deny: d, varied: v };
}

const children: ChildProcess[] = [];
async function httpServer(command: string, args: string[], port: number): Promise<URL> {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, QUADGUARD_LOG_LEVEL: 'warn' } });
  children.push(child);
  await waitForHttp(`http://127.0.0.1:${port}/mcp`);
  return new URL(`http://127.0.0.1:${port}/mcp`);
}
const stdio = (c: { command: string; args: string[] }) =>
  new StdioClientTransport({ command: c.command, args: c.args, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', QUADGUARD_LOG_LEVEL: 'warn' }, stderr: 'inherit' });

try {
  console.log(`node ${process.version}, ${process.platform}/${process.arch}; each connection warmed up on all its paths for ${WARMUP_MS} ms, then ~${BUDGET} ms per path; shared 2-core machine, figures are noisy: compare within the run`);
  const r: Record<string, PathResult> = {};
  r.direct = await measure('stdio direct', stdio(server), '', false);
  r.qgPlain = await measure('stdio quadguard, no policy', stdio(cli('serve', '--config', plain)), 'ws__', false);
  r.qgPolicy = await measure('stdio quadguard, default policy', stdio(cli('serve', '--config', guarded)), 'ws__', true);

  const p1 = await freePort();
  const sg = join(ROOT, 'node_modules', '.bin', 'supergateway');
  const sgCmd = `${server.command} ${server.args.map((a) => `'${a}'`).join(' ')}`;
  r.sg = await measure('http supergateway', httpClient(await httpServer(sg, ['--stdio', sgCmd, '--outputTransport', 'streamableHttp', '--stateful', '--port', String(p1), '--logLevel', 'none'], p1)), '', false);
  const p2 = await freePort();
  const c2 = cli('serve', '--config', plain, '--http', String(p2));
  r.httpPlain = await measure('http quadguard, no policy', httpClient(await httpServer(c2.command, c2.args, p2)), 'ws__', false);
  const p3 = await freePort();
  const c3 = cli('serve', '--config', guarded, '--http', String(p3));
  r.httpPolicy = await measure('http quadguard, default policy', httpClient(await httpServer(c3.command, c3.args, p3)), 'ws__', true);

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
  console.log('-- deny path (QuadGuard answers without forwarding; direct/supergateway get the server\'s own refusal)');
  cmp('stdio quadguard+policy vs direct', r.qgPolicy!.deny, r.direct!.deny);
  cmp('stdio quadguard+policy vs quadguard without policy', r.qgPolicy!.deny, r.qgPlain!.deny);
  cmp('http quadguard+policy vs supergateway', r.httpPolicy!.deny, r.sg!.deny);
  cmp('http quadguard+policy vs quadguard without policy', r.httpPolicy!.deny, r.httpPlain!.deny);
} finally {
  for (const c of children) c.kill('SIGTERM');
  await new Promise((done) => setTimeout(done, 500));
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
