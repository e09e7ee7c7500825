import { PassThrough, type Readable, type Writable } from 'node:stream';
import { createInterface } from 'node:readline';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/log.js';

/**
 * Screens newline-delimited JSON-RPC before the SDK sees it: a line that is not JSON gets a -32700 parse error,
 * one that is JSON but not a JSON-RPC message gets -32600 (with its id when it has one), and the proxy keeps
 * serving. (The SDK's own stdio transport would only log and drop such lines, leaving the client waiting.)
 */
export function screenJsonRpcLines(input: Readable, output: Writable, log: Logger): PassThrough {
  const clean = new PassThrough();
  const rl = createInterface({ input, crlfDelay: Infinity });
  const reply = (id: unknown, code: number, message: string) =>
    output.write(`${JSON.stringify({ jsonrpc: '2.0', id: typeof id === 'string' || typeof id === 'number' ? id : null, error: { code, message } })}\n`);
  rl.on('line', (line) => {
    if (line.trim() === '') return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      log.warn('stdio: malformed JSON line from client');
      reply(null, ErrorCode.ParseError, 'Parse error: the line is not valid JSON');
      return;
    }
    if (!JSONRPCMessageSchema.safeParse(msg).success) {
      log.warn('stdio: invalid JSON-RPC message from client');
      const id = typeof msg === 'object' && msg !== null ? (msg as { id?: unknown }).id : undefined;
      reply(id, ErrorCode.InvalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
      return;
    }
    clean.write(`${line}\n`);
  });
  rl.on('close', () => clean.end());
  return clean;
}

/**
 * The stdio server transport on the process's stdin/stdout, with the screen in front. `onEnd` fires once when
 * stdin ends or closes, so the caller can stop every downstream child and exit (no orphans; SDK 1.32 does not).
 */
export function createStdioUpstream(log: Logger, onEnd: () => void, stdin: Readable = process.stdin, stdout: Writable = process.stdout): StdioServerTransport {
  const screened = screenJsonRpcLines(stdin, stdout, log);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  stdin.on('end', end);
  stdin.on('close', end);
  return new StdioServerTransport(screened, stdout);
}
