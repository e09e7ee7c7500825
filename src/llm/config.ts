import { z } from 'zod';

/**
 * The `llm:` section of the proxy configuration: one OpenAI-compatible endpoint (OpenAI, Azure, Ollama, vLLM,
 * llama.cpp server) with two chat tiers and an optional embedding model. The API key is never written in the
 * file: `api_key_env` names the environment variable that holds it.
 *
 * @example
 * llm:
 *   base_url: http://127.0.0.1:11434/v1
 *   api_key_env: OPENAI_API_KEY
 *   models: { light: qwen3:4b, strong: qwen3:32b, embedding: nomic-embed-text }
 */
export const LlmModelsSchema = z.strictObject({
  /** Fast model: semantic predicates, threat updates, first-line review of denials. */
  light: z.string().min(1),
  /** Strong model: state expansion, escalated reviews, offline policy compilation. */
  strong: z.string().min(1),
  /** Embedding model for top-k predicate retrieval; absent: the local hashing embedder is used. */
  embedding: z.string().min(1).optional(),
});
export type LlmModels = z.infer<typeof LlmModelsSchema>;

export const LlmConfigSchema = z.strictObject({
  /** The OpenAI-compatible endpoint (…/v1). */
  base_url: z.url({ protocol: /^https?$/, error: 'base_url must be an http(s) URL, e.g. http://127.0.0.1:11434/v1' }).default('http://127.0.0.1:11434/v1'),
  /** Name of the environment variable holding the API key (the key itself never appears in a config file). */
  api_key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'api_key_env is the NAME of an environment variable, not the key')
    .default('OPENAI_API_KEY'),
  /** Model names of the two chat tiers and the optional embedding model. */
  models: LlmModelsSchema,
  /** Bound on one HTTP attempt, and on the wait for a free concurrency slot. */
  timeout_ms: z.number().int().positive().max(600_000).default(8000),
  /** Retries after the first attempt, on 429, 5xx, connection errors and timeouts (never on other 4xx). */
  max_retries: z.number().int().min(0).max(10).default(2),
  /** Requests in flight at once, across both tiers and embeddings. */
  concurrency: z.number().int().positive().max(256).default(4),
  /** Entries of the LRU cache of identical evaluations; 0 disables it. */
  cache_size: z.number().int().min(0).max(1_000_000).default(1000),
});
export type LlmConfig = z.infer<typeof LlmConfigSchema>;
export type LlmConfigInput = z.input<typeof LlmConfigSchema>;

/** Model tiers of the chat client. */
export type LlmTier = 'light' | 'strong';
