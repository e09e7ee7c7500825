/**
 * Throughput of `quadguard serve --http` with policies/default: 1, 8 and 32 concurrent Streamable HTTP sessions,
 * each calling the workspace server's `read_file` (allow path: tool_call and tool_result both checked and
 * audited) in a closed loop for a fixed time. Prints calls/s, median/p99 latency, and the proxy's RSS
 * (/proc/<pid>/status VmRSS) before and after each level.
 *
 *   npx tsx bench/throughput.ts [secondsPerLevel=4]
 *
 * Burst analysis and quarantine are off in the config (otherwise the load itself quarantines the agent). One
 * agent (anonymous, loopback). The proxy and the downstream server run from the sources under tsx.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import YAML from 'yaml';
import { fmtMs, freePort, ROOT, rssMiB, summarize, tsNode, waitForHttp } from './common.js';

const SECONDS = Number(process.argv[2] ?? 4);
const LEVELS = [1, 8, 32];

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
const port = await freePort();
const cmd = tsNode('src/cli/index.ts', 'serve', '--config', cfg, '--http', String(port));
const proxy = spawn(cmd.command, cmd.args, { stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, QUADGUARD_LOG_LEVEL: 'error' } });
const url = new URL(`http://127.0.0.1:${port}/mcp`);

async function session(): Promise<Client> {
  const c = new Client({ name: 'bench', version: '0' });
  await c.connect(new StreamableHTTPClientTransport(url));
  return c;
}
const call = async (c: Client) => {
  const r = await c.callTool({ name: 'ws__read_file', arguments: { path: 'notes.txt' } });
  if (r.isError) throw new Error(`call failed: ${JSON.stringify(r.content).slice(0, 200)}`);
};

try {
  await waitForHttp(url.href);
  const warm = await session();
  for (let i = 0; i < 200; i++) await call(warm);
  await warm.close();
  console.log(`node ${process.version}, ${process.platform}/${process.arch}; ${SECONDS} s per level, closed loop; proxy pid ${proxy.pid}, RSS after start-up and 200 warm-up calls ${rssMiB(proxy.pid!).toFixed(1)} MiB; shared 2-core machine (client, proxy and server share it): noisy`);
  for (const n of LEVELS) {
    const clients = await Promise.all(Array.from({ length: n }, session));
    const before = rssMiB(proxy.pid!);
    const ms: number[] = [];
    const end = performance.now() + SECONDS * 1000;
    const t0 = performance.now();
    await Promise.all(clients.map(async (c) => {
      while (performance.now() < end) {
        const s = performance.now();
        await call(c);
        ms.push(performance.now() - s);
      }
    }));
    const elapsed = (performance.now() - t0) / 1000;
    const after = rssMiB(proxy.pid!);
    await Promise.all(clients.map((c) => c.close()));
    const s = summarize(ms);
    console.log(`${String(n).padStart(3)} sessions: ${(ms.length / elapsed).toFixed(0).padStart(5)} calls/s  median ${fmtMs(s.median).padStart(7)} ms  p99 ${fmtMs(s.p99).padStart(7)} ms  (${ms.length} calls)  RSS ${before.toFixed(1)} → ${after.toFixed(1)} MiB`);
  }
} finally {
  proxy.kill('SIGTERM');
  await new Promise((done) => setTimeout(done, 500));
  if (proxy.exitCode === null && proxy.signalCode === null) proxy.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
