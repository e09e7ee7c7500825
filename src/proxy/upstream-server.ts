import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
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

/**
 * Builds the low-level `Server` for one upstream connection (stdio, one HTTP session, one SSE stream or one
 * stateless request). All of them share the pool and the guard; the session fixes agent and profile.
 */
export function createUpstreamServer(core: ProxyCore, session: SessionContext): Server {
  const server = new Server(
    { name: 'quadguard', version: VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
      instructions: instructions(core),
    },
  );
  const ready = () => core.pool.ready();
  const fx = (extra: unknown) => extra as ForwardExtra;

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    await ready();
    return { tools: [messageToolDefinition(core.config.message_tool_name), ...core.pool.tools()] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
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
  server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    await ready();
    return handleSubscribe(core, session, req, true);
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
    await ready();
    return handleSubscribe(core, session, req, false);
  });
  server.setRequestHandler(SetLevelRequestSchema, async (req) => {
    await ready();
    return handleSetLevel(core, session, req);
  });
  // The client's roots changed: every server may have asked for them (roots/list is answered from this client).
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => clientRootsChanged(core, server, session, 'all'));
  // A server that asked for roots before any client was connected (a stdio server starts first) never got them:
  // now that this client is here, tell it they changed so it asks again.
  server.oninitialized = () => void clientRootsChanged(core, server, session, 'unanswered');
  return server;
}

/** What the proxy tells clients at initialize: how names look and that calls are checked. */
function instructions(core: ProxyCore): string {
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
