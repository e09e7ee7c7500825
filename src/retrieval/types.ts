/**
 * Contracts of the retrieval layer: embedders turn text into vectors, indexes rank predicate schemas by
 * similarity to an interaction's text (the tracker's TopK, DESIGN §1).
 */

export type { Embedder, SparseVector } from '../core/text/types.js';

/** One ranked predicate. `score` is the cosine similarity in [-1, 1]. */
export interface PredicateHit {
  name: string;
  score: number;
}

/** What the retrieval index needs to know about a predicate (a subset of the book's predicate schema). */
export interface PredicateSchemaText {
  name: string;
  description: string;
  keywords?: string[];
}
