import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { openDatabase } from '../../src/store/sqlite.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/core/errors.js';
import { makeDecision } from '../../src/core/types.js';
import { auditSelect, readStored } from '../../src/store/audit-columns.js';
import { auditEntryFor, exportNdjson, GENESIS_HASH, openStore, parseAuditId, rowHash, type RawAuditRow } from '../../src/store/index.js';
import { collect, entry, tempDir } from './helpers.js';

let t: ReturnType<typeof tempDir>;
beforeEach(() => {
  t = tempDir();
});
afterEach(() => t.cleanup());

/** Fills a store with `n` rows and closes it. */
async function fill(n: number): Promise<void> {
  const s = openStore(t.file);
  for (let i = 1; i <= n; i++) await s.audit.append(entry(i));
  await s.close();
}

/** Runs SQL on the file through a second, raw connection, as an attacker with file access would. */
function attack(sql: string, params: unknown[] = []): void {
  const raw = openDatabase(t.file);
  raw.exec('DROP TRIGGER IF EXISTS audit_no_update; DROP TRIGGER IF EXISTS audit_no_delete;');
  raw.prepare(sql).run(...params);
  raw.close();
}

async function verify() {
  const s = openStore(t.file);
  try {
    return await s.audit.verify();
  } finally {
    await s.close();
  }
}

