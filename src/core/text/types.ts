/** Contracts shared by the text tools of the core layer and the retrieval layer above it. */

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
