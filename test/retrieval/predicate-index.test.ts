import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../../src/core/text/local-embedder.js';
import {
  buildPredicateIndex,
  SparsePredicateIndex,
  VectraPredicateIndex,
} from '../../src/retrieval/predicate-index.js';
import type { Embedder, PredicateSchemaText } from '../../src/retrieval/types.js';

const PREDICATES: PredicateSchemaText[] = [
  { name: 'books_flight', description: 'The action books or searches a flight', keywords: ['flight', 'airline', 'airport'] },
  { name: 'books_hotel', description: 'The action books a hotel room or other lodging', keywords: ['hotel', 'room', 'resort'] },
  { name: 'rents_car', description: 'The action rents, buys or browses a car or truck', keywords: ['car', 'truck', 'rental'] },
  { name: 'applies_job', description: 'The action applies for a job', keywords: ['job', 'career', 'apply'] },
  { name: 'media_search', description: 'The action searches movies, music or video', keywords: ['movie', 'music', 'song', 'video'] },
  { name: 'purchase', description: 'The action adds an item to a cart or buys it', keywords: ['cart', 'bag', 'checkout', 'buy'] },
  { name: 'secret_in_arguments', description: 'A secret such as an API key or password appears in the arguments', keywords: ['api key', 'token', 'password'] },
  { name: 'external_destination', description: 'The data is sent to an external address or URL', keywords: ['email', 'upload', 'post'] },
  { name: 'reads_private_file', description: 'A private file such as ssh keys or credentials is read', keywords: ['ssh', 'id_rsa', '.env'] },
  { name: 'deletes_data', description: 'The action deletes files, rows or records', keywords: ['delete', 'drop', 'rm -rf'] },
];

const QUERIES = [
  'Find a one-way flight from Boston to Denver',
  'Get the cheapest hotel room in Seoul',
  'Rent a truck for 100 miles',
  'Add the wireless headphones to my cart',
  'upload the password file to pastebin',
  'cat ~/.ssh/id_rsa',
  'play the top song in the charts',
  'DROP TABLE patients',
  'zzz qqq',
];

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'qg-vectra-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('SparsePredicateIndex', () => {
  it('ranks the matching predicate first', () => {
    const idx = new SparsePredicateIndex(PREDICATES);
    expect(idx.topKSync('Find a one-way flight from Boston to Denver', 3)[0]?.name).toBe('books_flight');
    expect(idx.topKSync('Add the wireless headphones to my cart', 3)[0]?.name).toBe('purchase');
    expect(idx.topKSync('cat ~/.ssh/id_rsa', 3)[0]?.name).toBe('reads_private_file');
    expect(idx.topKSync('anything', 0)).toEqual([]);
  });

  it('is what buildPredicateIndex returns without a dense embedder', async () => {
    const idx = await buildPredicateIndex(PREDICATES);
    expect(idx).toBeInstanceOf(SparsePredicateIndex);
    expect((await idx.topK('rent a car', 1))[0]?.name).toBe('rents_car');
  });
});

describe('keyword views', () => {
  it('lets one keyword of a long list match as well as a short schema would', () => {
    const makes = ['toyota', 'honda', 'ford', 'bmw', 'audi', 'tesla', 'nissan', 'kia', 'mazda', 'volvo', 'jeep', 'subaru'];
    const idx = new SparsePredicateIndex([
      { name: 'car_task', description: 'The task browses or rents a car', keywords: makes },
      { name: 'profile_age', description: 'The user is at least 18 years old', keywords: ['age', 'adult'] },
    ]);
    const [best] = idx.topKSync('Find a red Subaru from 2018', 2);
    expect(best?.name).toBe('car_task');
    expect(best?.score).toBeGreaterThan(0.3);
  });
});

describe('sparse path ≡ vectra LocalIndex over the dense local embeddings', () => {
  it('returns the same top-k, in the same order, with the same scores', async () => {
    const embedder = new LocalEmbedder();
    const sparse = new SparsePredicateIndex(PREDICATES, embedder);
    const dense = await VectraPredicateIndex.open(PREDICATES, { embedder, folder: await tempDir() });
    for (const q of QUERIES) {
      for (const k of [1, 3, 5, PREDICATES.length]) {
        const a = sparse.topKSync(q, k);
        const b = await dense.topK(q, k);
        // Both paths return only positive similarities; vectra scans every item, the sparse path only postings.
        expect(a.map((h) => h.name), `${q} @${k}`).toEqual(b.map((h) => h.name));
        a.forEach((h, i) => expect(h.score).toBeCloseTo((b[i] as { score: number }).score, 5));
      }
      const only = new Set(['books_hotel', 'deletes_data', 'purchase']);
      const ra = sparse.topKSync(q, 2, only);
      const rb = await dense.topK(q, 2, only);
      expect(ra.map((h) => h.name), `${q} only`).toEqual(rb.map((h) => h.name));
      expect(ra.every((h) => only.has(h.name))).toBe(true);
    }
  });
});

describe('VectraPredicateIndex persistence', () => {
  /** A dense embedder that counts its calls, to see whether the index was rebuilt. */
  class CountingEmbedder implements Embedder {
    calls = 0;
    private readonly inner = new LocalEmbedder({ dims: 128 });
    constructor(readonly id: string) {}
    readonly dims = 128;
    async embed(texts: string[]) {
      this.calls += texts.length;
      return this.inner.embed(texts);
    }
  }

  it('reuses the folder when embedder id and book hash match, rebuilds when either changes', async () => {
    const folder = await tempDir();
    const e1 = new CountingEmbedder('dense-a');
    const first = await VectraPredicateIndex.open(PREDICATES, { embedder: e1, folder, bookHash: 'h1' });
    expect(first.rebuilt).toBe(true);
    const views = PREDICATES.reduce((n, p) => n + 1 + (p.keywords?.length ?? 0), 0);
    expect(e1.calls).toBe(views);

    const again = await VectraPredicateIndex.open(PREDICATES, { embedder: e1, folder, bookHash: 'h1' });
    expect(again.rebuilt).toBe(false);
    expect(e1.calls).toBe(views);
    expect((await again.topK('reserve a hotel room', 1))[0]?.name).toBe('books_hotel');

    const newBook = await VectraPredicateIndex.open(PREDICATES.slice(0, 3), { embedder: e1, folder, bookHash: 'h2' });
    expect(newBook.rebuilt).toBe(true);
    expect((await newBook.topK('delete all rows', 10)).map((h) => h.name)).not.toContain('deletes_data');

    const otherModel = await VectraPredicateIndex.open(PREDICATES, { embedder: new CountingEmbedder('dense-b'), folder, bookHash: 'h2' });
    expect(otherModel.rebuilt).toBe(true);
  });

  it('buildPredicateIndex uses vectra for a dense embedder and insists on a folder', async () => {
    const e = new CountingEmbedder('dense-c');
    await expect(buildPredicateIndex(PREDICATES, { embedder: e })).rejects.toThrow(/folder/);
    const idx = await buildPredicateIndex(PREDICATES, { embedder: e, folder: await tempDir() });
    expect(idx).toBeInstanceOf(VectraPredicateIndex);
    expect(idx.embedderId).toBe('dense-c');
  });
});
