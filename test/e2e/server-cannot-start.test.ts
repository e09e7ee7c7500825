/**
 * A server that cannot start (issue #28, friction 9), through the built CLI with a config naming a missing command:
 * the proxy logs one line per state change (with the retry schedule), not one per retry; the connected client gets
 * an MCP log message naming the server, the reason and the config key to fix; a call to one of its tools answers
 * with the server's state; `status --config` names it. Every log line parses with unique keys.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseStrict } from 'yaml';
import { CLI, server, waitFor, writeConfig } from '../support/proxy-harness.js';

let dir: string;
let env: Record<string, string>;
let cfg: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'qg-cannot-start-'));
  mkdirSync(join(dir, 'home'));
  env = { PATH: process.env.PATH ?? '', HOME: join(dir, 'home'), QUADGUARD_LOG_LEVEL: 'info' };
  cfg = writeConfig(dir, {
    agents: { tester: {} },
    servers: { broken: { command: 'no-such-mcp-server', args: ['--stdio'] }, ws: server('workspace', join(dir, 'ws')) },
  });
  mkdirSync(join(dir, 'ws'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a server that cannot start', () => {
  it('one log line per change, an MCP log message with reason and fix, its tools answer with its state', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--config', cfg, '--agent', 'tester'], cwd: dir, env, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: 'cannot-start', version: '0' });
    const logs: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await client.connect(transport);
    try {
      await waitFor(() => logs.some((l) => String(l.data).includes('"broken"')), 10_000, 'a log message about the broken server');
      const note = logs.find((l) => String(l.data).includes('"broken"'))!;
      expect(note.level).toBe('error');
      expect(note.logger).toBe('quadguard');
      expect(note.data).toContain('spawn no-such-mcp-server ENOENT');
      expect(note.data).toContain('servers.broken.command');

      // The working server's tools are there; the broken one's call names its state, not "Unknown tool".
      const { tools } = await client.listTools();
      expect(tools.some((t) => t.name.startsWith('ws__'))).toBe(true);
      const r = (await client.callTool({ name: 'broken__anything', arguments: {} })) as CallToolResult;
      expect(r.isError).toBe(true);
      const text = (r.content[0] as { text: string }).text;
      expect(text).toContain('server "broken" is down: spawn no-such-mcp-server ENOENT');
      expect(text).toContain('servers.broken.command');
      expect(text).not.toContain('Unknown tool');

      // At least three retries (0.5 s, 1 s, 2 s with jitter) happen in 4.5 s; the log says it once.
      await new Promise((r) => setTimeout(r, 4_500));
    } finally {
      await client.close();
    }
    const lines = stderr.split('\n').filter((l) => l.startsWith('{'));
    const records = lines.map((l) => parseStrict(l) as Record<string, unknown>);
    const broken = records.filter((r) => r.server === 'broken');
    const down = broken.filter((r) => String(r.msg).startsWith('downstream down'));
    expect(down, stderr).toHaveLength(1);
    expect(down[0]!.msg).toMatch(/retrying in \d+\.\d s, then doubling from 0\.5 s up to every 30 s/);
    expect(down[0]!.err).toBe('spawn no-such-mcp-server ENOENT');
    expect(down[0]!.mod).toBe('downstream');
    // Nothing else about it at warn or above (pino: 40 = warn): no line per retry.
    expect(broken.filter((r) => (r.level as number) >= 40)).toHaveLength(1);
  }, 60_000);

  it('status --config names it as a server that cannot start, with the key to fix', () => {
    const r = spawnSync(process.execPath, [CLI, 'status', '--config', cfg], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('server:     broken: CANNOT START: "no-such-mcp-server" is not an executable file and not on PATH: fix servers.broken.command');
    expect(r.stdout).toMatch(/server: {5}ws: can start/);
  });
});
