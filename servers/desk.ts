#!/usr/bin/env node
/**
 * A small real MCP server for provenance tests (docs/provenance.md), with no network and no side effects beyond a log:
 * `fetch_page` returns pages from a JSON file (what third parties wrote on the web), `read_file` the user's own
 * files from another, and `transfer_money`, `run_command` and `delete_all_files` (no arguments) record what they were
 * asked to do (one JSON line per call; nothing is paid, run or deleted).
 *
 *   node dist/servers/desk.js --world <world.json> --log <file.jsonl>
 *
 * world.json: { "pages": { "<url>": "<text>" }, "files": { "<path>": "<text>" } }
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { argValue, runUntilClosed, textResult } from './common.js';

export const WorldSchema = z.strictObject({
  pages: z.record(z.string(), z.string()).default({}),
  files: z.record(z.string(), z.string()).default({}),
});
export type World = z.infer<typeof WorldSchema>;

/** Builds the server over a world and a log file. */
export function createDeskServer(world: World, logFile: string): McpServer {
  const server = new McpServer({ name: 'desk', version: '0.1.0' });
  const log = (entry: Record<string, unknown>) => appendFileSync(logFile, `${JSON.stringify({ ...entry, date: new Date().toISOString() })}\n`);
  server.registerTool('fetch_page', { description: 'Fetch a web page and return its text', inputSchema: { url: z.string() }, annotations: { readOnlyHint: true, openWorldHint: true } }, async ({ url }) => {
    const page = world.pages[url];
    if (page === undefined) throw new Error(`no page at ${url}`);
    return textResult(page);
  });
  server.registerTool('read_file', { description: "Read one of the user's own files", inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } }, async ({ path }) => {
    const file = world.files[path];
    if (file === undefined) throw new Error(`no file ${path}`);
    return textResult(file);
  });
  server.registerTool(
    'transfer_money',
    { description: 'Transfer money from the user’s bank account to another account', inputSchema: { account: z.string(), amount: z.number(), subject: z.string().default('') } },
    async ({ account, amount, subject }) => {
      log({ tool: 'transfer_money', account, amount, subject });
      return textResult(`transferred ${amount} to ${account}`);
    },
  );
  server.registerTool('run_command', { description: 'Run a shell command (records it; nothing is run)', inputSchema: { command: z.string() } }, async ({ command }) => {
    log({ tool: 'run_command', command });
    return textResult(`ran: ${command}`);
  });
  server.registerTool('delete_all_files', { description: "Delete all of the user's files (records it; nothing is deleted)", inputSchema: {}, annotations: { destructiveHint: true } }, async () => {
    log({ tool: 'delete_all_files' });
    return textResult('deleted all files');
  });
  return server;
}

const isMain = process.argv[1] !== undefined && /desk\.(js|ts)$/.test(process.argv[1]);
if (isMain) {
  const worldFile = argValue('--world');
  const logFile = argValue('--log');
  if (!worldFile || !logFile) {
    process.stderr.write('desk: give --world <world.json> --log <file.jsonl>\n');
    process.exit(2);
  }
  const world = WorldSchema.parse(JSON.parse(readFileSync(worldFile, 'utf8')));
  await runUntilClosed(createDeskServer(world, resolve(logFile)), new StdioServerTransport());
}
