import { InitializeRequestSchema, JSONRPCMessageSchema, type InitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK's reading of a posted JSON-RPC message (`JSONRPCMessageSchema.parse`), without running zod over the
 * ordinary message. A message whose shape is plainly one the schema accepts unchanged (the four kinds' exact keys,
 * `jsonrpc: "2.0"`, a string or safe-integer id, a string method, plain-object params or result with no `_meta`, an
 * error of code, message and data) is returned as it is; any other value (a `_meta`, an extra key, a wrong type) goes
 * through the schema itself, so the answer, a parse error included, is always the schema's. The schema returns a
 * copy that drops unknown keys only inside `_meta` and `error`, which is why those go through it.
 */
export function readMessage(raw: unknown): JSONRPCMessage {
  return isPlainMessage(raw) ? (raw as JSONRPCMessage) : JSONRPCMessageSchema.parse(raw);
}

/** `readMessage` as `safeParse` reads: the message, or undefined where the schema refuses the value. */
export function tryReadMessage(raw: unknown): JSONRPCMessage | undefined {
  if (isPlainMessage(raw)) return raw as JSONRPCMessage;
  const read = JSONRPCMessageSchema.safeParse(raw);
  return read.success ? read.data : undefined;
}

/** `isInitializeRequest` of the SDK, asked of zod only when the method says initialize. */
export function isInitialize(message: unknown): message is InitializeRequest {
  return isObject(message) && message.method === 'initialize' && InitializeRequestSchema.safeParse(message).success;
}

/** A JSON-RPC request (a method and an id) among messages `readMessage` returned. */
export function isRequestMessage(message: JSONRPCMessage): boolean {
  return 'method' in message && 'id' in message;
}

/**
 * A response (result or error) among the messages the proxy's own `Server` sends: it builds each kind with exactly
 * its keys, so the shape tells them apart (the SDK's transport runs the strict schemas over every outgoing message,
 * a whole tool result included).
 */
export function isResponseMessage(message: JSONRPCMessage): message is JSONRPCMessage & { id: string | number } {
  return !('method' in message) && ('result' in message || 'error' in message);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isId = (v: unknown) => typeof v === 'string' || Number.isSafeInteger(v);
/** Params or a result the schema keeps as they are: a plain object without `_meta` (whose inner keys it may drop). */
const isPlainBody = (v: unknown) => isObject(v) && !Object.hasOwn(v, '_meta');

function isPlainMessage(m: unknown): boolean {
  if (!isObject(m) || m.jsonrpc !== '2.0') return false;
  let keys = 1;
  if (Object.hasOwn(m, 'id')) {
    if (!isId(m.id)) return false;
    keys++;
  }
  if (Object.hasOwn(m, 'method')) {
    if (typeof m.method !== 'string') return false;
    keys++;
    if (Object.hasOwn(m, 'params')) {
      if (!isPlainBody(m.params)) return false;
      keys++;
    }
  } else if (Object.hasOwn(m, 'result')) {
    if (!Object.hasOwn(m, 'id') || !isPlainBody(m.result)) return false;
    keys++;
  } else if (Object.hasOwn(m, 'error')) {
    if (!isPlainError(m.error)) return false;
    keys++;
  } else return false;
  // Any key besides the ones read above (the schemas are strict) is the schema's to judge.
  return Object.keys(m).length === keys;
}

function isPlainError(e: unknown): boolean {
  if (!isObject(e) || !Number.isSafeInteger(e.code) || typeof e.message !== 'string') return false;
  return Object.keys(e).length === (Object.hasOwn(e, 'data') ? 3 : 2);
}
