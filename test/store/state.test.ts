import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../src/core/errors.js';
import { openStore } from '../../src/store/index.js';
import { tempDir } from './helpers.js';

let t: ReturnType<typeof tempDir>;
beforeEach(() => {
  t = tempDir();
});
afterEach(() => t.cleanup());

describe('guard state', () => {
  it('keeps sticky predicates per session and resets one session only', () => {
    const s = openStore(t.file);
    s.state.setSticky('s1', 'read_private', 'true');
    s.state.setSticky('s1', 'read_private', 'unknown');
    s.state.setStickyMany('s1', [['sent_out', 'false'], ['x', 'true']]);
    s.state.setSticky('s2', 'read_private', 'true');
    expect(s.state.getSticky('s1')).toEqual(new Map([['read_private', 'unknown'], ['sent_out', 'false'], ['x', 'true']]));
    s.state.resetSession('s1');
    expect(s.state.getSticky('s1').size).toBe(0);
    expect(s.state.getSticky('s2').get('read_private')).toBe('true');
    expect(() => s.state.setSticky('s1', 'p', 'maybe' as never)).toThrow();
    expect(() => s.state.setStickyMany('s1', [['a', 'true'], ['b', 'nope' as never]])).toThrow();
    expect(s.state.getSticky('s1').size).toBe(0); // all or none
    s.close();
  });

  it('treats an unseen agent as trusted and validates tau and level', () => {
    const s = openStore(t.file);
    expect(s.state.getThreat('new')).toEqual({ agent: 'new', tau: 0, level: 0, quarantined: false, updatedAt: null });
    expect(s.state.setThreat('a', 0.3, 1)).toMatchObject({ tau: 0.3, level: 1, quarantined: false });
    expect(() => s.state.setThreat('a', 1.5, 1)).toThrow(StoreError);
    expect(() => s.state.setThreat('a', 0.5, 5)).toThrow(/level/);
    expect(() => s.state.setThreat('a', Number.NaN, 1)).toThrow(/tau/);
    s.close();
  });

  it('persists threat and quarantine across close and reopen, and audits them', () => {
    let s = openStore(t.file);
    s.state.setThreat('mallory', 0.82, 3);
    s.state.quarantine('mallory', 'prompt injection burst');
    s.state.setThreat('mallory', 0.9, 4); // a later score does not lift quarantine
    s.close();
    s = openStore(t.file);
    expect(s.state.getThreat('mallory')).toMatchObject({ tau: 0.9, level: 4, quarantined: true, reason: 'prompt injection burst' });
    expect(s.state.listAgents().map((a) => a.agent)).toEqual(['mallory']);
    const released = s.state.release('mallory', 'alice');
    expect(released).toMatchObject({ tau: 0, level: 0, quarantined: false });
    expect(released.reason).toBeUndefined();
    s.close();
    s = openStore(t.file);
    expect(s.state.getThreat('mallory').quarantined).toBe(false);
    const rows = s.audit.tail(2);
    expect(rows.map((r) => [r.kind, r.tool, r.decision, r.agent])).toEqual([
      ['admin', 'quarantine', 'deny', 'mallory'],
      ['admin', 'release', 'allow', 'mallory'],
    ]);
    expect(rows[1]!.rationale).toMatch(/released by alice; was quarantined \(prompt injection burst\), tau 0\.900, level 4/);
    expect(() => s.state.release('nobody')).toThrow(expect.objectContaining({ code: 'store_agent_not_found' }));
    expect(s.audit.verify().ok).toBe(true);
    s.close();
  });

  it('applies concurrent read-modify-write updates atomically', async () => {
    const s = openStore(t.file);
    const bump = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await Promise.resolve();
        s.state.updateThreat('a', (cur) => ({ tau: Math.min(1, cur.tau + 0.001), level: cur.level }));
      }
    };
    await Promise.all([bump(200), bump(200), bump(200)]);
    expect(s.state.getThreat('a').tau).toBeCloseTo(0.6, 9);
    s.close();
  });

  it('shares one connection per file and closes it with the last user', () => {
    const a = openStore(t.file);
    const b = openStore(t.file);
    expect(b).toBe(a);
    a.close();
    a.state.setThreat('x', 0.1, 0); // still open: b holds it
    b.close();
    expect(() => a.state.getThreat('x')).toThrow(/not open|closed/i);
  });

  it('refuses a file that is not a store, and a missing one when it must exist', async () => {
    const { writeFileSync, mkdirSync } = await import('node:fs');
    const { dirname, join } = await import('node:path');
    mkdirSync(dirname(t.file), { recursive: true });
    writeFileSync(t.file, 'this is not sqlite at all, just text that is long enough to have a header');
    expect(() => openStore(t.file)).toThrow(expect.objectContaining({ code: 'store_open_failed' }));
    expect(() => openStore(join(t.dir, 'absent.db'), undefined, { mustExist: true })).toThrow(
      expect.objectContaining({ code: 'store_not_found' }),
    );
  });

  it('refuses a store written by a newer schema', async () => {
    const Database = (await import('better-sqlite3')).default;
    openStore(t.file).close();
    const raw = new Database(t.file);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => openStore(t.file)).toThrow(expect.objectContaining({ code: 'store_version_unsupported' }));
  });
});
