import { errorMessage } from '../../core/errors.js';
import { silentLogger, type Logger } from '../../core/log.js';
import type { LlmClient } from '../../llm/client.js';
import { createOpenAiEmbedder } from '../../retrieval/openai-embedder.js';
import type { PredicateIndex } from '../../retrieval/predicate-index.js';
import type { Embedder } from '../../retrieval/types.js';

/**
 * The dense embedder of `llm.models.embedding` (probed once), or `undefined` with a warning when no embedding
 * model is configured or the endpoint fails at start-up: the guard then ranks with the local hashing embedder.
 */
export async function createModelEmbedder(client: LlmClient, logger: Logger = silentLogger()): Promise<Embedder | undefined> {
  if (client.config.models.embedding === undefined) return undefined;
  try {
    return await createOpenAiEmbedder(client);
  } catch (err) {
    logger.warn({ mod: 'guard-model', err: errorMessage(err) }, 'embedding model unavailable at start-up; falling back to the local embedder for top-k');
    return undefined;
  }
}

/**
 * Wraps a predicate index so that a failed query (embedding endpoint down or slow) returns no hits, with a
 * warning: the tracker then evaluates the must-check set only, and the interaction is still decided.
 */
export function resilientIndex(index: PredicateIndex, logger: Logger = silentLogger()): PredicateIndex {
  return {
    embedderId: index.embedderId,
    async topK(text, k, only) {
      try {
        return await index.topK(text, k, only);
      } catch (err) {
        logger.warn({ mod: 'guard-model', err: errorMessage(err) }, 'top-k retrieval failed; evaluating the must-check predicates only');
        return [];
      }
    },
  };
}
