import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/log.js';
import { tryReadMessage } from './jsonrpc-shape.js';

/** Default cap of one stdio message (bytes); below the SDK's own 10 MiB read buffer, which dies when exceeded. */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** The request id, when the head of an oversized line shows one (`{"jsonrpc":"2.0","id":7,…`). */
function idFromHead(head: string): string | number | null {
  const m = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")/.exec(head);
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as string | number;
  } catch {
    return null;
  }
}

/**
 * Screens newline-delimited JSON-RPC before the SDK sees it: a line that is not JSON gets a -32700 parse error,
 * one that is JSON but not a JSON-RPC message gets -32600 (with its id when it has one), and a line longer than
 * `maxBytes` gets -32600 at once and is discarded up to its newline. The proxy keeps serving in every case. (The
 * SDK's own stdio transport would only log and drop bad lines, and stops reading for good past 10 MiB.)
 *
 * A message that passes is handed to `deliver` as the schema read it, which is what the SDK's stdio transport makes
 * of the line (`JSONRPCMessageSchema.parse(JSON.parse(line))`, without zod for a plain message: jsonrpc-shape.ts): each line is
 * parsed and validated once, not once here and again by the SDK. Returns the function that stops reading `input`.
 */
export function screenJsonRpcLines(input: Readable, output: Writable, log: Logger, deliver: (message: JSONRPCMessage) => void, maxBytes = DEFAULT_MAX_MESSAGE_BYTES): () => void {
  const reply = (id: unknown, code: number, message: string) =>
    output.write(`${JSON.stringify({ jsonrpc: '2.0', id: typeof id === 'string' || typeof id === 'number' ? id : null, error: { code, message } })}\n`);
  const onLine = (line: string) => {
    if (line.trim() === '') return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      log.warn('stdio: malformed JSON line from client');
      reply(null, ErrorCode.ParseError, 'Parse error: the line is not valid JSON');
      return;
    }
    const read = tryReadMessage(msg);
    if (read === undefined) {
      log.warn('stdio: invalid JSON-RPC message from client');
      const id = typeof msg === 'object' && msg !== null ? (msg as { id?: unknown }).id : undefined;
      reply(id, ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    deliver(read);
  };

  let parts: Buffer[] = [];
  let size = 0;
  let discarding = false;
  const onData = (chunk: Buffer | string) => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (;;) {
      const nl = buf.indexOf(0x0a);
      const piece = nl < 0 ? buf : buf.subarray(0, nl);
      if (!discarding) {
        if (size + piece.length > maxBytes) {
          const head = Buffer.concat([...parts, piece]).subarray(0, 1024).toString('utf8');
          log.warn({ limit: maxBytes }, 'stdio: oversized message from client, discarded');
          reply(idFromHead(head), ErrorCode.InvalidRequest, `Invalid Request: the message is larger than the ${maxBytes}-byte limit (limits.max_message_bytes) and was discarded`);
          discarding = true;
          parts = [];
          size = 0;
        } else {
          parts.push(piece);
          size += piece.length;
        }
      }
      if (nl < 0) return;
      if (!discarding) onLine(Buffer.concat(parts).toString('utf8').replace(/\r$/, ''));
      parts = [];
      size = 0;
      discarding = false;
      buf = buf.subarray(nl + 1);
    }
  };
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    if (!discarding && size > 0) onLine(Buffer.concat(parts).toString('utf8').replace(/\r$/, ''));
    parts = [];
    size = 0;
  };
  input.on('data', onData);
  input.on('end', finish);
  input.on('close', finish);
  return () => {
    input.off('data', onData);
    input.off('end', finish);
    input.off('close', finish);
  };
}

/**
 * The MCP server transport on stdin/stdout, with the screen in front: what the SDK's `StdioServerTransport` does
 * (one JSON message a line each way; a write that fills the pipe waits for `drain`), reading each line once.
 */
class ScreenedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private stop: (() => void) | undefined;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly log: Logger,
    private readonly maxMessageBytes: number,
  ) {}

  async start(): Promise<void> {
    if (this.stop) throw new Error('the stdio transport is already started');
    this.stdin.on('error', this.onStdinError);
    this.stop = screenJsonRpcLines(this.stdin, this.stdout, this.log, (m) => {
      try {
        this.onmessage?.(m);
      } catch (err) {
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      }
    }, this.maxMessageBytes);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.stop?.();
    this.stdin.off('error', this.onStdinError);
    // Stop reading stdin unless someone else still listens to it (as the SDK's transport does).
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.onclose?.();
  }

  private readonly onStdinError = (err: Error): void => this.onerror?.(err);
}

/**
 * The stdio server transport on the process's stdin/stdout, with the screen in front. `onEnd` fires once when
 * stdin ends or closes, so the caller can stop every downstream child and exit (no orphans; SDK 1.32 does not).
 */
export function createStdioUpstream(
  log: Logger,
  onEnd: () => void,
  maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
  stdin: Readable = process.stdin,
  stdout: Writable = process.stdout,
): Transport {
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  stdin.on('end', end);
  stdin.on('close', end);
  return new ScreenedStdioTransport(stdin, stdout, log, maxMessageBytes);
}
