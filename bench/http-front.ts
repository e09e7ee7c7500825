/**
 * The CPU an HTTP front end costs per MCP request, apart from any guard or downstream server: the same express app as
 * the proxy's /mcp (Host-header check, JSON body, sessions) in front of an in-process MCP server with one `echo` tool,
 * once with the SDK's `StreamableHTTPServerTransport` and `express.json` (`sdk`, the proxy's front end before issue
 * 30's transport) and once with QuadGuard's `NodeStreamableHttpTransport` and `jsonBody` (`own`). Each front end runs
 * in a child process driven by N concurrent SDK clients calling `echo` in a closed loop; the child's own CPU time
 * (user + system, /proc, Linux) per call is the figure, which a loaded machine moves far less than wall time. The two
 * alternate for `--rounds` rounds, each after a warm-up, so that both see the same load.
 *
 * Two more front ends keep `own`'s transport and body and change the MCP server behind it to the proxy's kind, a
 * low-level `Server` with its own tools/call handler: `server` registers it the SDK way (each request parsed twice
 * and each result checked, every message's kind found by zod), `shape` as the proxy does since the twelfth round
 * (`ShapeDispatchServer` and `plainRequestHandler`, src/proxy/shape-dispatch.ts). `direct` is `shape` with /mcp
 * answered as the proxy answers it since the tenth cost round: the same handlers without express's router
 * (src/proxy/direct-route.ts). `--fronts` picks some.
 *
 *   npx tsx bench/http-front.ts [seconds=8] [--rounds 3] [--sessions 8] [--warm 4] [--fronts sdk,own,server,shape,direct]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import express, { type Request, type Response } from 'express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, isInitializeRequest, type CallToolRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { NodeStreamableHttpTransport } from '../src/proxy/http-transport.js';
import { jsonBody } from '../src/proxy/json-body.js';
import { directRoute, resumeInExpress, withExpress } from '../src/proxy/direct-route.js';
import { isInitialize } from '../src/proxy/jsonrpc-shape.js';
import { isPlainCallParams, plainRequestHandler, ShapeDispatchServer } from '../src/proxy/shape-dispatch.js';
import { fmtMs, freePort, httpClient, summarize, tsNode, waitForHttp } from './common.js';

const FRONTS = ['sdk', 'own', 'server', 'shape', 'direct'] as const;
type Front = (typeof FRONTS)[number];

const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: 'string', default: '3' }, sessions: { type: 'string', default: '8' }, warm: { type: 'string', default: '4' }, fronts: { type: 'string', default: FRONTS.join(',') }, serve: { type: 'string' }, port: { type: 'string' } } });

/** The MCP server behind a front end: `McpServer` with its `echo` tool, or a low-level `Server` as the proxy's. */
function mcpServer(front: Front): McpServer | Server {
  if (front === 'sdk' || front === 'own') {
    const server = new McpServer({ name: 'bench-front', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    return server;
  }
  const info = { name: 'bench-front', version: '1.0.0' };
  const opts = { capabilities: { tools: {} } };
  const shaped = front === 'shape' || front === 'direct';
  const server = shaped ? new ShapeDispatchServer(info, opts) : new Server(info, opts);
  const echo = async (req: CallToolRequest) => ({ content: [{ type: 'text' as const, text: String(req.params.arguments?.text) }] });
  server.setRequestHandler(CallToolRequestSchema, echo);
  if (shaped) plainRequestHandler<CallToolRequest>(server, 'tools/call', isPlainCallParams, echo);
  return server;
}

/** The child: one front end on 127.0.0.1:port until it is killed. */
async function serve(front: Front, port: number): Promise<void> {
  const app = express();
  app.disable('x-powered-by');
  if (front === 'direct') app.use(resumeInExpress);
  const hostCheck = hostHeaderValidation(['localhost', '127.0.0.1', '[::1]']);
  app.use(hostCheck);
  const parser = express.json({ limit: '4mb', type: () => true });
  const body = front === 'sdk' ? parser : jsonBody('4mb', parser);
  const sessions = new Map<string, { handleRequest(req: Request, res: Response, body: unknown): Promise<void> }>();
  const mcp = async (req: Request, res: Response) => {
    const sid = req.headers['mcp-session-id'];
    const known = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (known) return known.handleRequest(req, res, req.body);
    if (req.method !== 'POST' || !(front === 'sdk' ? isInitializeRequest(req.body) : isInitialize(req.body))) return void (withExpress(res), res.status(400).json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'initialize first' } }));
    const server = mcpServer(front);
    const opts = { sessionIdGenerator: randomUUID, onsessioninitialized: (id: string) => void sessions.set(id, transport) };
    const transport = front === 'sdk' ? new StreamableHTTPServerTransport(opts) : new NodeStreamableHttpTransport(opts);
    await server.connect(transport);
    return transport.handleRequest(req, res, req.body);
  };
  app.all('/mcp', body, mcp);
  const direct = front === 'direct' ? directRoute(app, '/mcp', [hostCheck, body, mcp], false) : undefined;
  const http = createServer((req, res) => void (direct?.(req, res) || app(req, res)));
  await new Promise<void>((r) => http.listen(port, '127.0.0.1', () => r()));
}

