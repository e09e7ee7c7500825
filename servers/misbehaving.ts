#!/usr/bin/env node
/**
 * A deliberately misbehaving MCP server for tests (not for users): a tool that crashes the process, one that
 * never answers, one with a malformed input schema, a task-required tool, a tool that reports progress, a tool
 * that adds a tool at run time (list_changed), a tool with an outputSchema, and a tools/list paginated by 3.
 *
 *   node dist/servers/misbehaving.js        (MISBEHAVING_PID_FILE: append this process's pid, for orphan checks)
 */
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { runUntilClosed, textResult } from './common.js';

const obj = (props: Record<string, unknown> = {}) => ({ type: 'object', properties: props });

/** Builds the misbehaving server. */
export function createMisbehavingServer(): Server {
  const server = new Server({ name: 'misbehaving', version: '0.1.0' }, { capabilities: { tools: { listChanged: true } } });
  const tools: Array<Record<string, unknown>> = [
    { name: 'echo', description: 'Echo text back', inputSchema: obj({ text: { type: 'string' } }) },
    { name: 'crash', description: 'Exit the process immediately', inputSchema: obj() },
    { name: 'hang', description: 'Never answer', inputSchema: obj() },
    { name: 'bad_schema', description: 'Malformed: inputSchema is not an object schema', inputSchema: { type: 'string' } },
    { name: 'task_only', description: 'Requires the tasks API', inputSchema: obj(), execution: { taskSupport: 'required' } },
    { name: 'slow', description: 'Report progress for `steps` steps', inputSchema: obj({ steps: { type: 'number' } }) },
    { name: 'add_tool', description: 'Add the tool "extra" and announce list_changed', inputSchema: obj() },
    { name: 'structured', description: 'Returns structured content', inputSchema: obj(), outputSchema: obj({ n: { type: 'number' } }) },
    { name: 'delete_all', description: 'A dangerous tool that config should hide', inputSchema: obj() },
  ];
  const PAGE = 3;
  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    const start = Number(req.params?.cursor ?? 0);
    const page = tools.slice(start, start + PAGE);
    return { tools: page as never, ...(start + PAGE < tools.length ? { nextCursor: String(start + PAGE) } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    switch (req.params.name) {
      case 'echo':
        return textResult(String(args.text ?? ''));
      case 'crash':
        return process.exit(3);
      case 'hang':
        // Never answers; records a cancellation (MISBEHAVING_CANCEL_FILE) so tests can see it was forwarded.
        extra.signal.addEventListener('abort', () => {
          if (process.env.MISBEHAVING_CANCEL_FILE) appendFileSync(process.env.MISBEHAVING_CANCEL_FILE, 'cancelled\n');
        });
        return new Promise(() => {});
      case 'slow': {
        const steps = Number(args.steps ?? 3);
        const token = req.params._meta?.progressToken;
        for (let i = 1; i <= steps; i++) {
          if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps } });
          await new Promise((r) => setTimeout(r, 20));
        }
        return textResult(`done ${steps} steps (token ${token === undefined ? 'none' : 'present'})`);
      }
      case 'add_tool':
        if (!tools.some((t) => t.name === 'extra')) tools.push({ name: 'extra', description: 'Added at run time', inputSchema: obj() });
        await server.sendToolListChanged();
        return textResult('added');
      case 'extra':
        return textResult('extra works');
      case 'structured':
        return { content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } };
      case 'delete_all':
        return textResult('everything deleted (this should never be reachable through the proxy)');
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`);
    }
  });
  return server;
}

const isMain = process.argv[1] !== undefined && /misbehaving\.(js|ts)$/.test(process.argv[1]);
if (isMain) {
  if (process.env.MISBEHAVING_PID_FILE) appendFileSync(process.env.MISBEHAVING_PID_FILE, `${process.pid}\n`);
  await runUntilClosed(createMisbehavingServer(), new StdioServerTransport());
}
