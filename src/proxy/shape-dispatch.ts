import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCNotification, JSONRPCRequest, JSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK `Protocol`'s routing of each incoming message and its per-method request parse, without zod on the
 * ordinary message. The SDK (1.32) tells a message's kind by running up to four strict schemas over it
 * (`isJSONRPCResultResponse`, `isJSONRPCErrorResponse`, `isJSONRPCRequest`, `isJSONRPCNotification`: two failing
 * parses for every request), and then parses a request again with its method's schema. A message whose shape plainly
 * passes the schema that would take it is routed here straight to the same private entry point; anything else (an
 * error response, a `_meta` the check does not read, an extra key, a wrong type) goes to the SDK's own routing, so
 * its answer, an error included, is always the SDK's. Pinned against the SDK in test/proxy/shape-dispatch.test.ts.
 */

/** The private parts of the SDK's `Protocol` (shared/protocol.js) the dispatch calls. */
interface ProtocolInternals {
  _onrequest(request: JSONRPCRequest, extra?: unknown): void;
  _onnotification(notification: JSONRPCNotification): void;
  _requestHandlers: Map<string, (request: JSONRPCRequest, extra: unknown) => Promise<unknown>>;
  _requestResolvers: Map<number, (response: JSONRPCResultResponse) => void>;
  _responseHandlers: Map<number, (response: JSONRPCResultResponse) => void>;
  _progressHandlers: Map<number, unknown>;
  _taskProgressTokens: Map<string, number>;
  _cleanupTimeout(messageId: number): void;
  _onerror(error: Error): void;
}

type Kind = 'request' | 'notification' | 'result';

/**
 * Routes `protocol`'s incoming messages by their shape (call right after `connect`, which installed the SDK's
 * routing on `transport.onmessage`). The handler a transport had before `connect` still runs first, as the SDK's
 * routing runs it.
 */
export function dispatchByShape(protocol: object, transport: Transport, before: Transport['onmessage']): void {
  const sdk = transport.onmessage;
  if (!sdk) return;
  const p = protocol as unknown as ProtocolInternals;
  transport.onmessage = (message, extra) => {
    const kind = plainKind(message);
    if (kind === undefined) return sdk(message, extra);
    before?.(message, extra);
    if (kind === 'request') p._onrequest(message as JSONRPCRequest, extra);
    else if (kind === 'result') plainResult(p, message as JSONRPCResultResponse);
    else p._onnotification(message as JSONRPCNotification);
  };
}

/**
 * The SDK `Protocol`'s `_onresponse` (1.32) for a result response whose shape `plainKind` read: the same steps, without
 * its two `isJSONRPCResultResponse` parses, which such a response passes (the SDK then hands it on unchanged).
 */
export function plainResult(p: ProtocolInternals, response: JSONRPCResultResponse): void {
  const messageId = Number(response.id);
  const resolver = p._requestResolvers.get(messageId);
  if (resolver) {
    p._requestResolvers.delete(messageId);
    resolver(response);
    return;
  }
  const handler = p._responseHandlers.get(messageId);
  if (handler === undefined) {
    p._onerror(new Error(`Received a response for an unknown message ID: ${JSON.stringify(response)}`));
    return;
  }
  p._responseHandlers.delete(messageId);
  p._cleanupTimeout(messageId);
  // Keep the progress handler of a call the server answered with a task (CreateTaskResult).
  const task = (response.result as { task?: unknown }).task;
  if (task && typeof task === 'object' && typeof (task as { taskId?: unknown }).taskId === 'string') p._taskProgressTokens.set((task as { taskId: string }).taskId, messageId);
  else p._progressHandlers.delete(messageId);
  handler(response);
}

/** The SDK's `Server`, routing each incoming message by its shape once connected. */
export class ShapeDispatchServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    const before = transport.onmessage;
    await super.connect(transport);
    dispatchByShape(this, transport, before);
  }
}

/** The SDK's `Client`, routing each incoming message by its shape once connected (after its initialize). */
export class ShapeDispatchClient extends Client {
  override async connect(transport: Transport, options?: RequestOptions): Promise<void> {
    const before = transport.onmessage;
    await super.connect(transport, options);
    dispatchByShape(this, transport, before);
  }
}

/**
 * Replaces the handler the SDK installed for `method` (its schema's parse, and for tools/call the `Server`'s second
 * parse and its result check) by `handler` for requests whose params `plain` accepts; others still go through the
 * SDK's. Call after `setRequestHandler(schema, handler)` for the same method. `plain` must accept only params the
 * method's schema passes unchanged but for keys the handler never reads (zod drops unknown keys).
 */
export function plainRequestHandler<R>(protocol: object, method: string, plain: (params: unknown) => boolean, handler: (request: R, extra: never) => unknown): void {
  const handlers = (protocol as unknown as ProtocolInternals)._requestHandlers;
  const sdk = handlers.get(method);
  if (!sdk) throw new Error(`plainRequestHandler: no handler for ${method} registered with the SDK first`);
  handlers.set(method, (request, extra) => (plain(request.params) ? Promise.resolve(handler(request as R, extra as never)) : sdk(request, extra)));
}

/**
 * tools/call params the SDK's `CallToolRequestSchema` passes: a string name, arguments absent or a plain object,
 * a plain `_meta`, and no task (a task-augmented call keeps the SDK's path, its CreateTaskResult check included).
 */
export function isPlainCallParams(params: unknown): boolean {
  if (!isPlainObject(params) || typeof params.name !== 'string' || params.task !== undefined) return false;
  return (params.arguments === undefined || isPlainObject(params.arguments)) && isPlainRequestMeta(params._meta);
}

/** The kind the SDK would find, when the message's shape shows it plainly; undefined: let the SDK look. */
export function plainKind(m: unknown): Kind | undefined {
  if (!isObject(m) || m.jsonrpc !== '2.0') return undefined;
  const keys = Object.keys(m).length;
  if (typeof m.method === 'string') {
    const params = m.params;
    const withParams = Object.hasOwn(m, 'params') ? 1 : 0;
    if (Object.hasOwn(m, 'id')) {
      // RequestSchema: params absent or an object with a plain `_meta`; strict: nothing else beside them.
      if (!isId(m.id) || keys !== 3 + withParams) return undefined;
      return params === undefined || (isObject(params) && isPlainRequestMeta(params._meta)) ? 'request' : undefined;
    }
    if (keys !== 2 + withParams) return undefined;
    // A notification's `_meta` has its own schema: one with any is the SDK's to read.
    return params === undefined || (isObject(params) && params._meta === undefined) ? 'notification' : undefined;
  }
  if (Object.hasOwn(m, 'result')) {
    if (keys !== 3 || !isId(m.id)) return undefined;
    return isObject(m.result) && (m.result as Record<string, unknown>)._meta === undefined ? 'result' : undefined;
  }
  return undefined;
}

/** A request `_meta` the SDK's `RequestMetaSchema` passes as it is: absent, or a progress token and nothing of tasks. */
function isPlainRequestMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isObject(meta) || Object.hasOwn(meta, 'io.modelcontextprotocol/related-task')) return false;
  const token = meta.progressToken;
  return token === undefined || isId(token);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What `z.record` takes (zod's `isPlainObject`), decided only where it is plain: an object as JSON.parse makes it. */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!isObject(v) || Object.hasOwn(v, 'constructor')) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A JSON-RPC id (and a progress token): a string or a safe integer, as `z.number().int()` takes. */
const isId = (v: unknown) => typeof v === 'string' || Number.isSafeInteger(v);
