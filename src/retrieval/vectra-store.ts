import { LocalIndex } from 'vectra';

/**
 * The only module that touches vectra: a persisted `LocalIndex` of named vectors, tagged with the embedder id
 * and a content hash, and rebuilt when either changes. vectra writes `index.json` into the folder.
 */

/** Id of the reserved item that carries the index's own metadata (embedder id, content hash). */
const META_ID = '__quadguard_index_meta__';

type ItemMeta = Record<string, string | number | boolean>;

/** A named vector to store. */
export interface NamedVector {
  name: string;
  vector: Float32Array;
}

/** A persisted dense vector index over named items. */
export class VectraStore {
  private constructor(private readonly index: LocalIndex<ItemMeta>) {}

  /**
   * Opens the index in `folder`, or (re)builds it when it is missing or was built with another embedder id or
   * content hash. `vectors` is called only when a build is needed.
   */
  static async open(
    folder: string,
    tag: { embedder: string; hash: string },
    vectors: () => Promise<NamedVector[]>,
  ): Promise<{ store: VectraStore; rebuilt: boolean }> {
    const index = new LocalIndex<ItemMeta>(folder);
    if (await index.isIndexCreated()) {
      const meta = await index.getItem(META_ID);
      if (meta?.metadata.embedder === tag.embedder && meta.metadata.hash === tag.hash) {
        return { store: new VectraStore(index), rebuilt: false };
      }
    }
    await index.createIndex({ version: 1, deleteIfExists: true });
    const items = await vectors();
    const dims = items[0]?.vector.length ?? 1;
    await index.beginUpdate();
    try {
      // The meta item has a unit vector so similarity stays finite; queries filter it out by `kind`.
      const unit = new Array<number>(dims).fill(0);
      unit[0] = 1;
      await index.insertItem({ id: META_ID, vector: unit, metadata: { kind: 'meta', ...tag } });
      for (const it of items) {
        await index.insertItem({ id: `p:${it.name}`, vector: Array.from(it.vector), metadata: { kind: 'item', name: it.name } });
      }
      await index.endUpdate();
    } catch (err) {
      index.cancelUpdate();
      throw err;
    }
    return { store: new VectraStore(index), rebuilt: true };
  }

  /** The `k` items most similar (cosine) to `vector`, best first. */
  async query(vector: Float32Array, k: number): Promise<Array<{ name: string; score: number }>> {
    if (k <= 0) return [];
    const results = await this.index.queryItems(Array.from(vector), '', k, { kind: { $eq: 'item' } });
    return results.map((r) => ({ name: String(r.item.metadata.name), score: r.score }));
  }
}
