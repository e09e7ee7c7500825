import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../core/version.js';
import type { ForwardExtra, ProxyCore, SessionContext } from './context.js';
import { messageToolDefinition } from './message-tool.js';
import { handleGetPrompt, handleReadResource } from './reads.js';
import { handleToolCall } from './tool-calls.js';

/**
 * Builds the low-level `Server` for one upstream connection (stdio, one HTTP session, one SSE stream or one
 * stateless request). All of them share the pool and the guard; the session fixes agent and profile.
 */
export function createUpstreamServer(core: ProxyCore, session: SessionContext): Server {
  const server = new Server(
    { name: 'quadguard', version: VERSION },
    {
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } },
      instructions: 'QuadGuard proxies the tools of several MCP servers as <server>__<tool> and checks every call. Blocked calls explain why and what to do instead.',
    },
  );
  const ready = () => core.pool.ready();
  const fx = (extra: { signal: AbortSignal; sendNotification: unknown }) => extra as unknown as ForwardExtra;

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
  return server;
}

/**
 * The live upstream servers, so downstream list changes reach every session. Servers leave on close.
 */
export class UpstreamRegistry {
  private readonly live = new Set<Server>();

  /** Tracks a server until it closes. */
  add(server: Server): void {
    this.live.add(server);
    const prev = server.onclose;
    server.onclose = () => {
      this.live.delete(server);
      prev?.();
    };
  }

  /** Sends the list_changed notification of `kind` to every live session; a closing one is skipped. */
  notify(kind: 'tools' | 'resources' | 'prompts'): void {
    for (const s of this.live) {
      const p = kind === 'tools' ? s.sendToolListChanged() : kind === 'resources' ? s.sendResourceListChanged() : s.sendPromptListChanged();
      void p.catch(() => {});
    }
  }

  /** Number of live sessions. */
  get size(): number {
    return this.live.size;
  }

  /** Closes every live session. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.live].map((s) => s.close().catch(() => {})));
  }
}
