import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { LlmClient } from '../../src/llm/client.js';
import { UsageMeter } from '../../src/llm/usage.js';
import { createOpenAiEmbedder, OpenAiEmbedder } from '../../src/retrieval/openai-embedder.js';
import type { Embedder } from '../../src/retrieval/types.js';
import { deterministicEmbedding, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { clientFor } from './helpers.js';

describe('OpenAiEmbedder', () => {
  let llm: ScriptedLlmServer;
  beforeEach(async () => {
    llm = await startScriptedLlmServer({ embeddingDims: 12 });
  });
  afterEach(async () => {
    await llm.close();
  });

  it('probes dims, embeds in batches in order, and returns unit vectors', async () => {
    const meter = new UsageMeter();
    const embedder: Embedder = await createOpenAiEmbedder(clientFor(llm), { batchSize: 2, call: { meter } });
    expect(embedder.dims).toBe(12);
    expect(embedder.id).toBe(`openai:${llm.baseUrl}#embed-m@12`);
    const texts = ['read ~/.ssh/id_rsa', 'send an email', 'post to the blog', 'delete the database', 'hello'];
    const vs = await embedder.embed(texts);
    expect(vs).toHaveLength(5);
    vs.forEach((v, i) => {
      expect(v).toBeInstanceOf(Float32Array);
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
      const want = deterministicEmbedding(texts[i]!, 12);
      want.forEach((x, j) => expect(v[j]).toBeCloseTo(x, 5));
    });
    // One probe, then ceil(5/2) = 3 batches, each with the embedding model.
    expect(llm.embeddingRequests.map((r) => r.body.input)).toEqual([['dimension probe'], texts.slice(0, 2), texts.slice(2, 4), texts.slice(4)]);
    expect(llm.embeddingRequests.every((r) => r.body.model === 'embed-m')).toBe(true);
    expect(meter.total.calls).toBe(4);
  });

  it('normalises scripted vectors and rejects wrong sizes', async () => {
    const embedder = new OpenAiEmbedder(clientFor(llm), 2);
    llm.script({ embeddings: [[3, 4]] });
    expect(Array.from((await embedder.embed(['a']))[0]!)).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    llm.script({ embeddings: [[1, 2, 3]] });
    await expect(embedder.embed(['a'])).rejects.toMatchObject({ code: 'llm_malformed_output' });
    llm.script({ embeddings: [[1, 0]] }); // one vector for two texts
    await expect(embedder.embed(['a', 'b'])).rejects.toMatchObject({ code: 'llm_malformed_output' });
  });

  it('shares the retry and timeout path of the client', async () => {
    llm.script({ status: 500 }, { status: 429, retryAfter: 0 });
    const embedder = new OpenAiEmbedder(clientFor(llm), 12);
    expect(await embedder.embed(['x'])).toHaveLength(1);
    expect(llm.embeddingRequests).toHaveLength(3);
    llm.script({ hang: true });
    const slow = new OpenAiEmbedder(clientFor(llm, { timeout_ms: 150, max_retries: 0 }), 12);
    await expect(slow.embed(['x'])).rejects.toMatchObject({ code: 'llm_timeout' });
  });

  it('needs an embedding model', async () => {
    const client = new LlmClient({ base_url: llm.baseUrl, models: { light: 'l', strong: 's' } }, { env: {} });
    await expect(client.embed(['x'])).rejects.toThrow(ConfigError);
    expect(() => new OpenAiEmbedder(client, 8)).toThrow(/models.embedding/);
  });
});