describe('audit log', () => {
  it('appends rows chained by hash from the genesis hash and verifies them', async () => {
    const s = openStore(t.file);
    const a = await s.audit.append(entry(1));
    const b = await s.audit.append(entry(2));
    expect([a.id, b.id]).toEqual([1, 2]);
    expect(a.auditId).toBe(`1-${a.hash!.slice(0, 8)}`);
    const r1 = (await s.audit.get(1))!;
    const r2 = (await s.audit.get(b.auditId))!;
    expect(r1.prevHash).toBe(GENESIS_HASH);
    expect(r2.prevHash).toBe(a.hash);
    expect(r1.witness).toEqual([]);
    expect(r2).toMatchObject({ agent: 'planner', kind: 'tool_call', server: 'fs', tool: 'read_file', decision: 'allow', elapsedMs: 2.5 });
    expect(r2.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(r2.preview).toBe('{"path":"/data/2.txt"}');
    expect(await s.audit.verify()).toEqual({ ok: true, rows: 2, head: { id: 2, hash: b.hash }, warnings: [], keyed: 2, heads: 1 });
    await s.close();
  });

  it('returns nothing for a string id whose hash prefix does not match', async () => {
    const s = openStore(t.file);
    const a = await s.audit.append(entry(1));
    const wrong = a.hash!.startsWith('0') ? '1-ffffffff' : '1-00000000';
    expect(await s.audit.get(wrong)).toBeUndefined();
    await expect(s.audit.get('nope')).rejects.toThrow(StoreError);
    expect(parseAuditId('42-3FA9')).toEqual({ id: 42, hashPrefix: '3fa9' });
    await s.close();
  });

  it('refuses UPDATE and DELETE through its triggers', async () => {
    await fill(2);
    const raw = openDatabase(t.file);
    expect(() => raw.prepare("UPDATE audit SET decision = 'allow' WHERE id = 1").run()).toThrow(/append-only/);
    expect(() => raw.prepare('DELETE FROM audit WHERE id = 1').run()).toThrow(/append-only/);
    raw.close();
    expect((await await verify()).ok).toBe(true);
  });

  it('names an edited row', async () => {
    await fill(5);
    attack("UPDATE audit SET decision = 'allow', rationale = 'nothing to see' WHERE id = 3");
    const r = await verify();
    expect(r.ok).toBe(false);
    expect(r.firstBad).toEqual({ id: 3, reason: expect.stringMatching(/hash mismatch/) });
    expect(r.rows).toBe(2);
    expect(r.warnings.join()).toMatch(/triggers/);
  });

  it('names an edited row whose hash was recomputed by its MAC, and the next row without the key', async () => {
    await fill(5);
    const raw = openDatabase(t.file);
    raw.exec('DROP TRIGGER audit_no_update');
    // Read as the store reads it (audit-columns.ts: the book's hash, a preview kept in the body), as an attacker would.
    const row = readStored(raw.prepare(auditSelect('WHERE a.id = 3')).get()) as RawAuditRow;
    const { hash: _old, ...rest } = { ...row, decision: 'allow' };
    raw.prepare('UPDATE audit SET decision = ?, hash = ? WHERE id = 3').run('allow', rowHash(rest));
    raw.close();
    expect((await await verify()).firstBad).toEqual({ id: 3, reason: expect.stringMatching(/MAC mismatch/) });
    // Read-only, with the key moved away: the unkeyed chain still names the next row.
    renameSync(`${t.file}.key`, `${t.file}.key.away`);
    const s = openStore(t.file, undefined, { mustExist: true });
    const r = await s.audit.verify();
    await s.close();
    expect(r.firstBad).toEqual({ id: 4, reason: expect.stringMatching(/row 3 was rewritten/) });
    expect(r.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/no audit key available/)]));
  });

  it('detects a full rewrite with recomputed hashes through the MACs', async () => {
    await fill(5);
    const raw = openDatabase(t.file);
    raw.exec('DROP TRIGGER audit_no_update');
    let prev = GENESIS_HASH;
    for (const row of raw.prepare(auditSelect('ORDER BY a.id')).all().map(readStored) as RawAuditRow[]) {
      const { hash: _old, mac: _mac, ...rest } = { ...row, agent: 'mallory', prev_hash: prev };
      prev = rowHash(rest);
      raw.prepare('UPDATE audit SET agent = ?, prev_hash = ?, hash = ? WHERE id = ?').run('mallory', rest.prev_hash, prev, row.id);
    }
    raw.close();
    expect((await await verify()).firstBad).toEqual({ id: 1, reason: expect.stringMatching(/MAC mismatch/) });
    // Stripping every MAC does not help: the signed head says from which row they are due.
    attack('UPDATE audit SET mac = NULL');
    expect((await await verify()).firstBad).toEqual({ id: 1, reason: expect.stringMatching(/MAC mismatch/) });
  });

  it('reports a deleted or forged head file', async () => {
    await fill(3);
    writeFileSync(`${t.file}.head`, readFileSync(`${t.file}.head`, 'utf8').replace(/"rows":3/, '"rows":2'));
    expect((await await verify()).firstBad?.reason).toMatch(/does not carry a valid signature/);
    unlinkSync(`${t.file}.head`);
    expect((await await verify()).firstBad?.reason).toMatch(/signed head .* is missing/);
  });

  it('finds the store\'s head whatever the key file is named (a backup copy), and carries over a head kept beside a renamed key', async () => {
    const key = `${t.dir}/custom.key`;
    const s = openStore(t.file, undefined, { auditKeyFile: key });
    for (let i = 1; i <= 3; i++) await s.audit.append(entry(i));
    await s.close();
    expect(existsSync(`${t.file}.head`)).toBe(true);
    writeFileSync(`${t.dir}/custom.key.bak`, readFileSync(key));
    const backup = openStore(t.file, undefined, { auditKeyFile: `${t.dir}/custom.key.bak`, mustExist: true });
    try {
      const r = await backup.audit.verify();
      expect(r.firstBad).toBeUndefined();
      expect(r.heads).toBe(1);
    } finally {
      await backup.close();
    }
    // Earlier versions kept the head beside a key of another name (`custom.head`): it is carried over once.
    renameSync(`${t.file}.head`, `${t.dir}/custom.head`);
    const again = openStore(t.file, undefined, { auditKeyFile: key, mustExist: true });
    try {
      expect((await again.audit.verify()).firstBad).toBeUndefined();
      expect(existsSync(`${t.file}.head`)).toBe(true);
    } finally {
      await again.close();
    }
  });

  it('refuses to open a keyed log whose key is gone, rather than start a second key', async () => {
    await fill(2);
    unlinkSync(`${t.file}.key`);
    expect(() => openStore(t.file)).toThrow(expect.objectContaining({ code: 'store_audit_key_missing' }));
    expect(existsSync(`${t.file}.key`)).toBe(false);
  });

  it('names a deleted row, in the middle and at the end', async () => {
    await fill(5);
    attack('DELETE FROM audit WHERE id = 3');
    expect((await await verify()).firstBad).toEqual({ id: 3, reason: 'row 3 is missing (deleted); the next row is 4' });
    attack('DELETE FROM audit WHERE id = 5');
    attack('DELETE FROM audit WHERE id = 4');
    attack('DELETE FROM audit WHERE id = 2');
    expect((await await verify()).firstBad?.id).toBe(2);
  });

  it('detects a deleted tail, even after new rows are appended', async () => {
    await fill(5);
    attack('DELETE FROM audit WHERE id >= 4');
    expect((await await verify()).firstBad).toEqual({ id: 4, reason: 'rows 4–5 are missing at the end (deleted)' });
    const s = openStore(t.file);
    expect((await s.audit.append(entry(6))).id).toBe(6);
    await s.close();
    expect((await await verify()).firstBad).toEqual({ id: 4, reason: expect.stringMatching(/rows 4–5 are missing/) });
  });

  it('detects a truncated tail with a rewound sequence through an external anchor', async () => {
    await fill(5);
    const head = (await await verify()).head!;
    attack('DELETE FROM audit WHERE id >= 4');
    attack("UPDATE sqlite_sequence SET seq = 3 WHERE name = 'audit'");
    // Nothing inside the file shows it; the signed head outside it does.
    expect(await verify()).toMatchObject({ ok: false, firstBad: { id: 4, reason: expect.stringMatching(/signed head names row 5, .* truncated/) } });
    // Without the key (read-only, key moved away), the external anchor still catches it.
    renameSync(`${t.file}.key`, `${t.file}.key.away`);
    const s = openStore(t.file, undefined, { mustExist: true });
    expect(await s.audit.verify({ anchor: head })).toMatchObject({ ok: false, firstBad: { id: 4, reason: expect.stringMatching(/anchored row 5 is missing/) } });
    await s.audit.append(entry(9));
    await s.audit.append(entry(10));
    expect(await s.audit.verify({ anchor: { id: 5, hash: head.hash.slice(0, 8) } })).toMatchObject({
      ok: false,
      firstBad: { id: 5, reason: expect.stringMatching(/does not have the anchored hash/) },
    });
    await s.close();
  });

  it('detects reordered rows', async () => {
    await fill(5);
    attack('UPDATE audit SET id = -2 WHERE id = 2');
    attack('UPDATE audit SET id = 2 WHERE id = 3');
    attack('UPDATE audit SET id = 3 WHERE id = -2');
    const r = await verify();
    expect(r.ok).toBe(false);
    expect(r.firstBad?.id).toBe(2);
  });

  it('continues the chain after close and reopen', async () => {
    await fill(3);
    const s = openStore(t.file);
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
    await openStore(t.file).close();
    const script = `const { openStore } = await import(${JSON.stringify(mod)});
      const s = openStore(process.argv[1]);
      for (let i = 0; i < 300; i++) await s.audit.append({ agent: process.argv[2], session: 's', kind: 'message', payload: 'm' + i, decision: 'allow' });
      s.close();`;
    const run = (agent: string) =>
      new Promise<number | null>((res) => spawn(process.execPath, ['--input-type=module', '-e', script, t.file, agent], { stdio: 'inherit' }).on('exit', res));
    expect(await Promise.all([run('p1'), run('p2')])).toEqual([0, 0]);
    const s = openStore(t.file);
    expect(await s.audit.verify()).toMatchObject({ ok: true, rows: 600 });
    const agents = new Set((await collect(s.audit.iterate())).map((r) => r.agent));
    expect(agents).toEqual(new Set(['p1', 'p2']));
    await s.close();
  });

  it('iterates from an id across pages and exports NDJSON', async () => {
    const s = openStore(t.file);
    for (let i = 1; i <= 1203; i++) await s.audit.append(entry(i));
    expect((await collect(s.audit.iterate(1200))).map((r) => r.id)).toEqual([1200, 1201, 1202, 1203]);
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

  it('builds entries from an interaction and a decision', async () => {
    const s = openStore(':memory:');
    const d = makeDecision({
      decision: 'deny',
      rationale: 'Blocked',
      rules: ['r1'],
      policy: { name: 'default', version: '1', hash: 'ph' },
      elapsedMs: 3,
      threatLevel: 2,
    });
    const e = auditEntryFor({ kind: 'message', agent: 'a', session: 's', profile: {}, content: 'hi', sender: 'a', recipient: 'b' }, d);
    const { id } = await s.audit.append(e);
    expect(await s.audit.get(id!)).toMatchObject({ kind: 'message', recipient: 'b', preview: 'hi', policyHash: 'ph', threatLevel: 2, rules: ['r1'] });
    await expect(s.audit.append({ ...e, agent: '' })).rejects.toThrow(/store_invalid_entry|agent/);
    await s.close();
  });
});
