/**
 * Sequential `read_file` calls through the built `quadguard serve` over stdio (or straight to the workspace server),
 * for profiling and for watching the warm-up: prints the median of every 500-call window, then the median and p90
 * of the whole run. Build first (`npm run build`): the proxy runs from `dist/`, as users run it.
 *
 *   npx tsx bench/stdio-drive.ts [calls=3000] [policy|plain|direct] [--vary N] [--prof DIR]
 *
 * `policy` (default): policies/default, burst analysis and quarantine off (thousands of calls a second from one
 * agent would quarantine it). `plain`: no policy. `direct`: no proxy. `--vary N`: read a different one of N files
 * on every call instead of re-reading one file (nothing keyed by the text is reused). `--prof DIR`: the proxy runs
 * under `node --cpu-prof`, its profile written to DIR when it exits (keep profiles out of the repository).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import YAML from 'yaml';
import { builtCli, fmtMs, ROOT, summarize } from './common.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { vary: { type: 'string', default: '0' }, prof: { type: 'string' } } });
const CALLS = Number(positionals[0] ?? 3000);
const MODE = positionals[1] ?? 'policy';
if (!['policy', 'plain', 'direct'].includes(MODE)) throw new Error(`mode must be policy, plain or direct, not ${MODE}`);
const VARY = Number(values.vary);
if (!Number.isSafeInteger(CALLS) || CALLS < 1) throw new Error(`calls must be a positive integer, not ${positionals[0]}`);
if (!Number.isSafeInteger(VARY) || VARY < 0) throw new Error(`--vary must be a whole number of files, not ${values.vary}`);
const WINDOW = 500;

const dir = mkdtempSync(join(tmpdir(), 'qg-drive-'));
const ws = join(dir, 'ws');
mkdirSync(ws);
writeFileSync(join(ws, 'notes.txt'), 'benchmark file: meeting notes, nothing secret\n');
for (let k = 0; k < VARY; k++) writeFileSync(join(ws, `notes-${k}.txt`), `benchmark file ${k}: minutes of week ${k % 52}, action item ${(k * 7919) % 10007}\n`);
const server = { command: process.execPath, args: ['--import', 'tsx', join(ROOT, 'servers', 'workspace.ts'), '--root', ws], cwd: ROOT };
const config = join(dir, 'quadguard.yaml');
writeFileSync(
  config,
  YAML.stringify({
    servers: { ws: server },
    store: join(dir, 'state.db'),
    ...(MODE === 'policy' ? { policy: join(ROOT, 'policies', 'default'), guard: { watcher: { burst_threshold: 1e9, quarantine: false } } } : {}),
  }),
);
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', QUADGUARD_LOG_LEVEL: 'warn', QUADGUARD_HOME: dir };
const prof = values.prof ? ['--cpu-prof', '--cpu-prof-dir', values.prof] : [];
const transport =
  MODE === 'direct'
    ? new StdioClientTransport({ ...server, env, stderr: 'inherit' })
    : new StdioClientTransport({ command: process.execPath, args: [...prof, ...builtCli('serve', '--config', config).args], env, stderr: 'inherit' });
const tool = MODE === 'direct' ? 'read_file' : 'ws__read_file';

const client = new Client({ name: 'bench-drive', version: '0' });
try {
  await client.connect(transport);
  // On a loaded machine the server's discovery can outlast the proxy's first answers: wait until its tool is listed.
  for (let n = 0; n < 600 && !(await client.listTools()).tools.some((t) => t.name === tool); n++) await new Promise((r) => setTimeout(r, 100));
  const ms: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    const r = await client.callTool({ name: tool, arguments: { path: VARY > 0 ? `notes-${i % VARY}.txt` : 'notes.txt' } });
    if (r.isError) throw new Error(`call ${i} failed: ${JSON.stringify(r.content).slice(0, 200)}`);
    ms.push(performance.now() - t0);
  }
  const windows: string[] = [];
  for (let w = 0; w + WINDOW <= ms.length; w += WINDOW) windows.push(fmtMs(summarize(ms.slice(w, w + WINDOW)).median));
  console.log(`${MODE}${VARY > 0 ? `, ${VARY} files` : ''}: median of each ${WINDOW}-call window (ms): ${windows.join(' ') || '(fewer calls than a window)'}`);
  const all = summarize(ms);
  console.log(`${MODE}: ${CALLS} calls, median ${fmtMs(all.median)} ms, p90 ${fmtMs(all.p90)} ms`);
} finally {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
}
