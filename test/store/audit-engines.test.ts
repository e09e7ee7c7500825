import { copyFileSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../src/core/errors.js';
import { makeDecision } from '../../src/core/types.js';
import { auditEntryFor, exportNdjson, GENESIS_HASH, parseAuditId, rowHash, type GuardStore, type RawAuditRow } from '../../src/store/index.js';
import { auditSelect, readStored } from '../../src/store/audit-columns.js';
import { auditFields } from '../../src/store/audit-row.js';
import { recordInteraction } from '../../src/store/audit-interaction.js';
import { backends, warmUp, type Backend } from './backends.js';
import { entry } from './helpers.js';

const list = backends();
warmUp(list);

describe.each(list)('audit log ($name)', (b: Backend) => {
  /** A fresh store with `n` rows, closed. */
  async function fill(n: number): Promise<string> {
    const loc = await b.fresh();
    const s = await b.open(loc);
    for (let i = 1; i <= n; i++) await s.audit.append(entry(i));
    await s.close();
    return loc;
  }

  /** Read-only, as `audit verify` opens it (a PostgreSQL writer refuses a log cut below its signed head). */
  async function verify(loc: string, anchor?: { id: number; hash: string }) {
    const s = await b.open(loc, { mustExist: true });
    try {
      return await s.audit.verify(anchor ? { anchor } : {});
    } finally {
      await s.close();
    }
  }

  it('appends rows chained by hash from the genesis hash and verifies them', async () => {
    const s = await b.open(await b.fresh());
    const a = await s.audit.append(entry(1));
    const c = await s.audit.append(entry(2));
    expect([a.id, c.id]).toEqual([1, 2]);
    expect(a.auditId).toBe(`1-${a.hash!.slice(0, 8)}`);
    const r1 = (await s.audit.get(1))!;
    const r2 = (await s.audit.get(c.auditId))!;
    expect(r1.prevHash).toBe(GENESIS_HASH);
    expect(r2.prevHash).toBe(a.hash);
    expect(r1.witness).toEqual([]);
    expect(r2).toMatchObject({ agent: 'planner', kind: 'tool_call', server: 'fs', tool: 'read_file', decision: 'allow', elapsedMs: 2.5 });
    expect(r2.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(r2.preview).toBe('{"path":"/data/2.txt"}');
    expect(await s.audit.verify()).toMatchObject({ ok: true, rows: 2, head: { id: 2, hash: c.hash } });
    await s.close();
  });

  it('returns nothing for a string id whose hash prefix does not match', async () => {
    const s = await b.open(await b.fresh());
    const a = await s.audit.append(entry(1));
    const wrong = a.hash!.startsWith('0') ? '1-ffffffff' : '1-00000000';
    expect(await s.audit.get(wrong)).toBeUndefined();
    await expect(s.audit.get('nope')).rejects.toThrow(StoreError);
    expect(parseAuditId('42-3FA9')).toEqual({ id: 42, hashPrefix: '3fa9' });
    await s.close();
  });

  it('refuses UPDATE and DELETE through its triggers', async () => {
    const loc = await fill(2);
    await expect(b.raw(loc, "UPDATE audit SET decision = 'allow' WHERE id = 1")).rejects.toThrow(/append-only/);
    await expect(b.raw(loc, 'DELETE FROM audit WHERE id = 1')).rejects.toThrow(/append-only/);
    expect((await verify(loc)).ok).toBe(true);
  });

  it('names an edited row', async () => {
    const loc = await fill(5);
    await b.attack(loc, "UPDATE audit SET decision = 'allow', rationale = 'nothing to see' WHERE id = 3");
    const r = await verify(loc);
    expect(r.ok).toBe(false);
    expect(r.firstBad).toEqual({ id: 3, reason: expect.stringMatching(/hash mismatch/) });
    expect(r.rows).toBe(2);
    expect(r.warnings.join()).toMatch(/trigger/);
  });

  it('names the next row when an edited row had its hash recomputed', async () => {
    const loc = await fill(5);
    const row = readStored((await b.raw(loc, auditSelect('WHERE a.id = 3')))[0]) as RawAuditRow;
    const { hash: _old, mac: _mac, ...rest } = { ...row, id: Number(row.id), ts: Number(row.ts), size: row.size === null ? null : Number(row.size), decision: 'allow' };
    await b.attack(loc, `UPDATE audit SET decision = 'allow', hash = '${rowHash(rest)}' WHERE id = 3`);
    // The keyed chain names the row itself (its MAC no longer matches), on both engines.
    expect((await verify(loc)).firstBad).toEqual({ id: 3, reason: expect.stringMatching(/MAC mismatch/) });
  });

  it('names the first row of a full rewrite with recomputed hashes and no MACs', async () => {
    const loc = await fill(4);
    const rows = (await b.raw(loc, auditSelect('ORDER BY a.id'))).map(readStored) as RawAuditRow[];
    let prev = GENESIS_HASH;
    for (const row of rows) {
      const fixed = { ...row, id: Number(row.id), ts: Number(row.ts), size: row.size === null ? null : Number(row.size) };
      const { hash: _h, mac: _m, ...rest } = { ...fixed, rationale: 'nothing happened', prev_hash: prev };
      prev = rowHash(rest);
      await b.attack(loc, `UPDATE audit SET rationale = 'nothing happened', prev_hash = '${rest.prev_hash}', hash = '${prev}', mac = NULL WHERE id = ${fixed.id}`);
    }
    expect((await verify(loc)).firstBad).toEqual({ id: 1, reason: expect.stringMatching(/MAC mismatch/) });
  });

  it('names a deleted row, in the middle and at the end', async () => {
    const loc = await fill(5);
    await b.attack(loc, 'DELETE FROM audit WHERE id = 3');
    expect((await verify(loc)).firstBad).toEqual({ id: 3, reason: 'row 3 is missing (deleted); the next row is 4' });
    await b.attack(loc, 'DELETE FROM audit WHERE id = 5');
    await b.attack(loc, 'DELETE FROM audit WHERE id = 4');
    await b.attack(loc, 'DELETE FROM audit WHERE id = 2');
    expect((await verify(loc)).firstBad?.id).toBe(2);
  });

  it('detects a deleted tail, even after new rows are appended', async () => {
    const loc = await fill(5);
    await b.attack(loc, 'DELETE FROM audit WHERE id >= 4');
    expect((await verify(loc)).firstBad).toEqual({ id: 4, reason: 'rows 4–5 are missing at the end (deleted)' });
    if (b.name === 'postgres') {
      // A replica whose signed head names row 5 refuses to extend the cut log (its next decisions are denied).
      await expect(b.open(loc)).rejects.toMatchObject({ code: 'store_audit_tampered' });
      unlinkSync(b.keyed(loc).headFile);
    }
    const s = await b.open(loc);
    expect((await s.audit.append(entry(6))).id).toBe(6);
    await s.close();
    expect((await verify(loc)).firstBad).toEqual({ id: 4, reason: expect.stringMatching(/rows 4–5 are missing/) });
  });

  it('detects a truncated tail with a rewound head through the signed head file, and through an external anchor', async () => {
    const loc = await fill(5);
    const head = (await verify(loc)).head!;
    await b.attack(loc, 'DELETE FROM audit WHERE id >= 4');
    await b.rewindHead(loc, 3);
    // The signed head outside the store names row 5.
    expect(await verify(loc)).toMatchObject({ ok: false, firstBad: { id: 4, reason: expect.stringMatching(/signed head names row 5, but the log ends at row 3: it was truncated/) } });
    const { headFile } = b.keyed(loc);
    unlinkSync(headFile);
    // Without it: SQLite misses its head file; PostgreSQL's head row no longer carries the key's MAC.
    expect((await verify(loc)).firstBad).toEqual(
      b.name === 'sqlite'
        ? { id: 1, reason: expect.stringMatching(/signed head .* is missing although rows carry MACs/) }
        : { id: 4, reason: expect.stringMatching(/audit_head, row 3\) does not carry the audit key's MAC/) },
    );
    const s = await b.open(loc, { mustExist: true });
    expect(await s.audit.verify({ anchor: head })).toMatchObject({ ok: false, firstBad: { id: b.name === 'sqlite' ? 1 : 4 } });
    await s.close();
  });

  it('checks a further signed head file given to verify, and refuses one that is missing or forged', async () => {
    const loc = await fill(3);
    const { headFile } = b.keyed(loc);
    const copy = `${headFile}.replica-b`;
    copyFileSync(headFile, copy);
    const s = await b.open(loc);
    await s.audit.append(entry(4));
    await s.close();
    const check = async (heads: string[]) => {
      const r = await b.open(loc, { mustExist: true });
      try {
        return await r.audit.verify({ heads });
      } finally {
        await r.close();
      }
    };
    expect(await check([copy])).toMatchObject({ ok: true, rows: 4, keyed: 4 });
    expect((await check([`${copy}.nope`])).firstBad?.reason).toMatch(/does not exist/);
    writeFileSync(copy, readFileSync(copy, 'utf8').replace(/"rows":3/, '"rows":2'));
    expect((await check([copy])).firstBad?.reason).toMatch(/does not carry a valid signature/);
  });

  it('detects reordered rows', async () => {
    const loc = await fill(5);
    await b.attack(loc, 'UPDATE audit SET id = -2 WHERE id = 2');
    await b.attack(loc, 'UPDATE audit SET id = 2 WHERE id = 3');
    await b.attack(loc, 'UPDATE audit SET id = 3 WHERE id = -2');
    const r = await verify(loc);
    expect(r.ok).toBe(false);
    expect(r.firstBad?.id).toBe(2);
  });

  it('continues the chain after close and reopen', async () => {
    const loc = await fill(3);
    const s = await b.open(loc);
    const last = (await s.audit.tail(1))[0]!;
    const next = await s.audit.append(entry(4));
    expect(next.id).toBe(4);
    expect((await s.audit.get(4))!.prevHash).toBe(last.hash);
    expect(await s.audit.verify()).toMatchObject({ ok: true, rows: 4 });
    await s.close();
  });

  it('keeps one chain when two processes append at once', async () => {
    const { spawn } = await import('node:child_process');
    const { existsSync } = await import('node:fs');
    const mod = new URL('../../dist/src/store/index.js', import.meta.url).href;
    expect(existsSync(new URL(mod)), 'run `npm run build` first').toBe(true);
    const loc = await b.fresh();
    await (await b.open(loc)).close();
    const script = `const { openGuardStore } = await import(${JSON.stringify(mod)});
      const s = await openGuardStore(process.argv[1]);
      await Promise.all([0, 1, 2].map(async (k) => {
        for (let i = 0; i < 100; i++) await s.audit.append({ agent: process.argv[2], session: 's' + k, kind: 'message', payload: 'm' + i, decision: 'allow' });
      }));
      await s.close();`;
    const run = (agent: string) =>
      new Promise<number | null>((res) =>
        spawn(process.execPath, ['--input-type=module', '-e', script, loc, agent], { stdio: 'inherit', env: { ...process.env, ...b.keyed(loc).env } }).on('exit', res),
      );
    expect(await Promise.all([run('p1'), run('p2')])).toEqual([0, 0]);
    const s = await b.open(loc);
    expect(await s.audit.verify()).toMatchObject({ ok: true, rows: 600, keyed: 600 });
    const agents = new Set<string>();
    for await (const r of s.audit.iterate()) agents.add(r.agent);
    expect(agents).toEqual(new Set(['p1', 'p2']));
    await s.close();
  });

  it('iterates from an id across pages and exports NDJSON', async () => {
    const s = await b.open(await b.fresh());
    for (let i = 1; i <= 1203; i++) await s.audit.append(entry(i));
    const ids: number[] = [];
    for await (const r of s.audit.iterate(1200)) ids.push(r.id);
    expect(ids).toEqual([1200, 1201, 1202, 1203]);
    expect((await s.audit.tail(2)).map((r) => r.id)).toEqual([1202, 1203]);
    const { PassThrough } = await import('node:stream');
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    expect(await exportNdjson(s.audit, out)).toBe(1203);
    const lines = Buffer.concat(chunks).toString('utf8').trim().split('\n');
    expect(lines).toHaveLength(1203);
    expect(JSON.parse(lines[1202]!)).toMatchObject({ id: 1203, auditId: expect.stringMatching(/^1203-/) });
    expect(await s.audit.verify()).toMatchObject({ ok: true, rows: 1203 });
    await s.close();
  });

  it('builds entries from an interaction and a decision, and keeps the interaction', async () => {
    const s: GuardStore = await b.open(await b.fresh());
    const d = makeDecision({
      decision: 'deny',
      rationale: 'Blocked',
      rules: ['r1'],
      policy: { name: 'default', version: '1', hash: 'ph' },
      elapsedMs: 3,
      threatLevel: 2,
    });
    const i = { kind: 'message', agent: 'a', session: 's', profile: {}, content: 'hi', sender: 'a', recipient: 'b' } as const;
    const id = (await s.audit.append(auditEntryFor(i, d))).id!;
    expect(await s.audit.get(id)).toMatchObject({ kind: 'message', recipient: 'b', preview: 'hi', policyHash: 'ph', threatLevel: 2, rules: ['r1'] });
    expect(await s.audit.interaction(id)).toMatchObject({ masked: false, truncated: false });
    await expect(s.audit.append({ ...auditEntryFor(i, d), agent: '' })).rejects.toThrow(/store_invalid_entry|agent/);
    await s.close();
  });

  describe('slim rows: the book stored once, the preview read from the recorded body', () => {
    const decided = (book: string, rationale = 'ok') =>
      makeDecision({ decision: 'allow', rationale, policy: { name: 'default', version: '1', hash: book } });
    const call = (args: Record<string, unknown>) => ({ kind: 'tool_call', agent: 'a', session: 's', profile: {}, server: 'fs', tool: 'read_file', arguments: args }) as const;
    const BOOK_A = 'a'.repeat(64);
    const BOOK_B = 'b'.repeat(64);
    /** Per-engine SQL that lifts a side table's append-only trigger (the attacker with database access). */
    const dropTrigger = (table: string) => (b.name === 'sqlite' ? `DROP TRIGGER ${table}_no_update` : `DROP TRIGGER ${table}_no_update ON ${table}`);

    async function written(): Promise<{ loc: string; entries: ReturnType<typeof auditEntryFor>[] }> {
      const loc = await b.fresh();
      const s = await b.open(loc);
      const entries = [
        auditEntryFor(call({ path: '/data/report.txt' }), decided(BOOK_A)),
        auditEntryFor(call({ path: '/data/notes.txt', lines: 20 }), decided(BOOK_A)),
        // A body too long to parse on every read keeps its preview in the row.
        auditEntryFor(call({ path: '/data/long.txt', text: 'lorem ipsum '.repeat(1000) }), decided(BOOK_A)),
        // Masked as one text, the row's preview hides more than the body's strings masked one by one: it stays.
        auditEntryFor(call({ a: 'postgres://user:', b: 'pass@host/db' }), decided(BOOK_A)),
        auditEntryFor(call({ path: '/data/report.txt' }), decided(BOOK_B)),
      ];
      for (const e of entries) await s.audit.append(e);
      await s.close();
      return { loc, entries };
    }

    it('stores the policy hash once per book and the preview only where the body does not give it; reads them as written', async () => {
      const { loc, entries } = await written();
      const raw = (await b.raw(loc, 'SELECT id, preview, policy_hash, book FROM audit ORDER BY id')) as Array<{ preview: string | null; policy_hash: string | null; book: unknown }>;
      expect(raw.map((r) => r.policy_hash)).toEqual([null, null, null, null, null]);
      expect(raw.map((r) => r.preview === null)).toEqual([true, true, false, false, true]);
      expect(raw[3]!.preview).toMatch(/REDACTED/);
      expect(new Set(raw.map((r) => Number(r.book))).size).toBe(2);
      expect(await b.raw(loc, 'SELECT hash FROM audit_book ORDER BY id')).toEqual([{ hash: BOOK_A }, { hash: BOOK_B }]);
      const s = await b.open(loc, { mustExist: true });
      for (const [n, e] of entries.entries()) {
        const row = (await s.audit.get(n + 1))!;
        // What an operator reads (audit show, tail, export, the live view) is what the row was written with.
        expect({ preview: row.preview, policyHash: row.policyHash }).toEqual({ preview: auditFields(e).fields.preview, policyHash: auditFields(e).fields.policy_hash });
      }
      expect((await s.audit.tail(5)).map((r) => r.preview)).toEqual(entries.map((e) => auditFields(e).fields.preview));
      expect(await s.audit.verify()).toMatchObject({ ok: true, rows: 5 });
      await s.close();
    });

    it('keeps one body for the same interaction recorded in several sessions, and gives each its own back', async () => {
      const loc = await b.fresh();
      const s = await b.open(loc);
      const sessions = ['s1', 'session "two" \\ é', 's3'];
      const read = (session: string) => ({ kind: 'tool_result', agent: 'a', session, profile: {}, server: 'fs', tool: 'read_file', content: [{ type: 'text', text: 'quarterly figures' }] }) as const;
      for (const session of sessions) await s.audit.append(auditEntryFor(read(session) as never, decided(BOOK_A)));
      expect(await b.raw(loc, 'SELECT count(*) AS n FROM audit_body')).toEqual([{ n: b.name === 'sqlite' ? 1 : '1' }]);
      for (const [n, session] of sessions.entries()) {
        expect((await s.audit.interaction(n + 1))?.body).toBe(recordInteraction(read(session) as never).body);
      }
      expect(await s.audit.verify()).toMatchObject({ ok: true, rows: 3 });
      await s.close();
    });

    it('verifies rows in the earlier layout (hash and preview in the row) beside the slim ones', async () => {
      const { loc, entries } = await written();
      const f = auditFields(entries[0]!).fields;
      await b.attack(loc, `UPDATE audit SET policy_hash = '${BOOK_A}', book = NULL, preview = '${f.preview!.replaceAll("'", "''")}' WHERE id = 1`);
      expect(await verify(loc)).toMatchObject({ ok: true, rows: 5 });
    });

    it('names the row whose book, book id or recorded body was changed', async () => {
      const first = await written();
      await b.attack(first.loc, 'UPDATE audit SET book = (SELECT max(id) FROM audit_book) WHERE id = 2');
      expect((await verify(first.loc)).firstBad).toEqual({ id: 2, reason: expect.stringMatching(/hash mismatch/) });

      const second = await written();
      await b.attack(second.loc, dropTrigger('audit_book'));
      await b.attack(second.loc, `UPDATE audit_book SET hash = '${'c'.repeat(64)}' WHERE hash = '${BOOK_A}'`);
      expect((await verify(second.loc)).firstBad).toEqual({ id: 1, reason: expect.stringMatching(/hash mismatch/) });

      const third = await written();
      await b.attack(third.loc, dropTrigger('audit_body'));
      await b.attack(third.loc, `UPDATE audit_body SET body = replace(body, 'notes.txt', 'other.txt')`);
      expect((await verify(third.loc)).firstBad).toEqual({ id: 2, reason: expect.stringMatching(/hash mismatch/) });
    });
  });

  describe('retention (audit prune)', () => {
    const DAY = 86_400_000;
    /** 8 rows 10 days old, then 4 of today; pruned at 5 days, the old rows exported. */
    async function pruned(): Promise<{ loc: string; exported: number[]; dropped: number }> {
      const loc = await b.fresh();
      const s = await b.open(loc);
      const now = Date.now();
      for (let i = 1; i <= 12; i++) await s.audit.append(entry(i, { ts: i <= 8 ? now - 10 * DAY + i : now + i }));
      const exported: number[] = [];
      const r = await s.audit.prune(now - 5 * DAY, (row) => exported.push(row.id));
      // A second prune at the same age drops nothing more; the log goes on after it.
      expect((await s.audit.prune(now - 5 * DAY)).dropped).toBe(0);
      await s.audit.append(entry(13));
      await s.close();
      return { loc, exported, dropped: r.dropped };
    }

    it('drops in batches of at most `limit` rows, each verifiable, and sweeps the bodies with the last batch', async () => {
      const loc = await b.fresh();
      const s = await b.open(loc);
      const now = Date.now();
      const call = (n: number) => ({ kind: 'tool_call', agent: 'a', session: `s${n}`, profile: {}, server: 'fs', tool: 'read_file', arguments: { path: `/data/${n}.txt` } }) as const;
      const decided = makeDecision({ decision: 'allow', rationale: 'ok', policy: { name: 'default', version: '1', hash: 'p'.repeat(64) } });
      for (let i = 1; i <= 12; i++) await s.audit.append({ ...auditEntryFor(call(i) as never, decided), ts: i <= 8 ? now - 10 * DAY + i : now + i });
      const bodies = async () => Number(((await b.raw(loc, 'SELECT count(*) AS n FROM audit_body')) as Array<{ n: unknown }>)[0]!.n);
      const steps: Array<[number, number | undefined, number]> = [];
      for (let k = 0; k < 4; k++) {
        const r = await s.audit.prune(now - 5 * DAY, undefined, 3);
        steps.push([r.dropped, r.anchor?.id, await bodies()]);
        expect(await s.audit.verify()).toMatchObject({ ok: true, rows: 12 - (r.anchor?.id ?? 0) });
      }
      // 3, 3, then the last 2 (which sweeps the 8 bodies no kept row names), then nothing.
      expect(steps).toEqual([[3, 3, 12], [3, 6, 12], [2, 8, 4], [0, 8, 4]]);
      await s.close();
    });

    it('drops the old rows, exports them first, and the kept chain verifies from the anchor', async () => {
      const { loc, exported, dropped } = await pruned();
      expect(dropped).toBe(8);
      expect(exported).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const v = await verify(loc);
      expect(v, JSON.stringify(v)).toMatchObject({ ok: true, rows: 5, from: { id: 8, dropped: 8 } });
      expect((await b.raw(loc, 'SELECT count(*) AS n FROM audit'))[0]).toMatchObject({ n: expect.anything() });
      expect(Number(((await b.raw(loc, 'SELECT min(id) AS id FROM audit'))[0] as { id: number }).id)).toBe(9);
    });

    it('still names an edited kept row', async () => {
      const { loc } = await pruned();
      await b.attack(loc, "UPDATE audit SET decision = 'allow', rationale = 'nothing to see' WHERE id = 10");
      expect(await verify(loc)).toMatchObject({ ok: false, firstBad: { id: 10 } });
    });

    it('fails when the anchor is edited, moved, or deleted', async () => {
      const { loc } = await pruned();
      const row9 = (await b.raw(loc, 'SELECT hash FROM audit WHERE id = 9'))[0] as { hash: string };
      // Moved past a row the attacker also dropped, with the hash of that row: the MAC does not match.
      await b.attack(loc, 'DELETE FROM audit WHERE id = 9');
      await b.attack(loc, `UPDATE audit_anchor SET id = 9, hash = '${row9.hash}', dropped = 9`);
      expect(await verify(loc)).toMatchObject({ ok: false, firstBad: { id: 10 } });
      expect((await verify(loc)).firstBad?.reason).toMatch(/retention anchor .* MAC/);

      const other = await pruned();
      await b.attack(other.loc, "UPDATE audit_anchor SET hash = '" + '0'.repeat(64) + "'");
      expect(await verify(other.loc)).toMatchObject({ ok: false, firstBad: { id: 9 } });

      const third = await pruned();
      await b.attack(third.loc, 'DELETE FROM audit_anchor');
      expect(await verify(third.loc)).toMatchObject({ ok: false, firstBad: { id: 1 } });
    });
  });
});
