import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { sharedAuditKey } from '../../src/store/audit-key.js';
import { GENESIS_HASH, openGuardStore, rowHash, type RawAuditRow } from '../../src/store/index.js';
import { auditSelect, readStored } from '../../src/store/audit-columns.js';
import { backends, warmUp } from './backends.js';
import { entry, tempDir } from './helpers.js';

/**
 * The keyed chain on PostgreSQL beyond what the shared suite covers: the attacker with database access only who
 * rolls back both the rows and the head row to an older valid pair (the signed head files outside the database
 * catch it; the database alone cannot), a replica that refuses to append on a log cut under it, and the key's
 * sources.
 */
const pgBackend = backends().find((b) => b.name === 'postgres')!;
warmUp([pgBackend]);

describe('keyed audit chain on PostgreSQL', () => {
  it('catches a rollback of rows and head row to an older valid pair only through a signed head file', async () => {
    const loc = await pgBackend.fresh();
    const { headFile } = pgBackend.keyed(loc);
    const s = await pgBackend.open(loc);
    for (let i = 1; i <= 3; i++) await s.audit.append(entry(i));
    // The attacker saves the head row as it is at row 3 (id, hash and its valid MAC) ...
    const [saved] = (await pgBackend.raw(loc, 'SELECT id, hash, mac FROM audit_head')) as Array<{ id: string; hash: string; mac: string }>;
    for (let i = 4; i <= 6; i++) await s.audit.append(entry(i));
    await s.close();
    // ... and later cuts rows 4–6 and puts that head row back.
    await pgBackend.attack(loc, 'DELETE FROM audit WHERE id >= 4');
    await pgBackend.attack(loc, `UPDATE audit_head SET id = ${saved!.id}, hash = '${saved!.hash}', mac = '${saved!.mac}'`);

    const verify = async (heads?: string[]) => {
      const r = await pgBackend.open(loc, { mustExist: true });
      try {
        return await r.audit.verify(heads ? { heads } : {});
      } finally {
        await r.close();
      }
    };
    expect(await verify()).toMatchObject({ ok: false, firstBad: { id: 4, reason: expect.stringMatching(/names row 6, but the log ends at row 3: it was truncated/) } });
    // A replica that restarts on it refuses to extend the log.
    await expect(pgBackend.open(loc)).rejects.toMatchObject({ code: 'store_audit_tampered', message: expect.stringMatching(/no longer has row 6/) });
    // Without any replica's head file, nothing in the database shows it (the threat model says so), and verify warns.
    renameSync(headFile, `${headFile}.away`);
    const blind = await verify();
    expect(blind.ok).toBe(true);
    expect(blind.warnings.join('\n')).toMatch(/no signed head file of a replica was available/);
    // Handing the head file back to verify (as --head does) finds it again.
    expect((await verify([`${headFile}.away`])).firstBad?.reason).toMatch(/names row 6/);
  });

  it('reports a full rewrite that also stripped every MAC, from a machine without any head file', async () => {
    const loc = await pgBackend.fresh();
    const s = await pgBackend.open(loc);
    for (let i = 1; i <= 3; i++) await s.audit.append(entry(i));
    await s.close();
    const rows = (await pgBackend.raw(loc, auditSelect('ORDER BY a.id'))).map(readStored) as RawAuditRow[];
    let prev = GENESIS_HASH;
    for (const raw of rows) {
      const row = { ...raw, id: Number(raw.id), ts: Number(raw.ts), size: raw.size === null ? null : Number(raw.size) };
      const { hash: _h, mac: _m, ...rest } = { ...row, rationale: 'nothing happened', prev_hash: prev };
      prev = rowHash(rest);
      await pgBackend.attack(loc, `UPDATE audit SET rationale = 'nothing happened', prev_hash = '${rest.prev_hash}', hash = '${prev}', mac = NULL WHERE id = ${row.id}`);
    }
    await pgBackend.attack(loc, `UPDATE audit_head SET hash = '${prev}', mac = NULL`);
    const elsewhere = tempDir();
    const v = await openGuardStore(loc, undefined, { mustExist: true, auditKeyFile: pgBackend.keyed(loc).keyFile, auditHeadFile: join(elsewhere.dir, 'none.head') });
    expect(await v.audit.verify()).toMatchObject({ ok: false, firstBad: { id: 1, reason: expect.stringMatching(/no row carries a MAC although the audit key was given/) } });
    await v.close();
    elsewhere.cleanup();
  });

  it('refuses to append, on a running replica, once the log was cut below a row it already saw', async () => {
    const loc = await pgBackend.fresh();
    const a = await pgBackend.open(loc);
    for (let i = 1; i <= 3; i++) await a.audit.append(entry(i));
    const [saved] = (await pgBackend.raw(loc, 'SELECT id, hash, mac FROM audit_head')) as Array<{ id: string; hash: string; mac: string }>;
    await a.audit.append(entry(4));
    await pgBackend.attack(loc, 'DELETE FROM audit WHERE id >= 4');
    await pgBackend.attack(loc, `UPDATE audit_head SET id = ${saved!.id}, hash = '${saved!.hash}', mac = '${saved!.mac}'`);
    await expect(a.audit.append(entry(5))).rejects.toMatchObject({ code: 'store_audit_tampered', message: expect.stringMatching(/ends at row 3, but this replica already saw row 4/) });
    // Admin changes go through the same head: a quarantine is refused too, rather than forking the chain.
    await expect(a.state.quarantine('mallory', 'x')).rejects.toThrow(/truncated or rolled back/);
    await a.close();
  });

  it('refuses to open a keyed log without the key, and takes the key from QUADGUARD_AUDIT_KEY', async () => {
    const loc = await pgBackend.fresh();
    const s = await pgBackend.open(loc);
    await s.audit.append(entry(1));
    await s.close();
    const t = tempDir();
    const saved = { key: process.env.QUADGUARD_AUDIT_KEY, file: process.env.QUADGUARD_AUDIT_KEY_FILE };
    delete process.env.QUADGUARD_AUDIT_KEY;
    delete process.env.QUADGUARD_AUDIT_KEY_FILE;
    try {
      await expect(openGuardStore(loc, undefined, { auditHeadFile: join(t.dir, 'h.head') })).rejects.toMatchObject({ code: 'store_audit_key_missing' });
      // Read-only, without the key: rows that carry MACs cannot be verified, so verify fails and says why (#27 class 11).
      const ro = await openGuardStore(loc, undefined, { mustExist: true });
      const r = await ro.audit.verify();
      await ro.close();
      expect(r).toMatchObject({ ok: false });
      expect(JSON.stringify(r)).toMatch(/key/);
    } finally {
      if (saved.key !== undefined) process.env.QUADGUARD_AUDIT_KEY = saved.key;
      if (saved.file !== undefined) process.env.QUADGUARD_AUDIT_KEY_FILE = saved.file;
      t.cleanup();
    }
    const hex = randomBytes(32).toString('hex');
    const fromEnv = sharedAuditKey({ defaultHeadFile: '/x/default.head' }, { QUADGUARD_AUDIT_KEY: hex.toUpperCase(), QUADGUARD_AUDIT_HEAD_FILE: '/x/h.head' });
    expect(fromEnv).toMatchObject({ file: '(QUADGUARD_AUDIT_KEY)', headFile: '/x/h.head' });
    expect(fromEnv!.key.toString('hex')).toBe(hex);
    expect(sharedAuditKey({ defaultHeadFile: '/x/d.head' }, {})).toBeUndefined();
    expect(() => sharedAuditKey({ defaultHeadFile: '/x/d.head' }, { QUADGUARD_AUDIT_KEY: 'short' })).toThrow(/not 64 hex digits/);
    expect(() => sharedAuditKey({ keyFile: '/nonexistent/k', defaultHeadFile: '/x/d.head' }, {})).toThrow(/cannot read the audit key/);
    expect(existsSync('/x/d.head')).toBe(false);
  });
});
