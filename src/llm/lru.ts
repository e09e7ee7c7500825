/**
 * A small least-recently-used map on top of `Map`'s insertion order. Capacity 0 stores nothing.
 */
export class LruCache<K, V> {
  readonly #capacity: number;
  readonly #map = new Map<K, V>();

  constructor(capacity: number) {
    this.#capacity = Math.max(0, Math.floor(capacity));
  }

  get size(): number {
    return this.#map.size;
  }

  /** The value, marked most recently used; undefined when absent. */
  get(key: K): V | undefined {
    if (!this.#map.has(key)) return undefined;
    const v = this.#map.get(key) as V;
    this.#map.delete(key);
    this.#map.set(key, v);
    return v;
  }

  /** Stores a value, evicting the least recently used entry beyond capacity. */
  set(key: K, value: V): void {
    if (this.#capacity === 0) return;
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.#capacity) {
      const oldest = this.#map.keys().next();
      if (oldest.done) break;
      this.#map.delete(oldest.value);
    }
  }

  clear(): void {
    this.#map.clear();
  }
}
