import { LocalIndex } from 'vectra';

/**
 * The only module that touches vectra: a persisted `LocalIndex` of named vectors (several per name allowed),
 * tagged with the embedder id and a content hash, and rebuilt when either changes. vectra writes `index.json`
 * into the folder.
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
  private constructor(
    private readonly index: LocalIndex<ItemMeta>,
    /** Number of stored vectors (without the meta item). */
    private readonly size: number,
  ) {}

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
        return { store: new VectraStore(index, Number(meta.metadata.size)), rebuilt: false };
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
      await index.insertItem({ id: META_ID, vector: unit, metadata: { kind: 'meta', ...tag, size: items.length } });
      for (const [j, it] of items.entries()) {
        await index.insertItem({ id: `v${j}`, vector: Array.from(it.vector), metadata: { kind: 'item', name: it.name } });
      }
      await index.endUpdate();
    } catch (err) {
      index.cancelUpdate();
      throw err;
    }
    return { store: new VectraStore(index, items.length), rebuilt: true };
  }

  /**
   * The `k` names whose best vector is most similar (cosine) to `vector`, best first, each with that best score;
   * `only` restricts them to those names.
   */
  async query(vector: Float32Array, k: number, only?: ReadonlySet<string>): Promise<Array<{ name: string; score: number }>> {
    if (k <= 0 || this.size === 0) return [];
    const item = { kind: { $eq: 'item' } };
    const filter = only === undefined ? item : { $and: [item, { name: { $in: [...only] } }] };
    // Every vector is ranked (vectra scans them all anyway), so each name's first hit is its best one.
    const results = await this.index.queryItems(Array.from(vector), '', this.size, filter);
    const out: Array<{ name: string; score: number }> = [];
    const seen = new Set<string>();
    for (const r of results) {
      const name = String(r.item.metadata.name);
      if (seen.has(name)) continue;
      seen.add(name);
      out.push({ name, score: r.score });
      if (out.length === k) break;
    }
    return out;
  }
}
