import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { LoadedConfig } from '../config/load.js';
import type { Guard } from '../core/types.js';
import type { Logger } from '../core/log.js';
import { buildProxyGuard } from './compose.js';
import { ClientRoots } from './client-roots.js';
import type { ProxyCore, SessionContext } from './context.js';
import { startHttpUpstream, type HttpFrontEndOptions, type HttpUpstream } from './http-upstream.js';
import { DownstreamPool, type InstructionsHook, type ListingsHook, type ToolsListedHook } from './pool.js';
import type { DecisionRecorder } from './refusals.js';
import { createStdioUpstream } from './stdio-upstream.js';
import { ToolFilter } from './tool-filter.js';
import { createDownstreamPeer } from './server-requests.js';
import { UpstreamRegistry } from './sessions.js';
import { announceServerState, tellDownServers } from './server-state.js';
import { createUpstreamServer } from './upstream-server.js';
import { applyLogLevel, releaseSubscriptions, resubscribe } from './utilities.js';

/** Options of `createProxy`. */
export interface ProxyOptions {
  /** A validated config (see `loadConfigFile` / `validateConfig`). */
  config: LoadedConfig;
  /** The policy pipeline; composed after the per-server tool filter. Absent: only the filter decides. */
  guard?: Guard;
  logger: Logger;
  /**
   * Called with each server's visible tools after every (re-)listing, before they are exposed; returns the tools to
   * expose (e.g. hide a pinned tool whose definition changed). A hidden tool cannot be called. Throwing hides all
   * of that server's tools (fail closed).
   */
  onToolsListed?: ToolsListedHook;
  /**
   * Screens each server's `instructions` after it connects (docs/proxying.md): the text passed to clients, or why
   * it was withheld. Absent: instructions are passed on unscreened (as tool descriptions are without a policy).
   */
  onInstructions?: InstructionsHook;
  /**
   * Screens each server's prompts, resources and resource templates after every (re-)listing (the items to expose;
   * a hidden one cannot be got or read) and the completion values it suggests (docs/proxying.md). Absent: they are
   * passed on unscreened.
   */
  onListed?: ListingsHook;
  /** Records the proxy's own refusals (unknown/hidden/filtered tools, limits, spoofed senders) in the audit log. */
  record?: DecisionRecorder;
  /** With `onToolsListed`: how often hidden/pinned tools are re-checked against the store (approvals). Default 3 s. */
  toolRecheckMs?: number;
}

/** A running proxy: the downstream pool plus whatever upstream transports were started. */
export interface GuardedProxy {
  /** The composed guard every interaction goes through (filter, then pipeline, fail-closed). */
  readonly guard: Guard;
  readonly pool: DownstreamPool;
  /** Serves one upstream client on stdin/stdout as `agent`; when stdin ends the whole proxy stops and `onExit` runs. */
  serveStdio(agent: string, onExit: () => void): Promise<SessionContext>;
  /** Serves one upstream client on any transport (e.g. an InMemoryTransport in tests) with the given identity. */
  serveTransport(transport: Transport, session: SessionContext): Promise<void>;
  /**
   * Serves Streamable HTTP on /mcp and legacy SSE on /sse + /messages; `extraRoutes` adds routes to the same
   * express app (after Host validation, before the error handler), e.g. the live view, with the front end's
   * authentication (`auth`) for routes that serve agents (the A2A proxy).
   */
  serveHttp(opts: HttpFrontEndOptions): Promise<HttpUpstream>;
  /** Closes upstream sessions, HTTP listeners and every downstream child. Idempotent. */
  close(): Promise<void>;
}

/**
 * Builds the guarding proxy: connects to every configured downstream server and routes every tools/call, tool
 * result, resources/read and prompts/get through one guard.
 *
 * @example
 * const proxy = createProxy({ config: loadConfigFile('quadguard.yaml'), guard: pipeline, logger });
 * await proxy.serveHttp({ port: 8787 });
 */
export function createProxy(opts: ProxyOptions): GuardedProxy {
  const { config, tokens } = opts.config;
  const logger = opts.logger.child({ mod: 'proxy' });
  const filter = new ToolFilter(Object.fromEntries(Object.entries(config.servers).map(([k, s]) => [k, s.tools])));
  const guard = buildProxyGuard(filter, opts.guard, logger);
  const pool = new DownstreamPool({ config, filter, logger, onToolsListed: opts.onToolsListed, onInstructions: opts.onInstructions, onListed: opts.onListed });
  const registry = new UpstreamRegistry();
  const core: ProxyCore = { config, pool, guard, logger, sessions: registry, progress: new Map(), clientRoots: new ClientRoots(), ...(opts.record ? { record: opts.record } : {}) };
  const listeners: HttpUpstream[] = [];
  pool.on('changed', (kind: 'tools' | 'resources' | 'prompts') => registry.notify(kind));
  // Each server is the proxy's client-side peer: its requests and notifications go to the sessions they belong to.
  const peer = createDownstreamPeer(core, registry);
  for (const d of pool.servers.values()) {
    d.peer = peer;
    // A (re)connected server gets the sessions' logging level and resource subscriptions again.
    d.on('ready', () => void applyLogLevel(core, d).then(() => resubscribe(core, d)));
  }
  registry.onLeave = (uris) => void releaseSubscriptions(core, uris);
  // A server that cannot start (or stops) is named to every client, with why and the config key to fix.
  for (const d of pool.servers.values()) d.on('state', () => announceServerState(registry, d));
  registry.onInitialized = (s) => tellDownServers(registry, pool, s);
  pool.start();
  // Approvals happen in another process (the CLI, the live view); re-check so they take effect without a restart.
  const recheck = opts.onToolsListed
    ? setInterval(() => void pool.recheckTools().catch((err: unknown) => logger.warn({ err }, 'tool re-check failed')), opts.toolRecheckMs ?? 3_000)
    : undefined;
  recheck?.unref();

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      if (recheck) clearInterval(recheck);
      await Promise.all(listeners.map((l) => l.close().catch(() => {})));
      await registry.closeAll();
      await pool.close();
    })());

  return {
    guard,
    pool,
    async serveStdio(agent, onExit) {
      const ctx: SessionContext = { id: `stdio-${randomUUID()}`, agent, profile: config.agents[agent]?.profile ?? {}, authenticated: false };
      const server = createUpstreamServer(core, ctx);
      registry.add(server, ctx);
      // The stdio client owns every server connection: what a server says outside a request concerns it.
      registry.owner = ctx;
      const transport = createStdioUpstream(
        logger,
        () => {
          logger.info('stdin closed; stopping downstream servers');
          void close().finally(onExit);
        },
        config.limits.max_message_bytes,
      );
      await server.connect(transport);
      return ctx;
    },
    async serveTransport(transport, session) {
      const server = createUpstreamServer(core, session);
      registry.add(server, session);
      await server.connect(transport);
    },
    async serveHttp(o) {
      const l = await startHttpUpstream(core, registry, tokens, o);
      listeners.push(l);
      return l;
    },
    close,
  };
}

export { GUARD_DENIED_CODE, DECISION_META_KEY } from './denial.js';
export { MESSAGE_TOOL, MESSAGE_TOOL_DOTTED } from './message-tool.js';
export { ToolFilter } from './tool-filter.js';
export { composeGuards, failClosed, buildProxyGuard } from './compose.js';
export type { InstructionsHook, ToolsListedHook } from './pool.js';
export type { SessionContext } from './context.js';
export type { DecisionRecorder } from './refusals.js';
