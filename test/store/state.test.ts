import { describe, expect, it, vi } from 'vitest';
import { StoreError } from '../../src/core/errors.js';
import { openDatabase, pragma } from '../../src/store/sqlite.js';
import { openStore } from '../../src/store/index.js';
import { BURST_FLUSH_MS, BURST_READ_MS, burstBuckets } from '../../src/store/state.js';
import { backends, warmUp } from './backends.js';
import { tempDir } from './helpers.js';
import { prng } from '../prng.js';

const list = backends();
warmUp(list);

describe.each(list)('guard state ($name)', (b) => {
  it('keeps sticky predicates per session and resets one session only', async () => {
    const s = await b.open(await b.fresh());
    await s.state.setSticky('s1', 'read_private', 'true');
    await s.state.setSticky('s1', 'read_private', 'unknown');
    await s.state.setStickyMany('s1', [['sent_out', 'false'], ['x', 'true']]);
    await s.state.setSticky('s2', 'read_private', 'true');
    expect(await s.state.getSticky('s1')).toEqual(new Map([['read_private', 'unknown'], ['sent_out', 'false'], ['x', 'true']]));
    await s.state.resetSession('s1');
    expect((await s.state.getSticky('s1')).size).toBe(0);
    expect((await s.state.getSticky('s2')).get('read_private')).toBe('true');
    await expect(s.state.setSticky('s1', 'p', 'maybe' as never)).rejects.toThrow();
    await expect(s.state.setStickyMany('s1', [['a', 'true'], ['b', 'nope' as never]])).rejects.toThrow();
    expect((await s.state.getSticky('s1')).size).toBe(0); // all or none
    await s.close();
  });

  it('shares the burst window between replicas: every request counted once, atomically, over a sliding window', async () => {
    const loc = await b.fresh();
    // Two openings of one store (PostgreSQL: two pools, as two replicas; SQLite: one process shares its file).
    const [r1, r2] = [await b.open(loc), await b.open(loc)];
    const now = 1_700_000_000_000;
    const W = 10_000;
    const rates = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? r1 : r2).state.countRequest('flood', now + (i % 7), W, true)));
    // Each request saw a distinct count: none lost, none counted twice, whichever replica took it.
    expect([...rates].sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(await r1.state.countRequest('flood', now, W, false)).toBe(60); // an answer to a request is not counted
    expect(await r2.state.countRequest('other', now, W, true)).toBe(1);
    expect(await r2.state.countRequest('flood', now + 5_000, W, true)).toBe(61);
    // Ten buckets later the first bucket has left the window; its row is swept.
    expect(await r1.state.countRequest('flood', now + 10_500, W, true)).toBe(2);
    await vi.waitFor(async () => expect(await b.raw(loc, "SELECT bucket FROM burst WHERE agent = 'flood'")).toHaveLength(2));
    // A release is a clean slate: the burst that led to it is forgotten with τ.
    await r2.state.setThreat('flood', 0.9, 4);
    await r2.state.release('flood', 'operator');
    expect(await r1.state.countRequest('flood', now + 10_600, W, false)).toBe(0);
    await r1.close();
    await r2.close();
  });

  it('treats an unseen agent as trusted and validates tau and level', async () => {
    const s = await b.open(await b.fresh());
    expect(await s.state.getThreat('new')).toEqual({ agent: 'new', tau: 0, level: 0, quarantined: false, updatedAt: null });
    expect(await s.state.setThreat('a', 0.3, 1)).toMatchObject({ tau: 0.3, level: 1, quarantined: false });
    await expect(s.state.setThreat('a', 1.5, 1)).rejects.toThrow(StoreError);
    await expect(s.state.setThreat('a', 0.5, 5)).rejects.toThrow(/level/);
    await expect(s.state.setThreat('a', Number.NaN, 1)).rejects.toThrow(/tau/);
    await s.close();
  });

  it('persists threat and quarantine across close and reopen, and audits them', async () => {
    const loc = await b.fresh();
    let s = await b.open(loc);
    await s.state.setThreat('mallory', 0.82, 3);
    await s.state.quarantine('mallory', 'prompt injection burst');
    await s.state.setThreat('mallory', 0.9, 4); // a later score does not lift quarantine
    await s.close();
    s = await b.open(loc);
    expect(await s.state.getThreat('mallory')).toMatchObject({ tau: 0.9, level: 4, quarantined: true, reason: 'prompt injection burst' });
    expect((await s.state.listAgents()).map((a) => a.agent)).toEqual(['mallory']);
    const released = await s.state.release('mallory', 'alice');
    expect(released).toMatchObject({ tau: 0, level: 0, quarantined: false });
    expect(released.reason).toBeUndefined();
    await s.close();
    s = await b.open(loc);
    expect((await s.state.getThreat('mallory')).quarantined).toBe(false);
    const rows = await s.audit.tail(2);
    expect(rows.map((r) => [r.kind, r.tool, r.decision, r.agent])).toEqual([
      ['admin', 'quarantine', 'deny', 'mallory'],
      ['admin', 'release', 'allow', 'mallory'],
    ]);
    expect(rows[1]!.rationale).toMatch(/released by alice; was quarantined \(prompt injection burst\), tau 0\.900, level 4/);
    await expect(s.state.release('nobody')).rejects.toThrow(expect.objectContaining({ code: 'store_agent_not_found' }));
    expect((await s.audit.verify()).ok).toBe(true);
    await s.close();
  });

  it('applies concurrent read-modify-write updates atomically', async () => {
    const loc = await b.fresh();
    const s = await b.open(loc);
    // Two handles on one store: two replicas (PostgreSQL) or two users of one file (SQLite shares the connection).
    const s2 = await b.open(loc);
    const bump = async (st: typeof s, n: number) => {
      for (let i = 0; i < n; i++) {
        await st.state.updateThreat('a', (cur) => ({ tau: Math.min(1, cur.tau + 0.001), level: cur.level }));
      }
    };
    await Promise.all([bump(s, 100), bump(s2, 100), bump(s, 100)]);
    expect((await s.state.getThreat('a')).tau).toBeCloseTo(0.3, 9);
    await s2.close();
    await s.close();
  });

  it('writes nothing when an update leaves τ as it is, and applies a change made from a stale known state', async () => {
    const s = await b.open(await b.fresh());
    const set = await s.state.setThreat('a', 0.5, 2);
    await new Promise((done) => setTimeout(done, 5));
    const same = await s.state.updateThreat('a', (cur) => ({ tau: cur.tau, level: cur.level }));
    expect(same.updatedAt).toBe(set.updatedAt);
    // `known` is older than the store (τ moved to 0.5 after it was read): a real change re-reads and builds on 0.5.
    const stale = { ...set, tau: 0, level: 0 };
    const after = await s.state.updateThreat('a', (cur) => ({ tau: Math.min(1, cur.tau + 0.1), level: cur.level }), stale);
    expect(after.tau).toBeCloseTo(0.6, 9);
    await s.close();
  });

  it('sees a quarantine and a release made through another handle at once', async () => {
    const loc = await b.fresh();
    const a = await b.open(loc);
    const c = await b.open(loc);
    await a.state.quarantine('eve', 'test');
    expect((await c.state.getThreat('eve')).quarantined).toBe(true);
    await c.state.release('eve', 'ops');
    expect((await a.state.getThreat('eve')).quarantined).toBe(false);
    await a.state.setStickyMany('sess', [['read_private', 'true']]);
    expect((await c.state.getSticky('sess')).get('read_private')).toBe('true');
    await c.close();
    await a.close();
  });

  it('refuses a missing store when it must exist, and one written by a newer schema', async () => {
    const loc = await b.fresh();
    await expect(b.open(loc, { mustExist: true })).rejects.toThrow(expect.objectContaining({ code: 'store_not_found' }));
    await (await b.open(loc)).close();
    await b.futureSchema(loc);
    await expect(b.open(loc)).rejects.toThrow(expect.objectContaining({ code: 'store_version_unsupported' }));
  });
});

