import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DownstreamError, errorMessage } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { Decision, Guard, Interaction } from '../core/types.js';
import type { DecisionRecorder } from './context.js';
import { downstreamFailure, protocolError } from './denial.js';
import { ensureRecorded } from './refusals.js';

/**
 * The one seam between a proxy site and the guard, and the one reading of a downstream failure. Every site that
 * asks the guard (a call, a result, a read, a server's request, a log message, a message to check) calls `decide`
 * and acts on the verdict it returns; every site that forwards downstream maps a failure with one of the two
 * renderings below.
 */

/** What `decide` needs of the proxy core (the A2A proxy passes its own deps of the same shape). */
export interface Decider {
  guard: Guard;
  logger: Logger;
  record?: DecisionRecorder;
}

/**
 * Checks an interaction with the proxy's guard and makes sure a denial is recorded (`ensureRecorded`): the verdict
 * the site acts on. A denial is a value, never a throw.
 */
export async function decide(core: Decider, interaction: Interaction, signal?: AbortSignal): Promise<Decision> {
  return ensureRecorded(core, interaction, await core.guard.check(interaction, signal), signal);
}

/** A downstream failure, read once: QuadGuard's own forwarding failed (unavailable, timeout, closed), or the server answered with a JSON-RPC error. */
export type DownstreamFailure = { by: 'proxy'; code: string; message: string } | { by: 'server'; rpcCode: number; message: string; data: unknown };

/** Reads a thrown downstream failure; undefined for anything else (a fault inside the proxy). */
export function readDownstreamFailure(err: unknown): DownstreamFailure | undefined {
  if (err instanceof DownstreamError) return { by: 'proxy', code: err.code, message: err.message };
  // The SDK's McpError prefixes "MCP error <code>: "; the wire message is the server's own text.
  if (err instanceof McpError) return { by: 'server', rpcCode: err.code, message: err.message.replace(/^MCP error -?\d+: /, ''), data: err.data };
  return undefined;
}

/**
 * A downstream failure of a request method (resources/read, prompts/get, completions, subscriptions) as the
 * JSON-RPC error the client gets, with the downstream code kept (brief §4.3). Anything else is returned as it is
 * (the SDK answers it as an internal error).
 */
export function downstreamRequestError(err: unknown): unknown {
  const f = readDownstreamFailure(err);
  if (f === undefined) return err;
  return f.by === 'proxy' ? protocolError(ErrorCode.InternalError, f.message, { code: f.code }) : protocolError(f.rpcCode, f.message, f.data);
}

/**
 * A downstream failure of tools/call as the tool error the client gets (`isError`, the code under
 * `io.github.quadguard/error`). A fault inside the proxy is logged and named `proxy_internal`, without its text.
 */
export function downstreamToolFailure(err: unknown, call: { server: string; tool: string; exposed: string }, logger: Logger): CallToolResult {
  const f = readDownstreamFailure(err);
  if (f?.by === 'proxy') return downstreamFailure(`QuadGuard: ${f.message}`, f.code);
  if (f?.by === 'server') return downstreamFailure(`Server "${call.server}" returned an error for ${call.tool}: ${f.message}`, 'downstream_error');
  logger.error({ err: errorMessage(err), server: call.server }, 'tool call failed');
  return downstreamFailure(`QuadGuard: the call to ${call.exposed} failed inside the proxy.`, 'proxy_internal');
}
