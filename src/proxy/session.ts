import type { RequestHandlerExtra, RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Profile } from '../core/types.js';

/**
 * The types that tie a downstream request to the upstream session and request it serves. A leaf module, so the
 * downstream supervisor can name them without importing the proxy core (which imports the pool, which imports it).
 */

/** The identity of one upstream connection, established by the proxy (token or `--agent`), never by the client. */
export interface SessionContext {
  /** Upstream session id (stdio: one per process). */
  id: string;
  agent: string;
  profile: Profile;
  /** True when the agent was proven by an HTTP bearer token. */
  authenticated: boolean;
}

/** The upstream request's `extra`: its signal, id, and the channels back to the client that sent it. */
export type ForwardExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * The upstream request a downstream request was made for: a server-to-client request (sampling, elicitation,
 * roots) or a log message the server sends meanwhile goes back to this session, on this request's stream.
 */
export interface Origin {
  session: SessionContext;
  extra: ForwardExtra;
}

/** Downstream request options that also name the upstream request they serve (see `Downstream.request`). */
export type ForwardOptions = RequestOptions & {
  origin?: Origin;
  /** tools/call only: run it on the server as an MCP task (the tool requires it) and wait for the task's result. */
  asTask?: boolean;
};
