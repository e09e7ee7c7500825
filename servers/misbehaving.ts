#!/usr/bin/env node
/**
 * A deliberately misbehaving MCP server for tests (not for users): a tool that crashes the process, one that
 * never answers, one with a malformed input schema, a task-required tool, a tool that reports progress, a tool
 * that adds a tool at run time (list_changed), a tool with an outputSchema, and a tools/list paginated by 3.
 * With `failLists` (MISBEHAVING_FAIL_LISTS=N) it also offers a prompt and a resource, and its prompts/list and
 * resources/list fail the first N times each (a server not ready for them yet).
 *
 *   node dist/servers/misbehaving.js        (MISBEHAVING_PID_FILE: append this process's pid, for orphan checks)
 */
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { runUntilClosed, textResult } from './common.js';

const obj = (props: Record<string, unknown> = {}) => ({ type: 'object', properties: props });

/** Builds the misbehaving server. */
export function createMisbehavingServer(failLists?: number): Server {
  const lists = failLists === undefined ? {} : { prompts: {}, resources: {} };
  const server = new Server({ name: 'misbehaving', version: '0.1.0' }, { capabilities: { tools: { listChanged: true }, ...lists } });
  if (failLists !== undefined) offerFlakyLists(server, failLists);
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

/** One prompt and one resource, whose listings fail the first `failures` times each. */
function offerFlakyLists(server: Server, failures: number): void {
  const failing = (what: string) => {
    let left = failures;
    return () => {
      if (left-- > 0) throw new McpError(ErrorCode.InternalError, `${what} is not ready yet`);
    };
  };
  const promptsFail = failing('prompts/list');
  const resourcesFail = failing('resources/list');
  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    promptsFail();
    return { prompts: [{ name: 'late_prompt', description: 'Listed once the server is ready' }] };
  });
  server.setRequestHandler(GetPromptRequestSchema, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'a late prompt' } }] }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    resourcesFail();
    return { resources: [{ uri: 'misbehaving://late', name: 'late', mimeType: 'text/plain' }] };
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => ({ contents: [{ uri: req.params.uri, mimeType: 'text/plain', text: 'a late resource' }] }));
}

const isMain = process.argv[1] !== undefined && /misbehaving\.(js|ts)$/.test(process.argv[1]);
if (isMain) {
  if (process.env.MISBEHAVING_PID_FILE) appendFileSync(process.env.MISBEHAVING_PID_FILE, `${process.pid}\n`);
  const failLists = process.env.MISBEHAVING_FAIL_LISTS;
  await runUntilClosed(createMisbehavingServer(failLists === undefined ? undefined : Number(failLists)), new StdioServerTransport());
}
