import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import type { z } from 'zod';
import { ConfigError, LlmError } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/log.js';
import { LlmConfigSchema, type LlmConfig, type LlmConfigInput, type LlmTier } from './config.js';
import { LruCache } from './lru.js';
import { backoffDelay, classifyError, sleep } from './retry.js';
import { Semaphore } from './semaphore.js';
import { parseStructured } from './structured.js';
import { emptyUsage, sumUsage, type LlmUsage, type UsageMeter } from './usage.js';

/**
 * The OpenAI-compatible model client of the guard: two chat tiers (`light`, `strong`) and embeddings, behind one
 * request path with
 * - a timeout per attempt (`timeout_ms`) combined with the caller's AbortSignal (the guard's deadline);
 * - bounded retries (`max_retries`) with exponential back-off and jitter on 429, 5xx, connection errors and
 *   timeouts, never on 400 (see retry.ts);
 * - a concurrency limit (`concurrency`) shared by every request;
 * - an LRU cache of identical evaluations (`cache_size`; key: tier + model + hash of prompt, schema tag and
 *   max_tokens), holding only answers that parsed and validated;
 * - accounting per call (`LlmUsage`), aggregated per interaction with a `UsageMeter`.
 *
 * Requests are deterministic and tool-less: temperature 0, a small `max_tokens`, `response_format:
 * json_object`, and never a `tools` field. JSON mode fallback: if the endpoint answers 400 naming
 * `response_format` (several llama.cpp / vLLM builds do), the same attempt is re-sent once without it and the
 * model is remembered as lacking JSON mode; the answer must still parse and validate, so nothing is guessed.
 *
 * API key: read from the environment variable `api_key_env`, never from the file. When it is unset and the
 * endpoint is on loopback (127.0.0.0/8, ::1, localhost: Ollama, llama.cpp, vLLM on this host), a fixed dummy key
 * is sent, since those servers ignore it; for any other host a missing key is a `ConfigError` at construction,
 * so a misconfigured proxy fails at start-up rather than on the first interaction.
 */

/** Dummy bearer token sent to loopback endpoints when no key is configured. */
export const LOCAL_DUMMY_API_KEY = 'sk-quadguard-local-no-key';

/** Everything besides the config file that shapes a client; all optional. */
export interface LlmClientOptions {
  /** Environment to read `api_key_env` from (default `process.env`). */
  env?: Record<string, string | undefined>;
  logger?: Logger;
  /** First back-off step (default 250 ms); doubled per retry. */
  retryBaseMs?: number;
  /** Cap on one back-off wait, server retry-after included (default 5000 ms). */
  retryMaxMs?: number;
  /** Jitter source in [0, 1) (default Math.random); tests pin it. */
  random?: () => number;
}

/** Per-call options. */
export interface CallOptions {
  /** The guard's deadline or cancellation; aborting rejects with `llm_aborted` at once. */
  signal?: AbortSignal;
  /** Receives this call's usage, failed calls included. */
  meter?: UsageMeter;
}

/** One chat evaluation: a fixed system prompt and a user message built by neutralize.ts. */
export interface ChatRequest {
  tier: LlmTier;
  system: string;
  user: string;
  /** Output budget; outputs are short on purpose (default 400). */
  maxTokens?: number;
  /** Names the expected schema, so that two evaluations with the same prompt but different schemas never share a cache entry. */
  schemaTag: string;
}

/** A validated answer and what it cost. */
export interface JsonResult<T> {
  value: T;
  usage: LlmUsage;
  cached: boolean;
  model: string;
}

interface ChatAnswer {
  content: string | null;
  refusal: string | null;
  finishReason: string | null;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** True when `baseUrl` points at this host. */
export function isLoopbackUrl(baseUrl: string): boolean {
  try {
    return LOOPBACK.test(new URL(baseUrl).hostname);
  } catch {
    return false;
  }
}

/** Resolves the API key per the rule above. */
export function resolveApiKey(config: Pick<LlmConfig, 'base_url' | 'api_key_env'>, env: Record<string, string | undefined>): string {
  const key = env[config.api_key_env];
  if (key !== undefined && key.length > 0) return key;
  if (isLoopbackUrl(config.base_url)) return LOCAL_DUMMY_API_KEY;
  throw new ConfigError(
    'config_llm_api_key_missing',
    `llm.api_key_env: environment variable ${config.api_key_env} is not set, and ${config.base_url} is not a local endpoint; export the key or point base_url at a local server`,
  );
}

/**
 * The model client.
 *
 * @example
 * const client = new LlmClient({ base_url: 'http://127.0.0.1:11434/v1', models: { light: 'qwen3:4b', strong: 'qwen3:32b' } });
 * const { value } = await client.chatJson({ tier: 'light', system, user, schemaTag: 'threat/v1' }, ThreatAnswerSchema, { signal });
 */
export class LlmClient {
  readonly config: LlmConfig;
  readonly #openai: OpenAI;
  readonly #log: Logger;
  readonly #sem: Semaphore;
  readonly #cache: LruCache<string, unknown>;
  readonly #noJsonMode = new Set<string>();
  readonly #retryBaseMs: number;
  readonly #retryMaxMs: number;
  readonly #random: () => number;
  #totals = emptyUsage();

