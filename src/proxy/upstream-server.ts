import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  type CallToolRequest,
  type InitializeRequest,
  InitializeRequestSchema,
  type InitializeResult,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ProgressNotificationSchema,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../core/version.js';
import type { ForwardExtra, ProxyCore, SessionContext } from './context.js';
import { messageToolDefinition } from './message-tool.js';
import { handleGetPrompt, handleReadResource } from './reads.js';
import { clientRootsChanged } from './roots.js';
import { handleToolCall } from './tool-calls.js';
import { handleComplete, handleSetLevel, handleSubscribe } from './utilities.js';
import { SessionTaskStore, startToolTask, TASKS_CAPABILITY } from './tasks.js';
import { isPlainCallParams, plainRequestHandler, ShapeDispatchServer } from './shape-dispatch.js';

/**
 * Builds the low-level `Server` for one upstream connection (stdio, one HTTP session, one SSE stream or one
 * stateless request). All of them share the pool and the guard; the session fixes agent and profile.
 */
export function createUpstreamServer(core: ProxyCore, session: SessionContext, opts: { tasks?: boolean } = {}): Server {
  // This session's tasks (see tasks.ts); their expiry timers stop when the session closes. A stateless HTTP request
  // is a session of one request, so it offers no tasks (nothing would be left to answer tasks/get).
  const tasks = opts.tasks === false ? undefined : new SessionTaskStore();
  const server = new ShapeDispatchServer(
    { name: 'quadguard', version: VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
        ...(tasks ? { tasks: TASKS_CAPABILITY } : {}),
      },
      ...(tasks ? { taskStore: tasks } : {}),
    },
  );
  const ready = () => core.pool.ready();
  const fx = (extra: unknown) => extra as ForwardExtra;

  // initialize waits for discovery (bounded, like the lists) so the servers' instructions are known, then answers
  // as the SDK does, with the instructions composed from the servers' (docs/proxying.md).
  const sdkInitialize = (server as unknown as { _oninitialize(r: InitializeRequest): Promise<InitializeResult> })._oninitialize.bind(server);
  server.setRequestHandler(InitializeRequestSchema, async (req) => {
    await ready();
    return { ...(await sdkInitialize(req)), instructions: instructions(core) };
  });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    await ready();
    return { tools: [messageToolDefinition(core.config.message_tool_name), ...core.pool.tools()] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    await ready();
    if (req.params.task && tasks) return startToolTask(core, session, server, tasks, req, fx(extra), (r, x) => handleToolCall(core, session, r, x));
    return handleToolCall(core, session, req, fx(extra));
  });
  // An ordinary call (no task) is not parsed again, nor its result checked again: the SDK's Server would parse the
  // request twice and the result once more, all of which the proxy has already read (the downstream result against
  // CallToolResultSchema) or built itself (denials: test/proxy/shape-dispatch.test.ts checks them against the schema).
  plainRequestHandler<CallToolRequest>(server, 'tools/call', isPlainCallParams, async (req, extra) => {
    await ready();
    return handleToolCall(core, session, req, fx(extra));
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    await ready();
    return { resources: core.pool.resources() };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
    await ready();
    return { resourceTemplates: core.pool.templates() };
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => {
    await ready();
    return handleReadResource(core, session, req, fx(extra));
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    await ready();
    return { prompts: core.pool.prompts() };
  });
  server.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
    await ready();
    return handleGetPrompt(core, session, req, fx(extra));
  });
  server.setRequestHandler(CompleteRequestSchema, async (req, extra) => {
    await ready();
    return handleComplete(core, session, req, fx(extra));
  });
  server.setRequestHandler(SubscribeRequestSchema, async (req, extra) => {
    await ready();
    return handleSubscribe(core, session, req, true, fx(extra));
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (req, extra) => {
    await ready();
    return handleSubscribe(core, session, req, false, fx(extra));
  });
  server.setRequestHandler(SetLevelRequestSchema, async (req) => {
    await ready();
    return handleSetLevel(core, session, req);
  });
  // Progress a client reports on a server's request the proxy carried to it (sampling, elicitation): relayed to that
  // server. The proxy's own requests to clients never ask for progress, so this replaces the SDK's handler, which
  // runs after a response read in the same chunk has already dropped the request's progress handler.
  server.setNotificationHandler(ProgressNotificationSchema, (n) => {
    const { progressToken, ...p } = n.params;
    const relay = core.progress.get(String(progressToken));
    if (relay) relay(p);
    else core.logger.debug({ session: session.id, progressToken }, 'progress for no request in flight dropped');
  });
  // The client's roots changed: every server may have asked for them (roots/list is answered from this client).
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => clientRootsChanged(core, server, session, 'all'));
  // A server that asked for roots before any client was connected (a stdio server starts first) never got them:
  // now that this client is here, tell it they changed so it asks again.
  server.oninitialized = () => void clientRootsChanged(core, server, session, 'unanswered');
  const closed = server.onclose;
  server.onclose = () => {
    for (const a of tasks?.running.values() ?? []) a.abort(new Error('the session closed'));
    tasks?.cleanup();
    closed?.();
  };
  return server;
}

/** QuadGuard's own sentence at initialize: how names look and that calls are checked. */
function ownInstructions(core: ProxyCore): string {
  const keys = Object.keys(core.config.servers);
  const prefixed = keys.filter((k) => core.pool.namespaced(k));
  const naming =
    prefixed.length === 0
      ? 'under their own names'
      : prefixed.length === keys.length
        ? 'as <server>__<tool> (resource URIs as <server>+<uri>)'
        : `as <server>__<tool> for ${prefixed.join(', ')} (resource URIs as <server>+<uri>), under their own names for the others`;
  return `QuadGuard proxies the tools of ${keys.length === 1 ? 'an MCP server' : 'several MCP servers'} ${naming} and checks every call. Blocked calls explain why and what to do instead.`;
}

/** The note a client's model reads in place of instructions the screen withheld. */
const withheldNote = (server: string, why: string) => `QuadGuard withheld the instructions of server "${server}": ${why}.`;

/**
 * The instructions a client gets at initialize. One configured server: its instructions unchanged (or the note
 * that they were withheld; QuadGuard's own sentence when it gave none). Several: QuadGuard's sentence, then each
 * server's instructions under a heading with its name (and the prefix of its tools when namespaced).
 */
export function instructions(core: ProxyCore): string {
  const servers = core.pool.instructions();
  if (Object.keys(core.config.servers).length === 1) {
    const only = servers[0];
    return only === undefined ? ownInstructions(core) : 'text' in only ? only.text : withheldNote(only.server, only.withheld);
  }
  const heading = (k: string) => `## Server "${k}"${core.pool.namespaced(k) ? ` (its tools are exposed as ${k}__<tool>)` : ''}`;
  const sections = servers.map((s) => `${heading(s.server)}\n\n${'text' in s ? s.text : withheldNote(s.server, s.withheld)}`);
  return [ownInstructions(core), ...sections].join('\n\n');
}
