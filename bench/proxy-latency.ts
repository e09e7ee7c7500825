/**
 * Latency of a proxied tools/call vs a direct one to the same stdio server (the workspace server's read_file).
 *
 *   npm run build && npx tsx bench/proxy-latency.ts [calls=2000] [warmup=200]
 *
 * Both paths use the same SDK client; the proxy is the built CLI (`quadguard serve`, the bundle) with no policy, only
 * the tool filter, so this measures the proxy's own overhead: two extra JSON-RPC hops, namespacing, limits and the
 * guard seam. `bench/overhead.ts` measures the same path interleaved with the others, policy included.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import YAML from 'yaml';
import { builtCli, quantile, ROOT } from './common.js';

const CALLS = Number(process.argv[2] ?? 2000);
const WARMUP = Number(process.argv[3] ?? 200);

async function measure(label: string, args: string[], tool: string): Promise<{ p50: number; p90: number }> {
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, env: { QUADGUARD_LOG_LEVEL: 'warn' }, stderr: 'inherit' }));
  const call = () => client.callTool({ name: tool, arguments: { path: 'notes.txt' } });
  for (let i = 0; i < WARMUP; i++) await call();
  const ms: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = process.hrtime.bigint();
    const r = await call();
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.isError) throw new Error(`${label}: call failed`);
  }
  await client.close();
  ms.sort((a, b) => a - b);
  const out = { p50: quantile(ms, 0.5), p90: quantile(ms, 0.9) };
  console.log(`${label.padEnd(8)} median ${out.p50.toFixed(3)} ms   p90 ${out.p90.toFixed(3)} ms   (${CALLS} calls after ${WARMUP} warm-up)`);
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'qg-bench-'));
try {
  mkdirSync(join(dir, 'ws'));
  writeFileSync(join(dir, 'ws', 'notes.txt'), 'benchmark file\n');
  const serverArgs = [join(ROOT, 'dist', 'servers', 'workspace.js'), '--root', join(dir, 'ws')];
  const cfg = join(dir, 'quadguard.yaml');
  writeFileSync(cfg, YAML.stringify({ servers: { ws: { command: process.execPath, args: serverArgs } }, store: join(dir, 'state.db') }));
  const direct = await measure('direct', serverArgs, 'read_file');
  const proxied = await measure('proxied', builtCli('serve', '--config', cfg).args, 'ws__read_file');
  console.log(`ratio proxied/direct: median ${(proxied.p50 / direct.p50).toFixed(2)}x, p90 ${(proxied.p90 / direct.p90).toFixed(2)}x`);
  console.log(`added latency: median +${(proxied.p50 - direct.p50).toFixed(3)} ms, p90 +${(proxied.p90 - direct.p90).toFixed(3)} ms`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
