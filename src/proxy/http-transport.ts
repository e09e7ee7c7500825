import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type MessageExtraInfo, type RequestId, type RequestInfo } from '@modelcontextprotocol/sdk/types.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isInitialize, isRequestMessage, isResponseMessage, readMessage } from './jsonrpc-shape.js';
import { jsonPieces } from './json-pieces.js';

/** As the SDK's transport: the most messages one POSTed batch may hold, and the SSE keep-alive interval. */
const MAX_BATCH_SIZE = 100;
const KEEP_ALIVE_MS = 15_000;
/**
 * How long a POST's SSE head waits for the first event to go out with it (one write for the ordinary call instead of
 * the SDK's head, event and end). A call still running then gets its head alone, so a client or a load balancer
 * waiting for the first byte hears from the proxy within this time, as it did with the SDK's transport at once.
 */
const HEAD_WAIT_MS = 1_000;
const STANDALONE = '_GET_stream';

export interface NodeStreamableHttpOptions {
  /** Makes the session id at initialize; absent: stateless (one transport per request, no session checks). */
  sessionIdGenerator?: () => string;
  onsessioninitialized?: (sessionId: string) => void | Promise<void>;
  onsessionclosed?: (sessionId: string) => void | Promise<void>;
}

/** One SSE stream: a POST's (its requests' answers) or the session's GET stream. */
interface Stream {
  key: string;
  res: ServerResponse;
  /** The requests of a POST whose answers end the stream. */
  ids: RequestId[];
  keepAlive: NodeJS.Timeout | undefined;
  /** The client went away before the stream ended. */
  gone: boolean;
  /** Something was written (the head went with it; `headersSent` is true as soon as the head is set). */
  wrote: boolean;
  /** Writes still going out a piece per turn (a long event, and whatever was written or ended after it), in order. */
  queue?: Promise<void> | undefined;
}

/**
 * The server side of MCP's Streamable HTTP on Node's own `req`/`res`, behaving as the SDK's
 * `StreamableHTTPServerTransport` (1.32) does without an event store and with SSE answers, which is how the proxy
 * uses it: the same status codes, JSON-RPC error bodies, headers, session and protocol-version checks, batches and
 * SSE framing. The SDK's builds a Web `Request`, `Response` and `ReadableStream` per POST and runs zod over every
 * message it receives and sends; this one writes each SSE event to the response directly (a one-request POST whose
 * answer is ready is written in one go) and reads messages with `readMessage`.
 */
export class NodeStreamableHttpTransport implements Transport {
  sessionId: string | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  private readonly opts: NodeStreamableHttpOptions;
  private readonly streams = new Map<string, Stream>();
  private readonly requestToStream = new Map<RequestId, string>();
  private readonly responses = new Map<RequestId, JSONRPCMessage>();
  private nextStream = 0;
  private started = false;
  private handled = false;
  private initialized = false;
  private closed = false;

  constructor(opts: NodeStreamableHttpOptions = {}) {
    this.opts = opts;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('Transport already started');
    this.started = true;
  }

  /** Answers one HTTP request to the MCP endpoint; `parsedBody` is the POST's JSON body, already read. */
  async handleRequest(req: IncomingMessage & { auth?: MessageExtraInfo['authInfo'] }, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    if (this.closed) return writeError(res, 404, -32001, 'Session not found');
    if (!this.opts.sessionIdGenerator && this.handled) {
      throw new Error('Stateless transport cannot be reused across requests. Create a new transport per request.');
    }
    this.handled = true;
    switch (req.method) {
      case 'POST':
        return this.post(req, res, parsedBody);
      case 'GET':
        return this.get(req, res);
      case 'DELETE':
        return this.delete(req, res);
      default:
        this.onerror?.(new Error('Method not allowed.'));
        return writeJson(res, 405, { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }, { Allow: 'GET, POST, DELETE' });
    }
  }

