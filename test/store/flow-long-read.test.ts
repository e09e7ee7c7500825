import { describe, expect, it } from 'vitest';
import { PRINTS_PER_TX } from '../../src/store/flow.js';
import { backends } from './backends.js';

/**
 * A long read's fingerprints are inserted over several transactions on SQLite (one turn of the event loop each), so
 * other sessions are answered meanwhile. What the store promised with one transaction still holds: `recordRead`
 * resolves once every fingerprint is in, `refresh` never takes a read whose fingerprints are not all there, and the
 * same content recorded meanwhile is still kept once. PostgreSQL (one statement) must give the same answers.
 */
const list = backends();
const sqlite = list.filter((b) => b.name === 'sqlite');

const read = (id: string, at: number, server = 'mail') => ({ id, session: 's1', kind: 'tool_result', server, tool: 'read_email', at });
const prints = (n: number, tag = 'h') => Array.from({ length: n }, (_, k) => `${tag}${k}`);

async function count(b: (typeof list)[number], location: string, sql: string): Promise<number> {
  const r = (await b.raw(location, sql)) as Array<{ n: number | string }>;
  return Number(r[0]!.n);
}

describe.each(list)('a long read in the data-flow store ($name)', (b) => {
  it('holds every fingerprint once it resolves, under its digest, and is then refreshed like a short one', async () => {
    const loc = await b.fresh();
    const store = await b.open(loc);
    try {
      const hashes = prints(PRINTS_PER_TX * 5 + 7);
      await store.flow.recordRead('alice', read('r1', 1), hashes, 10_000, 'r:long');
      expect(await count(b, loc, 'SELECT COUNT(*) AS n FROM flow_prints')).toBe(hashes.length);
      expect(await count(b, loc, 'SELECT COUNT(*) AS n FROM flow_reads')).toBe(1);
      const [m] = await store.flow.match('alice', [hashes.at(-1)!, hashes[0]!, 'other'], 5);
      expect(m?.source.id).toBe('r1');
      expect(m?.hashes.sort()).toEqual([hashes[0]!, hashes.at(-1)!].sort());
      expect(await store.flow.refresh('alice', read('r2', 2), 'r:long', 20_000, 5)).toBe(true);
      // Read again after it was refreshed: still one row.
      await store.flow.recordRead('alice', read('r3', 3), hashes, 30_000, 'r:long');
      expect(await count(b, loc, 'SELECT COUNT(*) AS n FROM flow_reads')).toBe(1);
      expect((await store.flow.match('alice', [hashes[3]!], 25_000))[0]?.source.id).toBe('r3');
      expect(await store.flow.sweep(30_000, 100_000)).toBe(1);
      expect(await count(b, loc, 'SELECT COUNT(*) AS n FROM flow_prints')).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('keeps the same content recorded twice at once as one read, named by the later', async () => {
    const loc = await b.fresh();
    const store = await b.open(loc);
    try {
      const hashes = prints(PRINTS_PER_TX * 3);
      await Promise.all([store.flow.recordRead('alice', read('a', 1), hashes, 10_000, 'r:same'), store.flow.recordRead('alice', read('b', 2), hashes, 10_000, 'r:same')]);
      // The copy of the one that finished second expires at once; after a sweep one read and its prints are left.
      await store.flow.sweep(5, 100_000);
      expect(await count(b, loc, 'SELECT COUNT(*) AS n FROM flow_reads')).toBe(1);
      expect(await count(b, loc, 'SELECT COUNT(*) AS n FROM flow_prints')).toBe(hashes.length);
      expect((await store.flow.match('alice', [hashes[7]!], 5)).map((m) => m.source.id)).toHaveLength(1);
      expect(await store.flow.refresh('alice', read('c', 3), 'r:same', 20_000, 5)).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe.each(sqlite)('a long read on SQLite, between its transactions ($name)', (b) => {
  it('lets the event loop run between its transactions, and refresh finds it only once it resolves', async () => {
    const loc = await b.fresh();
    const store = await b.open(loc);
    try {
      const hashes = prints(PRINTS_PER_TX * 8);
      let turns = 0;
      let inMeanwhile = -1;
      let refreshedMeanwhile: boolean | undefined;
      const tick = () => {
        turns++;
        if (turns === 3) {
          // Another session's work between two of its transactions: the read is there in part, not under its digest.
          void count(b, loc, 'SELECT COUNT(*) AS n FROM flow_prints').then((n) => (inMeanwhile = n));
          void store.flow.refresh('alice', read('other', 2), 'r:long', 20_000, 5).then((r) => (refreshedMeanwhile = r));
        }
        if (!done) setImmediate(tick);
      };
      let done = false;
      setImmediate(tick);
      await store.flow.recordRead('alice', read('r1', 1), hashes, 10_000, 'r:long');
      done = true;
      expect(turns).toBeGreaterThanOrEqual(4);
      expect(inMeanwhile).toBeGreaterThan(0);
      expect(inMeanwhile).toBeLessThan(hashes.length);
      expect(refreshedMeanwhile).toBe(false);
      expect(await count(b, loc, 'SELECT COUNT(*) AS n FROM flow_prints')).toBe(hashes.length);
      expect(await store.flow.refresh('alice', read('r2', 3), 'r:long', 20_000, 5)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it("lets the event loop run between a long send's lookup batches, with the answer of one query", async () => {
    const loc = await b.fresh();
    const store = await b.open(loc);
    try {
      const held = prints(1200);
      await store.flow.recordRead('alice', read('r1', 1), held, 10_000, 'r:held');
      // A long send: the 1,200 held among 300 others, over several batches of the lookup.
      const asked = [...prints(150, 'x'), ...held, ...prints(150, 'y')];
      let turns = 0;
      let done = false;
      const tick = () => {
        turns++;
        if (!done) setImmediate(tick);
      };
      setImmediate(tick);
      const matches = await store.flow.match('alice', asked, 5);
      done = true;
      expect(turns).toBeGreaterThanOrEqual(2);
      expect(matches.map((m) => m.source.id)).toEqual(['r1']);
      expect(matches[0]!.hashes.sort()).toEqual([...held].sort());
      // A short lookup is one query: no turn.
      turns = 0;
      done = false;
      setImmediate(tick);
      expect((await store.flow.match('alice', held.slice(0, 100), 5))[0]!.hashes).toHaveLength(100);
      done = true;
      expect(turns).toBe(0);
    } finally {
      await store.close();
    }
  });
});
