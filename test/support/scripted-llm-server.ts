import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startedInHook } from './started-in-hook.js';

/**
 * A real OpenAI-compatible HTTP server on 127.0.0.1 for tests: `POST /v1/chat/completions` and
 * `POST /v1/embeddings` in the OpenAI wire format. Tests script the answers, one per call (`script`) or by a
 * matcher (`when`), and assert on every recorded request body. Nothing leaves the machine.
 *
 * @example
 * const llm = await startScriptedLlmServer();
 * llm.script({ content: { delta: 1, reason: 'x' } }, { status: 500 });
 * // … point an LlmClient at llm.baseUrl …
 * expect(llm.chatRequests).toHaveLength(2);
 * await llm.close();
 */

/** What the server answers to one request. */
export type ScriptedReply =
  /** A normal completion; an object is sent as its JSON text. */
  | { content: string | object; usage?: { prompt_tokens: number; completion_tokens: number }; finishReason?: string; delayMs?: number }
  /** A completion whose message carries a `refusal` (content null). */
  | { refusal: string; delayMs?: number }
  /** HTTP 200 with a body that is not JSON at all. */
  | { garbage: string; delayMs?: number }
  /** An HTTP error, e.g. 500, 429 with `retryAfter` seconds, 400 with a message. */
  | { status: number; message?: string; retryAfter?: number; delayMs?: number }
  /** Never answers; the connection stays open until the client aborts or the server closes. */
  | { hang: true }
  /** Embeddings for `/v1/embeddings`. */
  | { embeddings: number[][]; delayMs?: number };

/** One recorded request. */
export interface RecordedRequest {
  path: string;
  body: any;
  headers: Record<string, string | string[] | undefined>;
  at: number;
}

type Matcher = (body: any, path: string) => boolean;
type Responder = ScriptedReply | ((body: any, path: string) => ScriptedReply);