describe('guard state (sqlite file)', () => {
  it('shares one connection per file and closes it with the last user', async () => {
    const t = tempDir();
    const a = openStore(t.file);
    const b = openStore(t.file);
    expect(b).toBe(a);
    await a.close();
    await a.state.setThreat('x', 0.1, 0); // still open: b holds it
    await b.close();
    await expect(a.state.getThreat('x')).rejects.toThrow(/not open|closed/i);
    t.cleanup();
  });

  it('writes burst counts behind: read with this process\'s pending ones at once, in the file for others after a flush', async () => {
    const t = tempDir();
    const s = openStore(t.file);
    const other = openDatabase(t.file); // another process's view of the file
    const inFile = () => (other.prepare("SELECT coalesce(sum(n), 0) AS n FROM burst WHERE agent = 'a'").get() as { n: number }).n;
    const now = Date.now();
    for (let i = 0; i < 5; i++) await s.state.countRequest('a', now + i, 10_000, true);
    expect(await s.state.countRequest('a', now + 5, 10_000, false)).toBe(5);
    expect(inFile()).toBe(0);
    await new Promise((done) => setTimeout(done, BURST_FLUSH_MS + 100));
    expect(inFile()).toBe(5);
    // Another process's flushed requests count here too, next to the pending ones.
    other.prepare('INSERT INTO burst (agent, bucket, n) VALUES (?, ?, ?) ON CONFLICT (agent, bucket) DO UPDATE SET n = burst.n + excluded.n').run('a', burstBuckets(now, 10_000).bucket, 7);
    expect(await s.state.countRequest('a', now + 6 + BURST_READ_MS, 10_000, true)).toBe(13);
    await s.close(); // flushes what is pending
    expect(inFile()).toBe(13);
    other.close();
    t.cleanup();
  });

  it('serves the threat state from memory only while no other connection committed: every change by another process is seen at once', async () => {
    const t = tempDir();
    const s = openStore(t.file);
    const other = openDatabase(t.file); // another process (another proxy, `quadguard agents release`)
    pragma(other, 'busy_timeout = 5000');
    const fresh = (agent: string) => other.prepare('SELECT * FROM agents WHERE agent = ?').get(agent) as Record<string, unknown> | undefined;
    const seen = async (agent: string) => {
      const st = await s.state.getThreat(agent);
      const row = fresh(agent);
      return { got: [st.tau, st.level, st.quarantined, st.reason ?? null], want: row ? [row.tau, row.level, row.quarantined === 1, row.reason] : [0, 0, false, null] };
    };
    const upsert = other.prepare(
      `INSERT INTO agents (agent, tau, level, quarantined, reason, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent) DO UPDATE SET tau = excluded.tau, level = excluded.level, quarantined = excluded.quarantined, reason = excluded.reason, updated_at = excluded.updated_at`,
    );
    // The plain story: read (cached), quarantined elsewhere, read again; released elsewhere, read again.
    expect((await s.state.getThreat('a')).quarantined).toBe(false);
    expect((await s.state.getThreat('a')).quarantined).toBe(false);
    upsert.run('a', 0, 0, 1, 'by another proxy', Date.now());
    expect(await s.state.getThreat('a')).toMatchObject({ quarantined: true, reason: 'by another proxy' });
    other.prepare('UPDATE agents SET quarantined = 0, reason = NULL, tau = 0, level = 0 WHERE agent = ?').run('a');
    expect((await s.state.getThreat('a')).quarantined).toBe(false);
    // A change by another connection to an unrelated table also drops what was cached (any commit counts).
    await s.state.quarantine('b', 'here');
    expect((await s.state.getThreat('b')).quarantined).toBe(true);
    other.prepare("DELETE FROM agents WHERE agent = 'b'").run();
    expect(await s.state.getThreat('b')).toMatchObject({ quarantined: false, updatedAt: null });
    // A mutated answer does not change the next one.
    const got = await s.state.getThreat('a');
    got.quarantined = true;
    expect((await s.state.getThreat('a')).quarantined).toBe(false);
    // Random interleavings of this connection's writes, the other's and reads: every read equals the file.
    const rnd = prng(7);
    const agents = ['a', 'b', 'c'];
    for (let step = 0; step < 600; step++) {
      const agent = agents[rnd(agents.length)]!;
      const op = rnd(7);
      if (op === 0) upsert.run(agent, rnd(100) / 100, rnd(5), rnd(2), rnd(2) ? `r${step}` : null, Date.now());
      else if (op === 1) await s.state.quarantine(agent, `q${step}`);
      else if (op === 2) await s.state.setThreat(agent, rnd(100) / 100, rnd(5));
      else if (op === 3 && (await s.state.getThreat(agent)).updatedAt !== null) await s.state.release(agent, 'test');
      else if (op === 4) await s.state.updateThreat(agent, (cur) => ({ tau: Math.min(1, cur.tau + 0.1), level: Math.min(4, cur.level + 1) }));
      else if (op === 5) other.prepare('INSERT INTO sticky (session, name, value, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING').run(`s${step}`, 'p', 'true', 0);
      for (const x of agents) {
        const v = await seen(x);
        expect(v.got, `step ${step}, agent ${x}`).toEqual(v.want);
      }
    }
    other.close();
    await s.close();
    t.cleanup();
  });

  it('refuses a file that is not a store', async () => {
    const t = tempDir();
    const { writeFileSync, mkdirSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    mkdirSync(dirname(t.file), { recursive: true });
    writeFileSync(t.file, 'this is not sqlite at all, just text that is long enough to have a header');
    expect(() => openStore(t.file)).toThrow(expect.objectContaining({ code: 'store_open_failed' }));
    t.cleanup();
  });
});