/** User + system CPU seconds of a process so far (Linux /proc). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function measure(front: Front, seconds: number, warm: number, sessions: number): Promise<{ cpuUs: number; calls: number; median: number }> {
  const port = await freePort();
  const node = tsNode('bench/http-front.ts', '--serve', front, '--port', String(port));
  const child = spawn(node.command, node.args, { cwd: node.cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  try {
    await waitForHttp(url.href, 120_000);
    const clients = await Promise.all(
      Array.from({ length: sessions }, async () => {
        const c = new Client({ name: 'bench-http-front', version: '0' });
        await c.connect(httpClient(url));
        return c;
      }),
    );
    const loop = async (until: number, ms?: number[]) =>
      Promise.all(
        clients.map(async (c, i) => {
          while (performance.now() < until) {
            const t0 = performance.now();
            await c.callTool({ name: 'echo', arguments: { text: `session ${i}: a short line of text` } });
            ms?.push(performance.now() - t0);
          }
        }),
      );
    await loop(performance.now() + warm * 1000);
    const ms: number[] = [];
    const cpu0 = cpuSeconds(child.pid!);
    await loop(performance.now() + seconds * 1000, ms);
    const cpu = cpuSeconds(child.pid!) - cpu0;
    await Promise.all(clients.map((c) => c.close()));
    return { cpuUs: (cpu / ms.length) * 1e6, calls: ms.length, median: summarize(ms).median };
  } finally {
    child.kill();
  }
}

if (values.serve !== undefined) {
  if (!FRONTS.includes(values.serve as Front)) throw new Error(`--serve must be one of ${FRONTS.join(', ')}, not ${values.serve}`);
  await serve(values.serve as Front, Number(values.port));
} else {
  const seconds = Number(positionals[0] ?? 8);
  const rounds = Number(values.rounds);
  const sessions = Number(values.sessions);
  const warm = Number(values.warm);
  if (!(seconds > 0) || !Number.isSafeInteger(rounds) || rounds < 1 || !Number.isSafeInteger(sessions) || sessions < 1 || !(warm >= 0)) {
    throw new Error('usage: npx tsx bench/http-front.ts [seconds>0] [--rounds N>=1] [--sessions N>=1] [--warm SECONDS>=0]');
  }
  const fronts = values.fronts.split(',') as Front[];
  const unknown = fronts.filter((f) => !FRONTS.includes(f));
  if (unknown.length > 0) throw new Error(`--fronts takes ${FRONTS.join(', ')}, not ${unknown.join(', ')}`);
  const per: Record<Front, number[]> = { sdk: [], own: [], server: [], shape: [], direct: [] };
  for (let r = 1; r <= rounds; r++) {
    for (const front of fronts) {
      const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
      const m = await measure(front, seconds, warm, sessions);
      per[front].push(m.cpuUs);
      console.log(`round ${r} ${front}: ${m.calls} calls, median ${fmtMs(m.median)} ms, front end CPU ${m.cpuUs.toFixed(0)} µs/call (load ${load})`);
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const line = (a: Front, b: Front) => `${a} ${med(per[a]).toFixed(0)} µs, ${b} ${med(per[b]).toFixed(0)} µs (${(med(per[b]) / med(per[a])).toFixed(2)}×)`;
  if (fronts.includes('sdk') && fronts.includes('own')) console.log(`median front end CPU per call, ${sessions} sessions: ${line('sdk', 'own')}`);
  if (fronts.includes('server') && fronts.includes('shape')) console.log(`median front end CPU per call, ${sessions} sessions, the proxy's Server: ${line('server', 'shape')}`);
  if (fronts.includes('shape') && fronts.includes('direct')) console.log(`median front end CPU per call, ${sessions} sessions, /mcp without express's router: ${line('shape', 'direct')}`);
}
