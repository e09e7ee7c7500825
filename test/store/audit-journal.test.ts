import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openDatabase } from '../../src/store/sqlite.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AUDIT_COLUMNS } from '../../src/store/audit-row.js';
import type { RawAuditRow } from '../../src/store/audit-schema.js';
import { journalDir } from '../../src/store/audit-journal.js';
import { openStore, RawAuditRowSchema } from '../../src/store/index.js';
import { GROUP_ANSWER_MS, GROUP_MAX_ROWS, GROUP_WINDOW_MS } from '../../src/store/audit.js';
import { waitFor } from '../support/proxy-harness.js';
import { collect, entry, tempDir } from './helpers.js';

let t: ReturnType<typeof tempDir>;
beforeEach(() => {
  t = tempDir();
});
afterEach(() => t.cleanup());

const ownJournal = (file: string) => join(journalDir(file), `${process.pid}.ndjson`);
const rows = (file: string) => {
  const db = openDatabase(file, { readonly: true });
  try {
    return db.prepare('SELECT id, rationale, hash FROM audit ORDER BY id').all() as Array<{ id: number; rationale: string; hash: string }>;
  } finally {
    db.close();
  }
};
/** A row by audit id, read by a store opened for it alone (closed again). */
const c2 = (file: string) => ({
  async get(id: string) {
    const s = openStore(file);
    try {
      return await s.audit.get(id);
    } finally {
      await s.close();
    }
  },
});
/** The pid of a process that has ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;
/** A copy of the store folder (database, key, signed head) under another name. */
function copyStore(file: string): string {
  const to = join(t.dir, 'copy');
  cpSync(dirname(file), to, { recursive: true, filter: (src) => !src.includes('.audit-journal') });
  return join(to, 'state.db');
}

