import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { readMessage } from './jsonrpc-shape.js';

/**
 * The SDK's `ReadBuffer` (shared/stdio.js: a downstream server's stdout cut into JSON-RPC messages), reading each
 * chunk once. The SDK's copies everything buffered into a new Buffer at every chunk and searches it again from its
 * start, so a line of n bytes arriving in 64 KiB chunks is copied and searched n / 64 KiB times (a 10 MB result:
 * ~800 MB copied); and it runs the four message schemas over every line (`deserializeMessage`). This keeps the
 * chunks and searches each once, joins a line once, and reads it with `readMessage` (zod only for an unusual shape).
 * What it returns and throws is the SDK's: the same messages, the same errors for a line that is not JSON or not a
 * message (the line is consumed first, so the transport reports it and reads on), the same size limit and error.
 * Compared with the SDK's on random chunkings in test/proxy/stdio-lines.test.ts.
 */
export class LineReadBuffer extends ReadBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Chunks at the front already searched for a newline (none had one). */
  private searched = 0;

  constructor(private readonly maxBytes = STDIO_DEFAULT_MAX_BUFFER_SIZE) {
    super({ maxBufferSize: maxBytes });
  }

  override append(chunk: Buffer): void {
    if (this.size + chunk.length > this.maxBytes) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBytes} bytes`);
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  override readMessage(): JSONRPCMessage | null {
    for (; this.searched < this.chunks.length; this.searched++) {
      const last = this.chunks[this.searched]!;
      const nl = last.indexOf(0x0a);
      if (nl < 0) continue;
      const bytes = this.searched === 0 ? last.subarray(0, nl) : Buffer.concat([...this.chunks.slice(0, this.searched), last.subarray(0, nl)]);
      const rest = last.subarray(nl + 1);
      this.chunks = rest.length > 0 ? [rest, ...this.chunks.slice(this.searched + 1)] : this.chunks.slice(this.searched + 1);
      this.size -= bytes.length + 1;
      this.searched = 0;
      return readMessage(JSON.parse(bytes.toString('utf8').replace(/\r$/, '')));
    }
    return null;
  }

  override clear(): void {
    this.chunks = [];
    this.size = 0;
    this.searched = 0;
  }
}

/** Gives a (not yet started) SDK stdio client transport the `LineReadBuffer`, with its own size limit. */
export function readLinesOnce(transport: StdioClientTransport, maxBytes?: number): StdioClientTransport {
  (transport as unknown as { _readBuffer: ReadBuffer })._readBuffer = new LineReadBuffer(maxBytes);
  return transport;
}