  constructor(config: LlmConfigInput, options: LlmClientOptions = {}) {
    const parsed = LlmConfigSchema.safeParse(config);
    if (!parsed.success) throw new ConfigError('config_invalid', `llm: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    this.config = parsed.data;
    this.#openai = new OpenAI({
      baseURL: this.config.base_url,
      apiKey: resolveApiKey(this.config, options.env ?? process.env),
      organization: null,
      project: null,
      maxRetries: 0, // retries are ours: bounded, jittered, and counted
      timeout: this.config.timeout_ms + 1000, // our per-attempt AbortController fires first
    });
    this.#log = (options.logger ?? silentLogger()).child({ mod: 'llm' });
    this.#sem = new Semaphore(this.config.concurrency);
    this.#cache = new LruCache(this.config.cache_size);
    this.#retryBaseMs = options.retryBaseMs ?? 250;
    this.#retryMaxMs = options.retryMaxMs ?? 5000;
    this.#random = options.random ?? Math.random;
  }

  /** Model name of a tier. */
  model(tier: LlmTier): string {
    return this.config.models[tier];
  }

  /** Usage of every call since construction. */
  get totals(): LlmUsage {
    return { ...this.#totals };
  }

  /**
   * Sends one chat evaluation and returns the answer parsed and validated by `schema`. Rejects with `LlmError`:
   * `llm_timeout`, `llm_unavailable`, `llm_refused`, `llm_malformed_output` or `llm_aborted`.
   */
  async chatJson<S extends z.ZodType>(req: ChatRequest, schema: S, opts: CallOptions = {}): Promise<JsonResult<z.output<S>>> {
    const model = this.model(req.tier);
    const maxTokens = req.maxTokens ?? 400;
    const key = `${req.tier}\u0000${model}\u0000${sha256([req.schemaTag, String(maxTokens), req.system, req.user].join('\u0000'))}`;
    const hit = this.#cache.get(key);
    if (hit !== undefined) {
      const usage = { ...emptyUsage(), cacheHits: 1 };
      this.#account(usage, opts);
      return { value: structuredClone(hit) as z.output<S>, usage, cached: true, model };
    }
    const what = `${req.tier} model ${model}`;
    const { value: answer, usage } = await this.#run(what, opts, async (signal, u) => {
      const jsonMode = !this.#noJsonMode.has(model);
      try {
        return await this.#chatOnce(model, req, maxTokens, jsonMode, signal, u);
      } catch (err) {
        if (!jsonMode || !(err instanceof OpenAI.BadRequestError) || !/response_format|json_object|json mode/i.test(err.message)) throw err;
        this.#noJsonMode.add(model);
        this.#log.warn({ model }, 'endpoint rejects response_format json_object; continuing without JSON mode');
        return await this.#chatOnce(model, req, maxTokens, false, signal, u);
      }
    });
    let value: z.output<S>;
    try {
      if (answer.finishReason === 'content_filter') throw new LlmError('llm_refused', `${what}: answer withheld by the endpoint's content filter`);
      value = parseStructured(answer.content, schema, answer.refusal);
    } catch (err) {
      usage.failures = 1;
      this.#account(usage, opts);
      throw err;
    }
    this.#account(usage, opts);
    this.#cache.set(key, structuredClone(value));
    return { value, usage, cached: false, model };
  }

