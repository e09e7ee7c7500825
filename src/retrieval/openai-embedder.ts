import { LlmError } from '../core/errors.js';
import type { CallOptions, LlmClient } from '../llm/client.js';
import type { Embedder } from './types.js';

/**
 * An `Embedder` backed by an OpenAI-compatible `/v1/embeddings` endpoint (`llm.models.embedding`), on the model
 * client's request path: the same concurrency slots, per-attempt timeout, retries and usage accounting. Texts are
 * sent in batches; vectors are L2-normalised (the retrieval layer's contract is unit-length vectors), and every
 * vector must have `dims` finite components, else the call fails with `llm_malformed_output`.
 *
 * `dims` is probed with one request when not given, so create it with the async factory.
 *
 * @example
 * const embedder = await createOpenAiEmbedder(client);            // probes dims
 * const [v] = await embedder.embed(['read the file ~/.ssh/id_rsa']);
 */
export interface OpenAiEmbedderOptions {
  /** Vector size, when known (skips the probe). */
  dims?: number;
  /** Texts per request (default 64). */
  batchSize?: number;
  /** Signal and meter applied to every request this embedder sends (e.g. the index build's). */
  call?: CallOptions;
}

export class OpenAiEmbedder implements Embedder {
  readonly id: string;
  readonly dims: number;
  readonly #client: LlmClient;
  readonly #batchSize: number;
  readonly #call: CallOptions;

  constructor(client: LlmClient, dims: number, options: Omit<OpenAiEmbedderOptions, 'dims'> = {}) {
    const model = client.config.models.embedding;
    if (model === undefined) throw new RangeError('OpenAiEmbedder needs llm.models.embedding');
    if (!Number.isInteger(dims) || dims < 1) throw new RangeError(`embedding dims must be a positive integer, got ${dims}`);
    this.#client = client;
    this.dims = dims;
    this.#batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
    this.#call = options.call ?? {};
    this.id = `openai:${client.config.base_url}#${model}@${dims}`;
  }

  /** Embeds texts in order, `batchSize` per request. Rejects with `LlmError` when the endpoint fails. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.#batchSize) {
      const { vectors } = await this.#client.embed(texts.slice(i, i + this.#batchSize), this.#call);
      for (const v of vectors) out.push(normalize(v, this.dims));
    }
    return out;
  }
}

/** Builds an `OpenAiEmbedder`, probing the vector size with one request when `dims` is not given. */
export async function createOpenAiEmbedder(client: LlmClient, options: OpenAiEmbedderOptions = {}): Promise<OpenAiEmbedder> {
  let dims = options.dims;
  if (dims === undefined) {
    const { vectors } = await client.embed(['dimension probe'], options.call ?? {});
    dims = vectors[0]?.length ?? 0;
    if (dims < 1) throw new LlmError('llm_malformed_output', 'the embedding endpoint returned an empty vector');
  }
  return new OpenAiEmbedder(client, dims, options);
}

function normalize(v: Float32Array, dims: number): Float32Array {
  if (v.length !== dims) throw new LlmError('llm_malformed_output', `embedding has ${v.length} dimensions, expected ${dims}`);
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm === 0) return v; // a zero vector stays zero: similarity 0 to everything
  const out = new Float32Array(dims);
  for (let i = 0; i < dims; i++) out[i] = v[i]! / norm;
  return out;
}