export interface ScriptedLlmServer {
  /** `http://127.0.0.1:<port>/v1`, the client's base URL. */
  baseUrl: string;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** Requests to /v1/chat/completions. */
  readonly chatRequests: RecordedRequest[];
  /** Requests to /v1/embeddings. */
  readonly embeddingRequests: RecordedRequest[];
  /** Highest number of requests open at the same time. */
  readonly maxInFlight: number;
  readonly inFlight: number;
  /** Queues replies for the next calls (any endpoint), first in first out; checked before matchers. */
  script(...replies: ScriptedReply[]): void;
  /** Answers every request `match` accepts with `reply` (a value or a function of the body); first match wins. */
  when(match: Matcher, reply: Responder): void;
  /** Forgets queued replies, matchers and recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

/** A deterministic unit vector for `text` (sha256 of the text, expanded), used when embeddings are not scripted. */
export function deterministicEmbedding(text: string, dims = 8): number[] {
  const out: number[] = [];
  let block = createHash('sha256').update(text).digest();
  for (let i = 0; out.length < dims; i++) {
    if (i > 0 && i % 32 === 0) block = createHash('sha256').update(block).digest();
    out.push(((block[i % 32] ?? 0) - 127.5) / 127.5);
  }
  const norm = Math.hypot(...out) || 1;
  return out.map((x) => x / norm);
}

/** Starts the server on an ephemeral port of 127.0.0.1. */
export async function startScriptedLlmServer(opts: { embeddingDims?: number } = {}): Promise<ScriptedLlmServer> {
  const dims = opts.embeddingDims ?? 8;
  let queue: ScriptedReply[] = [];
  let matchers: Array<{ match: Matcher; reply: Responder }> = [];
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  /**
   * Bumped by `reset`: a request that arrived before it (a test's call still being read when the next test began) is
   * neither recorded nor given the next test's replies.
   */
  let generation = 0;

  const pick = (body: any, path: string): ScriptedReply | undefined => {
    const next = queue.shift();
    if (next) return next;
    for (const m of matchers) if (m.match(body, path)) return typeof m.reply === 'function' ? m.reply(body, path) : m.reply;
    return undefined;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const arrivedIn = generation;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (arrivedIn !== generation) return sendJson(res, 503, { error: { message: 'scripted server: reset while this request was read', type: 'server_error' } });
    const path = (req.url ?? '').split('?')[0] ?? '';
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = undefined;
    }
    requests.push({ path, body, headers: req.headers, at: Date.now() });
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/v1/embeddings')) {
      return sendJson(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'not_found' } });
    }
    const reply = pick(body, path) ?? (path === '/v1/embeddings' ? defaultEmbeddings(body, dims) : undefined);
    if (!reply) return sendJson(res, 500, { error: { message: 'scripted server: no reply scripted for this request', type: 'server_error' } });
    if ('hang' in reply) {
      await new Promise<void>((resolve) => res.on('close', resolve));
      return;
    }
    if (reply.delayMs) {
      const closed = await Promise.race([
        new Promise<boolean>((r) => setTimeout(() => r(false), reply.delayMs)),
        new Promise<boolean>((r) => res.on('close', () => r(true))),
      ]);
      if (closed) return;
    }
    if ('status' in reply) {
      const headers: Record<string, string> = reply.retryAfter !== undefined ? { 'retry-after': String(reply.retryAfter) } : {};
      return sendJson(res, reply.status, { error: { message: reply.message ?? `scripted error ${reply.status}`, type: 'scripted', code: null } }, headers);
    }
    if ('garbage' in reply) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(reply.garbage);
      return;
    }
    if ('embeddings' in reply) return sendJson(res, 200, embeddingBody(reply.embeddings, body?.model));
    const message =
      'refusal' in reply
        ? { role: 'assistant', content: null, refusal: reply.refusal }
        : { role: 'assistant', content: typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content), refusal: null };
    const usage = 'usage' in reply && reply.usage ? reply.usage : { prompt_tokens: 11, completion_tokens: 7 };
    sendJson(res, 200, {
      id: `chatcmpl-${requests.length}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body?.model ?? 'scripted',
      choices: [{ index: 0, message, finish_reason: ('finishReason' in reply && reply.finishReason) || 'stop', logprobs: null }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
  };

  const server: Server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let counted = true;
    const done = (): void => {
      if (counted) inFlight--;
      counted = false;
    };
    res.on('close', done);
    handle(req, res).catch((err) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(err) } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get chatRequests() {
      return requests.filter((r) => r.path === '/v1/chat/completions');
    },
    get embeddingRequests() {
      return requests.filter((r) => r.path === '/v1/embeddings');
    },
    get maxInFlight() {
      return maxInFlight;
    },
    get inFlight() {
      return inFlight;
    },
    script(...replies) {
      queue.push(...replies);
    },
    when(match, reply) {
      matchers.push({ match, reply });
    },
    reset() {
      generation++;
      queue = [];
      matchers = [];
      requests.length = 0;
      maxInFlight = inFlight;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
    },
  };
}

/**
 * The hooks of a `describe` block that uses a scripted server, registered where it is called: `per: 'test'` starts a
 * new server before each test and closes it after; `per: 'block'` starts one for the block, forgets its script and
 * requests after each test (`reset`) and closes it after the block. Returns the server the current test sees (it is
 * started in a hook, so the object forwards to it); hooks the caller registers afterwards run after these.
 *
 * @example
 * const llm = useScriptedLlmServer({ per: 'block' });
 * it('…', () => { llm.script({ content: { ok: true } }); … });
 */
export function useScriptedLlmServer(opts: { per: 'test' | 'block'; embeddingDims?: number }): ScriptedLlmServer {
  let current: ScriptedLlmServer | undefined;
  const start = async () => {
    current = await startScriptedLlmServer(opts.embeddingDims !== undefined ? { embeddingDims: opts.embeddingDims } : {});
  };
  const stop = async () => {
    await current?.close();
    current = undefined;
  };
  if (opts.per === 'test') {
    beforeEach(start);
    afterEach(stop);
  } else {
    beforeAll(start);
    afterEach(() => current?.reset());
    afterAll(stop);
  }
  return startedInHook(() => current, 'the scripted LLM server');
}

function defaultEmbeddings(body: any, dims: number): ScriptedReply | undefined {
  const input: unknown = body?.input;
  const texts = typeof input === 'string' ? [input] : Array.isArray(input) ? input.map(String) : undefined;
  if (!texts) return { status: 400, message: 'input must be a string or an array of strings' };
  const d = typeof body?.dimensions === 'number' ? body.dimensions : dims;
  return { embeddings: texts.map((t) => deterministicEmbedding(t, d)) };
}

function embeddingBody(vectors: number[][], model: unknown): object {
  return {
    object: 'list',
    data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
    model: typeof model === 'string' ? model : 'scripted-embedding',
    usage: { prompt_tokens: vectors.length * 3, total_tokens: vectors.length * 3 },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
