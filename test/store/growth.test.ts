import { describe, expect, it } from 'vitest';
import { backends } from './backends.js';
import { MIGRATIONS } from '../../src/store/migrations.js';

const list = backends();

/** Rows of `table` in the store at `location`, counted with raw SQL. */
async function rows(b: (typeof list)[number], location: string, table: 'flow_prints' | 'flow_reads'): Promise<number> {
  const r = (await b.raw(location, `SELECT COUNT(*) AS n FROM ${table}`)) as Array<{ n: number | string }>;
  return Number(r[0]!.n);
}

const mail = (id: string, at: number) => ({ id, session: 's1', kind: 'tool_result', server: 'mail', tool: 'read_email', at });

describe.each(list)('data-flow store growth ($name)', (b) => {
  it('keeps a read once per identity, origin and content: a re-read refreshes its one row, adding none', async () => {
    const loc = await b.fresh();
    const store = await b.open(loc);
    try {
      const hashes = Array.from({ length: 200 }, (_, n) => `h${n}`);
      for (let read = 0; read < 30; read++) await store.flow.recordRead('alice', mail(`read-${read}`, 1000 + read), hashes, 10_000 + read, 'r:text');
      expect(await rows(b, loc, 'flow_prints')).toBe(200);
      expect(await rows(b, loc, 'flow_reads')).toBe(1);
      // The newest read names the data, and its expiry is the one kept.
      const [m] = await store.flow.match('alice', ['h1'], 10_020);
      expect(m?.source.id).toBe('read-29');
      expect(await store.flow.sweep(10_028)).toBe(0);
      expect(await store.flow.match('alice', ['h1'], 10_028)).toHaveLength(1);
      // refresh: one row, only while held.
      expect(await store.flow.refresh('alice', mail('read-30', 1030), 'r:text', 20_000, 10_028)).toBe(true);
      expect(await store.flow.refresh('alice', mail('read-31', 1031), 'r:other', 20_000, 10_028)).toBe(false);
      expect(await store.flow.refresh('alice', { ...mail('read-31', 1031), server: 'files' }, 'r:text', 20_000, 10_028)).toBe(false);
      expect(await store.flow.refresh('bob', mail('read-31', 1031), 'r:text', 20_000, 10_028)).toBe(false);
      expect((await store.flow.match('alice', ['h1'], 19_000))[0]?.source.id).toBe('read-30');
      expect(await store.flow.refresh('alice', mail('read-32', 1032), 'r:text', 30_000, 20_000)).toBe(false);
      expect(await store.flow.sweep(20_000)).toBe(1);
      expect(await rows(b, loc, 'flow_prints')).toBe(0);
      expect(await rows(b, loc, 'flow_reads')).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('keeps the same fingerprints given without a digest once, by the set they make', async () => {
    const loc = await b.fresh();
    const store = await b.open(loc);
    try {
      await store.flow.recordRead('alice', mail('a', 1), ['h1', 'h2'], 10_000);
      await store.flow.recordRead('alice', mail('b', 2), ['h2', 'h1', 'h1'], 10_000);
      await store.flow.recordRead('alice', mail('c', 3), ['h1'], 10_000);
      expect(await rows(b, loc, 'flow_reads')).toBe(2);
      expect(await rows(b, loc, 'flow_prints')).toBe(3);
      expect((await store.flow.match('alice', ['h2'], 5)).map((m) => m.source.id)).toEqual(['b']);
    } finally {
      await store.close();
    }
  });

  it('gives matches earliest read first, ties by read id, whatever order the reads were recorded in', async () => {
    const loc = await b.fresh();
    const store = await b.open(loc);
    try {
      // Three fields of one result: the same time, one read each (their uris name the field); recorded out of order.
      const field = (f: string) => ({ ...mail(`r-${f}`, 7), uri: `mail://inbox/1#${f}` });
      for (const f of ['c', 'a', 'b']) await store.flow.recordRead('alice', field(f), [`h-${f}`, 'shared', `z-${f}`], 10_000);
      await store.flow.recordRead('alice', mail('r-early', 6), ['shared'], 10_000);
      const got = await store.flow.match('alice', ['z-b', 'shared', 'h-c', 'z-a', 'h-a'], 5);
      expect(got.map((m) => m.source.id)).toEqual(['r-early', 'r-a', 'r-b', 'r-c']);
      expect(got.map((m) => m.hashes)).toEqual([['shared'], ['h-a', 'shared', 'z-a'], ['shared', 'z-b'], ['h-c', 'shared']]);
    } finally {
      await store.close();
    }
  });

  it('keeps the same data read from two servers under each, so sending it back to one still matches the other', async () => {
    const loc = await b.fresh();
    const store = await b.open(loc);
    try {
      await store.flow.recordRead('alice', { id: 'from-mail', session: 's1', kind: 'tool_result', server: 'mail', tool: 'read_email', at: 1 }, ['h1', 'h2'], 10_000, 'r:x');
      await store.flow.recordRead('alice', { id: 'from-files', session: 's1', kind: 'tool_result', server: 'files', tool: 'read_file', at: 2 }, ['h1', 'h2'], 10_000, 'r:x');
      await store.flow.recordRead('alice', { id: 'from-bob', session: 's1', kind: 'message', uri: 'agent:bob', at: 3 }, ['h1'], 10_000);
      expect(await rows(b, loc, 'flow_prints')).toBe(5);
      const sources = (await store.flow.match('alice', ['h1', 'h2'], 5)).map((m) => m.source.id).sort();
      expect(sources).toEqual(['from-bob', 'from-files', 'from-mail']);
      // Another identity's reads are not matched.
      expect(await store.flow.match('bob', ['h1'], 5)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('sweeps a bounded amount per call, oldest first, and at least one read', async () => {
    const loc = await b.fresh();
    const store = await b.open(loc);
    try {
      for (let n = 0; n < 5; n++) await store.flow.recordRead('alice', mail(`r${n}`, n), Array.from({ length: 100 }, (_, h) => `h${n}-${h}`), 1000 + n);
      expect(await store.flow.sweep(2000, 250)).toBe(2);
      expect(await store.flow.match('alice', ['h1-0', 'h2-0'], 0)).toHaveLength(1);
      expect(await store.flow.sweep(2000, 10)).toBe(1);
      expect(await store.flow.sweep(2000)).toBe(2);
      expect(await rows(b, loc, 'flow_prints')).toBe(0);
      expect(await store.flow.sweep(2000)).toBe(0);
    } finally {
      await store.close();
    }
  });
});

describe.each(list)('data-flow store migration ($name)', (b) => {
  it('carries an older store\'s unexpired reads over (folded per identity, hash and origin, then one read each) and drops expired ones', async () => {
    const loc = await b.fresh();
    await (await b.open(loc)).close();
    const fold = MIGRATIONS.find((m) => m.name.startsWith('data flow: one fingerprint per identity'))!;
    const once = MIGRATIONS.find((m) => m.name.startsWith('data flow: a read kept once'))!;
    const later = Date.now() + 3_600_000;
    const script = `DROP TABLE flow_prints; DROP TABLE flow_reads;
       CREATE TABLE flow_sources (id TEXT PRIMARY KEY, agent TEXT NOT NULL, session TEXT NOT NULL, kind TEXT NOT NULL, server TEXT, tool TEXT, uri TEXT, at BIGINT NOT NULL, expires BIGINT NOT NULL);
       CREATE TABLE flow_fingerprints (agent TEXT NOT NULL, hash TEXT NOT NULL, source TEXT NOT NULL, expires BIGINT NOT NULL, PRIMARY KEY (agent, hash, source));
       INSERT INTO flow_sources (id, agent, session, kind, server, tool, uri, at, expires) VALUES
         ('r1', 'alice', 's1', 'tool_result', 'mail', 'read_email', NULL, 1, 500), ('r2', 'alice', 's1', 'tool_result', 'mail', 'read_email', NULL, 2, ${later}),
         ('r3', 'alice', 's1', 'message', NULL, NULL, 'agent:bob', 3, ${later});
       INSERT INTO flow_fingerprints (agent, hash, source, expires) VALUES
         ('alice', 'h1', 'r1', 500), ('alice', 'h1', 'r2', ${later}), ('alice', 'h2', 'r1', 500), ('alice', 'h3', 'r2', ${later}), ('alice', 'h1', 'r3', ${later});
       ${b.name === 'sqlite' ? fold.sqlite : fold.postgres}
       ${b.name === 'sqlite' ? once.sqlite : once.postgres}`;
    // The tables as the steps before wrote them, then the steps' own SQL, one statement at a time (the SQLite helper
    // prepares one).
    for (const sql of script.split(';').map((t) => t.trim()).filter(Boolean)) await b.attack(loc, sql);
    const store = await b.open(loc);
    try {
      const reads = (await b.raw(loc, 'SELECT agent, origin, digest, source, expires, prints FROM flow_reads ORDER BY source')) as Array<Record<string, unknown>>;
      expect(reads.map((r) => [r.origin, r.digest, r.source, Number(r.expires), String(r.prints).split(',').sort().join(',')])).toEqual([
        ['mail', 'carried:r2', 'r2', later, 'h1,h3'],
        ['agent:bob', 'carried:r3', 'r3', later, 'h1'],
      ]);
      expect(await rows(b, loc, 'flow_prints')).toBe(3);
      // h2 was only in the expired read: dropped.
      expect(await store.flow.match('alice', ['h2'], Date.now())).toEqual([]);
      expect((await store.flow.match('alice', ['h1', 'h3'], Date.now())).map((m) => [m.source.id, m.hashes.sort()]).sort()).toEqual([
        ['r2', ['h1', 'h3']],
        ['r3', ['h1']],
      ]);
      // A carried read is swept like any other.
      expect(await store.flow.sweep(later + 1)).toBe(2);
      expect(await rows(b, loc, 'flow_prints')).toBe(0);
    } finally {
      await store.close();
    }
  });
});

describe.each(list)('recorded interactions stored once per body ($name)', (b) => {
  it('keeps one body for the same interaction recorded again, and every row still reads it', async () => {
    const loc = await b.fresh();
    const store = await b.open(loc);
    try {
      const read = { agent: 'a', session: 's', profile: {}, kind: 'tool_result', server: 'files', tool: 'read_file', content: [{ type: 'text', text: 'quarterly figures '.repeat(500) }] } as const;
      const ids: number[] = [];
      for (let n = 0; n < 20; n++) {
        ids.push((await store.audit.append({ agent: 'a', session: 's', kind: 'tool_result', server: 'files', tool: 'read_file', decision: 'allow', rules: [], interaction: read as never })).id!);
      }
      const other = (await store.audit.append({ agent: 'a', session: 's', kind: 'tool_result', server: 'files', tool: 'read_file', decision: 'allow', rules: [], interaction: { ...read, content: [{ type: 'text', text: 'other' }] } as never })).id!;
      const count = (await b.raw(loc, 'SELECT COUNT(*) AS n FROM audit_body')) as Array<{ n: number | string }>;
      expect(Number(count[0]!.n)).toBe(2);
      for (const id of [...ids, other]) {
        const rec = await store.audit.interaction(id);
        expect(JSON.parse(rec!.body!).content[0].text).toBe(id === other ? 'other' : 'quarterly figures '.repeat(500));
      }
      expect((await store.audit.verify()).ok).toBe(true);
    } finally {
      await store.close();
    }
  });
});
