/**
 * Start-up: how long the built CLI (package.json's `bin`, the esbuild bundle) takes to print its version and to
 * check the default book, against a bare `node -e 0` (medians of several runs), and how soon `quadguard serve`
 * answers its first tools/list after its last downstream server is ready (four workspace servers, one of them started 1.5 s late; the time each server became
 * ready is read from the proxy's own `downstream ready` log lines).
 *
 *   npm run build && npx tsx bench/startup.ts [--runs 7]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import YAML from 'yaml';
import { builtCli, ROOT, tsNode } from './common.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const runs = Number(values.runs);
// What users run: package.json's `bin` (the esbuild bundle, dist/cli/quadguard.js).
const CLI = builtCli().args[0]!;

/** Wall time of one run of the built CLI (or bare node) with `args`, in ms; throws if it fails. */
function wall(args: string[]): number {
  const t0 = performance.now();
  const p = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, QUADGUARD_LOG_LEVEL: 'warn' } });
  const ms = performance.now() - t0;
  if (p.status !== 0) throw new Error(`${args.join(' ')} exited ${p.status}: ${p.stderr.toString().slice(0, 300)}`);
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), 'qg-bench-start-'));
try {
  console.log(`node ${process.version}; median of ${runs} runs each, the three commands taking turns (so load hits them alike)`);
  const commands = {
    bare: ['-e', '0'],
    version: [CLI, '--version'],
    check: [CLI, 'policy', 'check', join(ROOT, 'policies', 'default')],
  };
  const times: Record<keyof typeof commands, number[]> = { bare: [], version: [], check: [] };
  for (let r = 0; r < runs; r++) for (const k of Object.keys(commands) as Array<keyof typeof commands>) times[k].push(wall(commands[k]));
  const bare = median(times.bare);
  const row = (label: string, ms: number) => `${label.padEnd(32)}${ms.toFixed(0).padStart(5)} ms  (+${(ms - bare).toFixed(0)} ms over bare node, ${(ms / bare).toFixed(2)}×)`;
  console.log(`${'node -e 0'.padEnd(32)}${bare.toFixed(0).padStart(5)} ms`);
  console.log(row('quadguard --version', median(times.version)));
  console.log(row('quadguard policy check default', median(times.check)));

  const ws = join(dir, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'a.txt'), 'a\n');
  const server = tsNode('servers/workspace.ts', '--root', ws);
  const late = { command: 'sh', args: ['-c', `sleep 1.5; exec ${server.command} ${server.args.map((a) => `'${a}'`).join(' ')}`], cwd: ROOT };
  const afterReady: number[] = [];
  for (let r = 0; r < Math.max(3, Math.floor(runs / 2)); r++) {
    const cfg = join(dir, `serve-${r}.yaml`);
    writeFileSync(cfg, YAML.stringify({ servers: { a: server, b: server, c: server, slow: late }, store: join(dir, `s${r}.db`), policy: join(ROOT, 'policies', 'default') }));
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--config', cfg], env: { ...process.env, QUADGUARD_LOG_LEVEL: 'info' } as Record<string, string>, stderr: 'pipe' });
    const ready: number[] = [];
    let buf = '';
    transport.stderr?.on('data', (b: Buffer) => {
      buf += b.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const lineText = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          const o = JSON.parse(lineText) as { msg?: string; time?: number };
          if (o.msg === 'downstream ready' && typeof o.time === 'number') ready.push(o.time);
        } catch {
          // not a log line
        }
      }
    });
    const client = new Client({ name: 'bench', version: '0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    const answered = Date.now();
    await client.close();
    if (ready.length !== 4 || tools.length === 0) throw new Error(`expected 4 servers ready and tools, got ${ready.length} and ${tools.length}`);
    afterReady.push(answered - Math.max(...ready));
  }
  afterReady.sort((a, b) => a - b);
  console.log(`serve: first tools/list after the last of 4 servers is ready: median ${afterReady[Math.floor(afterReady.length / 2)]} ms, max ${afterReady[afterReady.length - 1]} ms (n=${afterReady.length})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
