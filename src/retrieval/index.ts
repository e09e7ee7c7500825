/** Retrieval: embedders and the top-k index of predicate schemas. vectra stays behind `predicate-index.ts`. */
export type { Embedder, SparseVector, PredicateHit, PredicateSchemaText } from './types.js';
export { LocalEmbedder, LOCAL_EMBEDDER_DEFAULTS } from '../core/text/local-embedder.js';
export type { LocalEmbedderOptions } from '../core/text/local-embedder.js';
export { sparseCosine, sparseDot, sparseToDense } from '../core/text/sparse.js';
export { normalizeText, stem, stemmedTokens } from '../core/text/features.js';
export {
  buildPredicateIndex,
  predicateSchemaText,
  predicateSchemasHash,
  predicateViews,
  SparsePredicateIndex,
  VectraPredicateIndex,
} from './predicate-index.js';
export type { PredicateIndex, BuildPredicateIndexOptions } from './predicate-index.js';