  /**
   * Embeds texts with `models.embedding` on the same path (slot, timeout, retries). One request per call; batch
   * with the embedder. Rejects with `LlmError` like `chatJson`, or `ConfigError` when no embedding model is set.
   */
  async embed(texts: string[], opts: CallOptions = {}): Promise<{ vectors: Float32Array[]; usage: LlmUsage; model: string }> {
    const model = this.config.models.embedding;
    if (model === undefined) throw new ConfigError('config_llm_no_embedding_model', 'llm.models.embedding is not set');
    const what = `embedding model ${model}`;
    const { value, usage } = await this.#run(what, opts, async (signal, u) => {
      const res = await this.#openai.embeddings.create({ model, input: texts, encoding_format: 'float' }, { signal });
      u.promptTokens += res.usage?.prompt_tokens ?? 0;
      return res;
    });
    try {
      const data = Array.isArray(value?.data) ? [...value.data] : [];
      if (data.length !== texts.length) throw new LlmError('llm_malformed_output', `${what}: ${data.length} embeddings for ${texts.length} texts`);
      data.sort((a, b) => a.index - b.index);
      const vectors = data.map((d, i) => {
        if (d.index !== i || !Array.isArray(d.embedding) || !d.embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
          throw new LlmError('llm_malformed_output', `${what}: embedding ${i} is missing or not a list of numbers`);
        }
        return Float32Array.from(d.embedding);
      });
      this.#account(usage, opts);
      return { vectors, usage, model };
    } catch (err) {
      usage.failures = 1;
      this.#account(usage, opts);
      throw err;
    }
  }

  async #chatOnce(model: string, req: ChatRequest, maxTokens: number, jsonMode: boolean, signal: AbortSignal, u: LlmUsage): Promise<ChatAnswer> {
    const res = await this.#openai.chat.completions.create(
      {
        model,
        messages: [
          { role: 'system', content: req.system },
          { role: 'user', content: req.user },
        ],
        temperature: 0,
        max_tokens: maxTokens,
        ...(jsonMode ? { response_format: { type: 'json_object' as const } } : {}),
      },
      { signal },
    );
    u.promptTokens += res.usage?.prompt_tokens ?? 0;
    u.completionTokens += res.usage?.completion_tokens ?? 0;
    const choice = Array.isArray(res?.choices) ? res.choices[0] : undefined;
    if (!choice || typeof choice.message !== 'object' || choice.message === null) {
      throw new LlmError('llm_malformed_output', `model ${model}: response has no choices[0].message`);
    }
    return { content: choice.message.content ?? null, refusal: choice.message.refusal ?? null, finishReason: choice.finish_reason ?? null };
  }

  /** The shared request path: slot, per-attempt timeout, retries with back-off, usage. */
  async #run<T>(what: string, opts: CallOptions, attempt: (signal: AbortSignal, u: LlmUsage) => Promise<T>): Promise<{ value: T; usage: LlmUsage }> {
    const started = performance.now();
    const usage = emptyUsage();
    const caller = opts.signal;
    const fail = (err: unknown): never => {
      usage.failures = 1;
      usage.ms = Math.round(performance.now() - started);
      this.#account(usage, opts);
      throw err;
    };
    const aborted = (cause: unknown): LlmError => new LlmError('llm_aborted', `${what}: aborted by the caller`, { cause });
    let release: () => void;
    try {
      release = await this.#sem.acquire(caller, this.config.timeout_ms);
    } catch (err) {
      return fail(err instanceof LlmError ? err : aborted(err));
    }
    try {
      for (let n = 0; ; n++) {
        const ctrl = new AbortController();
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          ctrl.abort(new LlmError('llm_timeout', `${what}: no answer within ${this.config.timeout_ms} ms`));
        }, this.config.timeout_ms);
        const onAbort = (): void => ctrl.abort(caller?.reason);
        if (caller?.aborted) onAbort();
        caller?.addEventListener('abort', onAbort, { once: true });
        usage.calls++;
        try {
          const value = await attempt(ctrl.signal, usage);
          usage.ms = Math.round(performance.now() - started);
          return { value, usage };
        } catch (err) {
          const c = classifyError(err, { timedOut, callerAborted: caller?.aborted === true, timeoutMs: this.config.timeout_ms, what });
          if (!c.retryable || n >= this.config.max_retries) return fail(c.error);
          const wait = backoffDelay(n, { baseMs: this.#retryBaseMs, maxMs: this.#retryMaxMs, random: this.#random, ...(c.retryAfterMs !== undefined ? { retryAfterMs: c.retryAfterMs } : {}) });
          this.#log.warn({ what, attempt: n + 1, code: c.error.code, waitMs: wait }, 'model request failed; retrying');
          usage.retries++;
          try {
            await sleep(wait, caller);
          } catch (e) {
            return fail(aborted(e));
          }
        } finally {
          clearTimeout(timer);
          caller?.removeEventListener('abort', onAbort);
        }
      }
    } finally {
      release();
    }
  }

  #account(u: LlmUsage, opts: CallOptions): void {
    this.#totals = sumUsage(this.#totals, u);
    opts.meter?.add(u);
  }
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}