describe('audit journal (SQLite)', () => {
  it('writes the column list once: it is every column of a stored row', () => {
    expect([...AUDIT_COLUMNS].sort()).toEqual(Object.keys(RawAuditRowSchema.shape).sort());
  });

  it('answers from the journal, commits the group after the window, and the chain verifies', async () => {
    const s = openStore(t.file, undefined, { auditJournal: true });
    const answered = [];
    for (const i of [1, 2, 3]) answered.push(await s.audit.append(entry(i)));
    // Answered with ids that do not depend on the place in the chain, before the rows have one.
    expect(answered.every((a) => /^j[0-9a-f]{12}\.[0-9a-z]+$/.test(a.auditId) && a.id === undefined)).toBe(true);
    expect(new Set(answered.map((a) => a.auditId)).size).toBe(3);
    // Answered, in the journal, not yet in the database.
    expect(rows(t.file)).toHaveLength(0);
    expect(readFileSync(ownJournal(t.file), 'utf8').trim().split('\n')).toHaveLength(3);
    await waitFor(async () => rows(t.file).length === 3, 2000, 'the group to be committed');
    expect(rows(t.file).map((r) => r.rationale)).toEqual(['decision 1', 'decision 2', 'decision 3']);
    expect((await Promise.all(answered.map((a) => s.audit.get(a.auditId)))).map((r) => r?.rationale)).toEqual(['decision 1', 'decision 2', 'decision 3']);
    expect((await s.audit.get(answered[0]!.auditId))?.auditId).toBe(answered[0]!.auditId);
    // Committed lines stay in the journal until it passes its size (a replay skips refs the store holds).
    expect(readFileSync(ownJournal(t.file), 'utf8').trim().split('\n')).toHaveLength(3);
    // A mutation's row, and a read, follow the pending rows.
    await s.audit.append(entry(4));
    await s.state.quarantine('mallory', 'decision 5');
    expect((await s.audit.tail(2)).map((r) => r.rationale)).toEqual(['decision 4', 'decision 5']);
    const v = await s.audit.verify();
    expect(v.ok, JSON.stringify(v)).toBe(true);
    expect(v.rows).toBe(5);
    await s.close();
    expect(existsSync(ownJournal(t.file))).toBe(false);
  });

  it('commits the rows answered within the window as one group, a full group at once, and what waits before a read', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
    const s = openStore(t.file, undefined, { auditJournal: true });
    const turn = () => vi.advanceTimersByTime(0);
    try {
      // A call and its result, a turn apart, and another call: one group, committed GROUP_WINDOW_MS after the first.
      const call = await s.audit.append(entry(1));
      turn();
      await s.audit.append(entry(2, { kind: 'tool_result', payload: [{ type: 'text', text: 'one' }], rationale: 'result 2' }));
      vi.advanceTimersByTime(GROUP_WINDOW_MS - 1);
      await s.audit.append(entry(4));
      turn();
      expect(rows(t.file)).toHaveLength(0);
      expect(readFileSync(ownJournal(t.file), 'utf8').trim().split('\n')).toHaveLength(3);
      vi.advanceTimersByTime(1);
      expect(rows(t.file).map((r) => r.rationale)).toEqual(['decision 1', 'result 2', 'decision 4']);
      expect((await s.audit.get(call.auditId))?.rationale).toBe('decision 1');
      // The next row opens the next window.
      await s.audit.append(entry(5));
      vi.advanceTimersByTime(GROUP_WINDOW_MS - 1);
      expect(rows(t.file)).toHaveLength(3);
      vi.advanceTimersByTime(1);
      expect(rows(t.file)).toHaveLength(4);
      // A full group commits once the turn is over, without waiting out the window.
      for (let i = 0; i < GROUP_MAX_ROWS; i++) await s.audit.append(entry(100 + i));
      expect(rows(t.file)).toHaveLength(4);
      turn();
      expect(rows(t.file)).toHaveLength(4 + GROUP_MAX_ROWS);
      // A read commits what waits, without the window.
      await s.audit.append(entry(7, { kind: 'message', payload: 'hello' }));
      expect((await s.audit.tail(1))[0]?.rationale).toBe('decision 7');
      const v = await s.audit.verify();
      expect(v.ok, JSON.stringify(v)).toBe(true);
      expect(v.rows).toBe(5 + GROUP_MAX_ROWS);
    } finally {
      await s.close();
      vi.useRealTimers();
    }
  });

  it('commits once the turn has answered when a tool result comes late in the window; a call, or an early result, waits', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] });
    const s = openStore(t.file, undefined, { auditJournal: true });
    const turn = () => vi.advanceTimersByTime(0);
    const result = (i: number) => entry(i, { kind: 'tool_result', payload: [{ type: 'text', text: `result ${i}` }] });
    try {
      await s.audit.append(entry(1));
      turn();
      await s.audit.append(result(2));
      turn();
      vi.advanceTimersByTime(GROUP_ANSWER_MS - 1);
      await s.audit.append(result(3));
      turn();
      expect(rows(t.file)).toHaveLength(0);
      vi.advanceTimersByTime(1);
      // The window's last part: a call's row still waits.
      await s.audit.append(entry(4));
      turn();
      expect(rows(t.file)).toHaveLength(0);
      // A result's row commits the group, with every row before it, once its turn is over.
      await s.audit.append(result(5));
      expect(rows(t.file)).toHaveLength(0);
      turn();
      expect(rows(t.file).map((r) => r.rationale)).toEqual(['decision 1', 'decision 2', 'decision 3', 'decision 4', 'decision 5']);
      // The next window: a result early in it waits for the window's end, as before.
      await s.audit.append(result(6));
      turn();
      vi.advanceTimersByTime(GROUP_WINDOW_MS - 1);
      expect(rows(t.file)).toHaveLength(5);
      vi.advanceTimersByTime(1);
      expect(rows(t.file)).toHaveLength(6);
      const v = await s.audit.verify();
      expect(v.ok, JSON.stringify(v)).toBe(true);
    } finally {
      await s.close();
      vi.useRealTimers();
    }
  });

  it('stores the same rows whichever moment commits them (as results are answered, or all at once)', async () => {
    const kinds = ['tool_call', 'tool_result', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'tool_call', 'tool_result'] as const;
    const stored = async (file: string, commitEarly: boolean) => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'Date'] });
      vi.setSystemTime(1_800_000_000_000);
      const s = openStore(file, undefined, { auditJournal: true });
      try {
        for (const [k, kind] of kinds.entries()) {
          await s.audit.append(entry(k + 1, kind === 'tool_result' ? { kind, payload: [{ type: 'text', text: `result ${k}` }] } : {}));
          // Each row 3 ms after the last. Early: the timers run, so results come late in windows and commit their
          // groups as they answer; else the clock moves alone and every row is committed at close.
          if (commitEarly) vi.advanceTimersByTime(3);
          else vi.setSystemTime(Date.now() + 3);
          // The second result came 9 ms into the window: its group is in.
          if (commitEarly && k === 3) expect(rows(file)).toHaveLength(4);
        }
        const v = await s.audit.verify();
        expect(v.ok && v.rows === kinds.length, JSON.stringify(v)).toBe(true);
      } finally {
        await s.close();
        vi.useRealTimers();
      }
      const db = openDatabase(file, { readonly: true });
      try {
        // Every column but those that hold the journal's random tag (`ref`, and through it the chain) or the store's
        // own audit key (the MAC); each chain is verified above.
        const all = db.prepare('SELECT * FROM audit ORDER BY id').all() as Array<RawAuditRow>;
        const audit = all.map(({ mac: _m, hash: _h, prev_hash: _p, ref, ...row }) => ({ ...row, ref: ref?.replace(/^j[0-9a-f]{12}\./, 'j.') }));
        return { audit, interactions: db.prepare('SELECT * FROM audit_interaction ORDER BY id').all(), bodies: db.prepare('SELECT * FROM audit_body ORDER BY digest').all() };
      } finally {
        db.close();
      }
    };
    const early = await stored(t.file, true);
    const late = await stored(join(t.dir, 'other', 'state.db'), false);
    expect(early.audit).toHaveLength(kinds.length);
    expect(early).toEqual(late);
  });

  it('replays the journal of a process that died, as written when the store has not moved', async () => {
    const s = openStore(t.file);
    await s.audit.append(entry(1));
    await s.close();
    const copy = copyStore(t.file);
    const j = openStore(t.file, undefined, { auditJournal: true });
    const answered = [];
    for (const i of [2, 3, 4]) answered.push(await j.audit.append(entry(i)));
    const journal = readFileSync(ownJournal(t.file));
    await j.close();
    // The copy is the store as a kill -9 left it: the rows in a dead process's journal only.
    mkdirSync(journalDir(copy), { recursive: true });
    writeFileSync(join(journalDir(copy), `${deadPid()}.ndjson`), journal);
    const c = openStore(copy);
    const v = await c.audit.verify();
    await c.close();
    expect(v.ok, JSON.stringify(v)).toBe(true);
    expect((await Promise.all(answered.map((a) => c2(copy).get(a.auditId)))).map((r) => r?.rationale)).toEqual(['decision 2', 'decision 3', 'decision 4']);
    expect(rows(copy).map((r) => r.hash)).toEqual(rows(t.file).map((r) => r.hash));
    // Replayed once: the file is gone, a second open adds nothing.
    await openStore(copy).close();
    expect(rows(copy)).toHaveLength(4);
  });

  it('chains a dead process journal after rows another process appended meanwhile, and refuses an edited line', async () => {
    const s = openStore(t.file);
    await s.audit.append(entry(1));
    await s.close();
    const copy = copyStore(t.file);
    const j = openStore(t.file, undefined, { auditJournal: true });
    const answered = [];
    for (const i of [2, 3, 4]) answered.push((await j.audit.append(entry(i))).auditId);
    const lines = readFileSync(ownJournal(t.file), 'utf8').trim().split('\n');
    await j.close();
    // Another process took row 2 before the journal was replayed.
    const other = openStore(copy);
    await other.audit.append(entry(99));
    await other.close();
    // And someone edited one journaled row (without the key, its MAC no longer matches).
    lines[1] = lines[1]!.replace('decision 3', 'decision 3 (approved by the CISO)');
    mkdirSync(journalDir(copy), { recursive: true });
    writeFileSync(join(journalDir(copy), `${deadPid()}.ndjson`), `${lines.join('\n')}\n`);
    const c = openStore(copy);
    const v = await c.audit.verify();
    await c.close();
    expect(v.ok, JSON.stringify(v)).toBe(true);
    expect(rows(copy).map((r) => r.rationale)).toEqual(['decision 1', 'decision 99', 'decision 2', 'decision 4']);
    // The ids answered name the rows they were answered for, wherever those landed; the edited one is not there.
    expect((await Promise.all(answered.map((a) => c2(copy).get(a)))).map((r) => r?.rationale)).toEqual(['decision 2', undefined, 'decision 4']);
    expect(readdirSync(journalDir(copy))).toEqual([]);
  });

  it('empties the journal once its committed lines pass 256 KiB, never a line not yet committed', async () => {
    const s = openStore(t.file, undefined, { auditJournal: true });
    const long = 'x'.repeat(4000);
    let n = 0;
    // Past 256 KiB of lines, the commit after them empties the file.
    while (statSync(ownJournal(t.file)).size < 256 * 1024) await s.audit.append(entry(++n, { rationale: `${long} ${n}` }));
    expect(rows(t.file)).toHaveLength(0);
    await waitFor(async () => rows(t.file).length === n, 2000, 'the group to be committed');
    expect(statSync(ownJournal(t.file)).size).toBe(0);
    // The next decision is in the journal before its commit, as ever.
    await s.audit.append(entry(++n));
    expect(readFileSync(ownJournal(t.file), 'utf8').trim().split('\n')).toHaveLength(1);
    await s.close();
    const again = openStore(t.file);
    expect(await again.audit.verify()).toMatchObject({ ok: true, rows: n });
    await again.close();
  });

  it('leaves a live process journal alone', async () => {
    const s = openStore(t.file);
    await s.audit.append(entry(1));
    await s.close();
    const copy = copyStore(t.file);
    const j = openStore(t.file, undefined, { auditJournal: true });
    await j.audit.append(entry(2));
    const journal = readFileSync(ownJournal(t.file));
    await j.close();
    mkdirSync(journalDir(copy), { recursive: true });
    // pid 1 always runs.
    writeFileSync(join(journalDir(copy), '1.ndjson'), journal);
    await openStore(copy).close();
    expect(rows(copy)).toHaveLength(1);
  });

  it('several processes journaling into one store: every id answered names the row of the decision answered, one chain', async () => {
    const { spawn } = await import('node:child_process');
    const mod = new URL('../../dist/src/store/index.js', import.meta.url).href;
    expect(existsSync(new URL(mod)), 'run `npm run build` first').toBe(true);
    await openStore(t.file).close();
    // Each process answers 300 decisions, letting its group commits run between them, while the others commit theirs.
    // They start together (each says it is ready, then waits for the go file), so their rows interleave however
    // loaded the machine is.
    const script = `const { openStore } = await import(${JSON.stringify(mod)});
      const { existsSync, writeFileSync } = await import('node:fs');
      const s = openStore(process.argv[1], undefined, { auditJournal: true });
      writeFileSync(process.argv[1] + '.ready-' + process.argv[2], '');
      while (!existsSync(process.argv[1] + '.go')) await new Promise((r) => setTimeout(r, 5));
      const out = [];
      for (let i = 0; i < 300; i++) {
        const decision = i % 3 === 0 ? 'deny' : 'allow';
        const a = await s.audit.append({ agent: process.argv[2], session: 's', kind: 'message', payload: process.argv[2] + '-' + i, decision });
        out.push(a.auditId + ' ' + process.argv[2] + '-' + i + ' ' + decision);
        if (i % 7 === 0) await new Promise((r) => setTimeout(r, 1));
        if (i % 50 === 0) await s.state.quarantine(process.argv[2] + '-q' + i, 'direct ' + i);
      }
      s.close();
      process.stdout.write(out.join('\\n'));`;
    const run = (agent: string) =>
      new Promise<string>((res, rej) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script, t.file, agent], { stdio: ['ignore', 'pipe', 'inherit'] });
        let text = '';
        child.stdout.on('data', (d: Buffer) => (text += d.toString()));
        child.on('exit', (code) => (code === 0 ? res(text) : rej(new Error(`child ${agent} exited ${code}`))));
      });
    const runs = [run('p1'), run('p2'), run('p3')];
    await waitFor(() => ['p1', 'p2', 'p3'].every((a) => existsSync(`${t.file}.ready-${a}`)), 40_000);
    writeFileSync(`${t.file}.go`, '');
    const answered = (await Promise.all(runs)).flatMap((t) => t.split('\n'));
    expect(answered).toHaveLength(900);
    const s = openStore(t.file);
    try {
      expect(await s.audit.verify()).toMatchObject({ ok: true, rows: 900 + 18 });
      for (const line of answered) {
        const [id, payload, decision] = line.split(' ');
        const row = await s.audit.get(id!);
        expect(row && [row.preview, row.decision], id).toEqual([payload, decision]);
      }
      // The processes' rows are interleaved in the one chain (else the test proves nothing about several writers).
      const order = (await collect(s.audit.iterate())).map((r) => r.agent);
      expect(order.filter((a, i) => i > 0 && a !== order[i - 1]).length).toBeGreaterThan(3);
    } finally {
      await s.close();
    }
  }, 60_000);
});