  private async post(req: IncomingMessage & { auth?: MessageExtraInfo['authInfo'] }, res: ServerResponse, parsedBody: unknown): Promise<void> {
    const accept = req.headers.accept;
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return this.fail(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!isJsonContentType(headerOf(req, 'content-type'))) {
      return this.fail(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    if (parsedBody === undefined) return this.fail(res, 400, -32700, 'Parse error: Invalid JSON');
    if (Array.isArray(parsedBody) && parsedBody.length > MAX_BATCH_SIZE) {
      return this.fail(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
    }
    let messages: JSONRPCMessage[];
    try {
      messages = Array.isArray(parsedBody) ? parsedBody.map(readMessage) : [readMessage(parsedBody)];
    } catch {
      return this.fail(res, 400, -32700, 'Parse error: Invalid JSON-RPC message');
    }
    const init = messages.find(isInitialize);
    if (init) {
      if (this.initialized && this.sessionId !== undefined) return this.fail(res, 400, -32600, 'Invalid Request: Server already initialized');
      if (messages.length > 1) return this.fail(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = this.opts.sessionIdGenerator?.();
      this.initialized = true;
      if (this.sessionId && this.opts.onsessioninitialized) await this.opts.onsessioninitialized(this.sessionId);
    } else if (!this.sessionValid(req, res) || !this.versionValid(req, res)) return undefined;
    // close() may have run while onsessioninitialized was awaited.
    if (this.closed) return writeError(res, 404, -32001, 'Session not found');

    const extra: MessageExtraInfo = req.auth === undefined ? { requestInfo: requestInfoOf(req) } : { authInfo: req.auth, requestInfo: requestInfoOf(req) };
    if (!messages.some(isRequestMessage)) {
      for (const m of messages) this.onmessage?.(m, extra);
      res.writeHead(202).end();
      return undefined;
    }
    const streamId = String(this.nextStream++);
    const stream: Stream = { key: streamId, res, ids: [], keepAlive: undefined, gone: false, wrote: false };
    for (const m of messages) {
      if (!isRequestMessage(m)) continue;
      const id = (m as { id: RequestId }).id;
      stream.ids.push(id);
      this.requestToStream.set(id, streamId);
    }
    this.streams.set(streamId, stream);
    // Set, not written: the head goes with the first event, and a failure below can still answer 400.
    const head = this.sseHeaders();
    for (const [name, value] of Object.entries(head)) res.setHeader(name, value!);
    res.on('close', () => {
      if (res.writableEnded) return;
      stream.gone = true;
      clearInterval(stream.keepAlive);
      if (this.streams.get(streamId) === stream) this.streams.delete(streamId);
    });
    try {
      for (const m of messages) this.onmessage?.(m, extra);
    } catch (error) {
      // As the SDK: a failure while handing the messages over releases the stream and answers 400.
      this.streams.delete(streamId);
      for (const id of stream.ids) this.requestToStream.delete(id);
      this.onerror?.(error as Error);
      if (stream.wrote) return void res.end();
      for (const name of Object.keys(head)) res.removeHeader(name);
      writeJson(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error', data: String(error) }, id: null });
      return undefined;
    }
    // Answers that came while the messages were handed over have ended the stream already.
    if (this.streams.get(streamId) === stream) stream.keepAlive = this.headWait(stream);
    return undefined;
  }

  private async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!req.headers.accept?.includes('text/event-stream')) return this.fail(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    if (!this.sessionValid(req, res) || !this.versionValid(req, res)) return undefined;
    if (this.streams.has(STANDALONE)) return this.fail(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    const stream: Stream = { key: STANDALONE, res, ids: [], keepAlive: undefined, gone: false, wrote: false };
    this.streams.set(STANDALONE, stream);
    res.writeHead(200, this.sseHeaders());
    // Node sends the head with the first write; a GET stream may wait long for its first event.
    res.flushHeaders();
    res.on('close', () => {
      stream.gone = true;
      clearInterval(stream.keepAlive);
      if (this.streams.get(STANDALONE) === stream) this.streams.delete(STANDALONE);
    });
    stream.keepAlive = this.keepAlive(stream);
    return undefined;
  }

  private async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.sessionValid(req, res) || !this.versionValid(req, res)) return undefined;
    try {
      if (this.sessionId !== undefined) await this.opts.onsessionclosed?.(this.sessionId);
      res.writeHead(200).end();
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stream of this.streams.values()) this.end(stream);
    this.streams.clear();
    this.responses.clear();
    this.onclose?.();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const response = isResponseMessage(message);
    const requestId = response ? message.id : options?.relatedRequestId;
    if (requestId === undefined) {
      if (response) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      const standalone = this.streams.get(STANDALONE);
      if (standalone) this.write(standalone, message);
      return;
    }
    const streamId = this.requestToStream.get(requestId);
    if (streamId === undefined) throw new Error(`No connection established for request ID: ${String(requestId)}`);
    const stream = this.streams.get(streamId);
    if (!response) {
      if (stream) this.write(stream, message);
      return;
    }
    this.responses.set(requestId, message);
    const related = stream ? stream.ids : this.idsOf(streamId);
    if (!related.every((id) => this.responses.has(id))) {
      if (stream) this.write(stream, message);
      return;
    }
    for (const id of related) {
      this.responses.delete(id);
      this.requestToStream.delete(id);
    }
    if (!stream) throw new Error(`No connection established for request ID: ${String(requestId)}`);
    // The last answer and the stream's end go out in one write.
    this.end(stream, message);
  }

  /** The requests mapped to a stream that is gone (the SDK's reading of its correlations). */
  private idsOf(streamId: string): RequestId[] {
    const ids: RequestId[] = [];
    for (const [id, s] of this.requestToStream) if (s === streamId) ids.push(id);
    return ids;
  }

  private write(stream: Stream, message: JSONRPCMessage): void {
    if (stream.gone || stream.res.writableEnded) return;
    stream.wrote = true;
    this.emit(stream, message, false);
  }

  private end(stream: Stream, last?: JSONRPCMessage): void {
    clearInterval(stream.keepAlive);
    if (this.streams.get(stream.key) === stream) this.streams.delete(stream.key);
    if (stream.gone || stream.res.writableEnded) return;
    this.emit(stream, last, true);
  }

  /**
   * Writes one event (none: `message` undefined) and ends the stream after it when `end`. An event holding a long
   * string goes out a slice per turn of the event loop (other sessions' calls run between them), and every write or
   * end of the stream after it waits its turn; anything else is written at once, as one write.
   */
  private emit(stream: Stream, message: JSONRPCMessage | undefined, end: boolean): void {
    const pieces = message === undefined ? undefined : jsonPieces(message);
    if (pieces === undefined && stream.queue === undefined) return writeWhole(stream.res, message, end);
    const queued = (stream.queue ?? Promise.resolve()).then(() => writeInTurns(stream, message, pieces, end)).catch((error: unknown) => this.onerror?.(error as Error));
    stream.queue = queued;
    void queued.then(() => {
      if (stream.queue === queued) stream.queue = undefined;
    });
  }

  /** The head alone once HEAD_WAIT_MS passed without an event, then the keep-alive (one timer at a time). */
  private headWait(stream: Stream): NodeJS.Timeout {
    const timer = setTimeout(() => {
      if (stream.gone || stream.res.writableEnded) return;
      if (!stream.wrote) stream.res.flushHeaders();
      stream.keepAlive = this.keepAlive(stream);
    }, HEAD_WAIT_MS);
    timer.unref();
    return timer;
  }

  private keepAlive(stream: Stream): NodeJS.Timeout | undefined {
    if (this.closed) return undefined;
    const timer = setInterval(() => {
      if (stream.gone || stream.res.writableEnded) clearInterval(timer);
      // Not in the middle of an event going out in pieces.
      else if (stream.queue === undefined) stream.res.write(': keepalive\n\n');
    }, KEEP_ALIVE_MS);
    timer.unref();
    return timer;
  }

  private sseHeaders(): OutgoingHttpHeaders {
    // A literal and a key added to it, not a spread of constant headers and a key after it (see call-interactions.ts).
    const head: OutgoingHttpHeaders = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' };
    if (this.sessionId !== undefined) head['mcp-session-id'] = this.sessionId;
    return head;
  }

  /** The session checks of a request after initialize (stateless: none); answers the request when they fail. */
  private sessionValid(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.opts.sessionIdGenerator === undefined) return true;
    if (!this.initialized) return void this.fail(res, 400, -32000, 'Bad Request: Server not initialized'), false;
    const sid = req.headers['mcp-session-id'];
    if (!sid) return void this.fail(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required'), false;
    if (sid !== this.sessionId) return void this.fail(res, 404, -32001, 'Session not found'), false;
    return true;
  }

  private versionValid(req: IncomingMessage, res: ServerResponse): boolean {
    const version = req.headers['mcp-protocol-version'];
    if (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version as string)) return true;
    this.fail(res, 400, -32000, `Bad Request: Unsupported protocol version: ${String(version)} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
    return false;
  }

  /** A refused request: reported to `onerror` and answered with a JSON-RPC error body, as the SDK does. */
  private fail(res: ServerResponse, status: number, code: number, message: string): void {
    this.onerror?.(new Error(message));
    writeError(res, status, code, message);
  }
}

function sseEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** One event (none: `message` undefined) in one write, and the stream's end with it when `end`. */
function writeWhole(res: ServerResponse, message: JSONRPCMessage | undefined, end: boolean): void {
  const text = message === undefined ? undefined : sseEvent(message);
  if (end) res.end(text);
  else res.write(text!);
}

/**
 * One event as `sseEvent` writes it (`pieces`: its JSON in pieces, or undefined: whole), a piece per turn of the event
 * loop, each once the response took the last one (`drain`), then the stream's end when `end`. Stops if the client
 * went away.
 */
async function writeInTurns(stream: Stream, message: JSONRPCMessage | undefined, pieces: Iterable<string> | undefined, end: boolean): Promise<void> {
  const res = stream.res;
  const gone = (): boolean => stream.gone || res.destroyed || res.writableEnded;
  if (gone()) return;
  if (pieces === undefined) return writeWhole(res, message, end);
  res.write('event: message\ndata: ');
  for (const piece of pieces) {
    if (piece.length === 0) continue;
    if (!res.write(piece)) await drained(res);
    // A drain can come in the same turn as the last one's: the next turn, so other sessions' work runs in between.
    await nextTurn();
    if (gone()) return;
  }
  if (end) res.end('\n\n');
  else res.write('\n\n');
}

/** Resolves when `res` takes more writes, or is closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function writeError(res: ServerResponse, status: number, code: number, message: string): void {
  writeJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

function writeJson(res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
}

/** A header as a Web `Headers` reads it: every occurrence, joined (Node keeps only the first of some, Content-Type among them). */
function headerOf(req: IncomingMessage, name: string): string | null {
  let value: string | null = null;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) value = value === null ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}

/** The request's headers and URL for handlers (`extra.requestInfo`), built only if one reads them. */
function requestInfoOf(req: IncomingMessage): RequestInfo {
  let headers: Record<string, string> | undefined;
  let url: URL | undefined;
  return {
    get headers() {
      if (!headers) {
        headers = {};
        const raw = req.rawHeaders;
        for (let i = 0; i < raw.length; i += 2) {
          const k = raw[i]!.toLowerCase();
          headers[k] = headers[k] === undefined ? raw[i + 1]! : `${headers[k]}, ${raw[i + 1]!}`;
        }
      }
      return headers;
    },
    get url() {
      const tls = (req.socket as { encrypted?: boolean }).encrypted === true;
      url ??= new URL(req.url ?? '/', `${tls ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`);
      return url;
    },
  };
}
