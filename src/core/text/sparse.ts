import type { SparseVector } from './types.js';

/** Operations on sparse vectors (sorted index arrays with parallel weights). */

/** Sparse vector from an index→weight map: zeros dropped, indices sorted. */
export function sparseFromMap(map: Map<number, number>): SparseVector {
  // A typed array sorts numbers natively, without a comparator call per comparison.
  const keys = new Float64Array(map.size);
  let n = 0;
  for (const [i, v] of map) if (v !== 0) keys[n++] = i;
  const sorted = keys.subarray(0, n).sort();
  const indices = new Array<number>(n);
  const values = new Array<number>(n);
  for (let k = 0; k < n; k++) {
    indices[k] = sorted[k] as number;
    values[k] = map.get(sorted[k] as number) as number;
  }
  return { indices, values };
}

/** Euclidean norm. */
export function sparseNorm(v: SparseVector): number {
  let s = 0;
  for (const x of v.values) s += x * x;
  return Math.sqrt(s);
}

/** Dot product by merging the two sorted index lists. */
export function sparseDot(a: SparseVector, b: SparseVector): number {
  let i = 0;
  let j = 0;
  let s = 0;
  while (i < a.indices.length && j < b.indices.length) {
    const ai = a.indices[i] as number;
    const bj = b.indices[j] as number;
    if (ai === bj) s += (a.values[i++] as number) * (b.values[j++] as number);
    else if (ai < bj) i++;
    else j++;
  }
  return s;
}

/** Cosine similarity; 0 when either vector is zero. */
export function sparseCosine(a: SparseVector, b: SparseVector): number {
  const na = sparseNorm(a);
  const nb = sparseNorm(b);
  return na === 0 || nb === 0 ? 0 : sparseDot(a, b) / (na * nb);
}

/** The dense form of a sparse vector. */
export function sparseToDense(v: SparseVector, dims: number): Float32Array {
  const out = new Float32Array(dims);
  v.indices.forEach((idx, k) => {
    out[idx] = v.values[k] as number;
  });
  return out;
}
