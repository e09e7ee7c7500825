import { describe, expect, it } from 'vitest';
import { backends } from './backends.js';
import { MIGRATIONS } from '../../src/store/migrations.js';

const list = backends();

/** Fingerprint rows of the store at `location`, counted with raw SQL. */
async function fingerprintRows(b: (typeof list)[number], location: string): Promise<number> {
  const rows = (await b.raw(location, 'SELECT COUNT(*) AS n FROM flow_fingerprints')) as Array<{ n: number | string }>;
  return Number(rows[0]!.n);
}

describe.each(list)('data-flow store growth ($name)', (b) => {
  it('keeps one row per identity, hash and origin: a re-read refreshes it instead of adding rows', async () => {
    const loc = await b.fresh();
    const store = await b.open(loc);
    try {
      const hashes = Array.from({ length: 200 }, (_, n) => `h${n}`);
      for (let read = 0; read < 30; read++) {
        await store.flow.recordRead('alice', { id: `read-${read}`, session: 's1', kind: 'tool_result', server: 'mail', tool: 'read_email', at: 1000 + read }, hashes, 10_000 + read);
      }
      expect(await fingerprintRows(b, loc)).toBe(200);
      // The newest read names the data, and its expiry is the one kept.
      const [m] = await store.flow.match('alice', ['h1'], 10_020);
      expect(m?.source.id).toBe('read-29');
      expect(await store.flow.sweep(10_028)).toBeGreaterThan(0);
      expect(await store.flow.match('alice', ['h1'], 10_028)).toHaveLength(1);
      await store.flow.sweep(10_030);
      expect(await fingerprintRows(b, loc)).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('keeps the same data read from two servers under each, so sending it back to one still matches the other', async () => {
    const loc = await b.fresh();
    const store = await b.open(loc);
    try {
      await store.flow.recordRead('alice', { id: 'from-mail', session: 's1', kind: 'tool_result', server: 'mail', tool: 'read_email', at: 1 }, ['h1', 'h2'], 10_000);
      await store.flow.recordRead('alice', { id: 'from-files', session: 's1', kind: 'tool_result', server: 'files', tool: 'read_file', at: 2 }, ['h1', 'h2'], 10_000);
      await store.flow.recordRead('alice', { id: 'from-bob', session: 's1', kind: 'message', uri: 'agent:bob', at: 3 }, ['h1'], 10_000);
      expect(await fingerprintRows(b, loc)).toBe(5);
      const sources = (await store.flow.match('alice', ['h1', 'h2'], 5)).map((m) => m.source.id).sort();
      expect(sources).toEqual(['from-bob', 'from-files', 'from-mail']);
      // Another identity's reads are not matched.
      expect(await store.flow.match('bob', ['h1'], 5)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe.each(list)('data-flow store migration ($name)', (b) => {
  it('folds the rows an older store kept per read into one per identity, hash and origin, keeping the latest expiry', async () => {
    const loc = await b.fresh();
    (await b.open(loc)).close();
    const step = MIGRATIONS.find((m) => m.name.startsWith('data flow: one fingerprint per identity'))!;
    const script = `DROP TABLE flow_fingerprints;
       CREATE TABLE flow_fingerprints (agent TEXT NOT NULL, hash TEXT NOT NULL, source TEXT NOT NULL, expires BIGINT NOT NULL, PRIMARY KEY (agent, hash, source));
       INSERT INTO flow_sources (id, agent, session, kind, server, tool, uri, at, expires) VALUES
         ('r1', 'alice', 's1', 'tool_result', 'mail', 'read_email', NULL, 1, 500), ('r2', 'alice', 's1', 'tool_result', 'mail', 'read_email', NULL, 2, 900),
         ('r3', 'alice', 's1', 'message', NULL, NULL, 'agent:bob', 3, 700);
       INSERT INTO flow_fingerprints (agent, hash, source, expires) VALUES
         ('alice', 'h1', 'r1', 500), ('alice', 'h1', 'r2', 900), ('alice', 'h2', 'r1', 500), ('alice', 'h1', 'r3', 700);
       ${b.name === 'sqlite' ? step.sqlite : step.postgres}`;
    // The table as the step before wrote it, then the step's own SQL, one statement at a time (the SQLite helper
    // prepares one).
    for (const sql of script.split(';').map((t) => t.trim()).filter(Boolean)) await b.attack(loc, sql);
    const store = await b.open(loc);
    try {
      const rows = (await b.raw(loc, 'SELECT hash, origin, source, expires FROM flow_fingerprints ORDER BY hash, origin')) as Array<Record<string, unknown>>;
      expect(rows.map((r) => [r.hash, r.origin, r.source, Number(r.expires)])).toEqual([
        ['h1', 'agent:bob', 'r3', 700],
        ['h1', 'mail', 'r2', 900],
        ['h2', 'mail', 'r1', 500],
      ]);
      expect((await store.flow.match('alice', ['h2'], 100)).map((m) => m.source.id)).toEqual(['r1']);
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
