/**
 * Contracts of the retrieval layer: embedders turn text into vectors, indexes rank predicate schemas by
 * similarity to an interaction's text (the tracker's TopK, DESIGN §1).
 */

/** Anything that embeds texts into unit-length dense vectors of a fixed size. */
export interface Embedder {
  /** Stable identity of the model and its settings; an index built with another id is rebuilt. */
  id: string;
  dims: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

/**
 * A sparse vector: parallel arrays of strictly increasing dimension indices and their weights.
 * Dimensions absent from `indices` are zero.
 */
export interface SparseVector {
  indices: number[];
  values: number[];
}

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
