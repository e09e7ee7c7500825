/**
 * better-sqlite3 12 on Node 24 aborted `quadguard eval` and `policy explain` (exit 134, "Assertion failed: (env) !=
 * nullptr" in ~Statement) when a background GC collected a Statement (src/store/sqlite.ts). These commands open an
 * in-memory store each; run through the built CLI on the Node running the suite (CI runs it on 20, 22 and 24), they
 * must exit 0. On Node 24 without src/store/sqlite.ts's kept objects, every run here aborted.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { CLI, ROOT } from '../support/proxy-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'qg-sqlite-teardown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', timeout: 120_000 });

describe(`SQLite objects and the end of the process (Node ${process.versions.node})`, () => {
  it('policy explain exits 0, with its report', () => {
    const r = cli(['policy', 'explain', join(ROOT, 'policies', 'default'), '--interaction', '{"kind":"tool_call","server":"files","tool":"delete_file","arguments":{"path":"/etc/passwd"}}']);
    expect(r.status, r.stderr.slice(0, 400)).toBe(0);
    expect(r.stdout).toContain('no-delete-outside-sandbox');
  });

  it('eval over cases that each open a fresh in-memory store exits 0, with its table', () => {
    const cases = Array.from({ length: 12 }, (_, i) => JSON.stringify({ id: `c${i}`, suite: 'teardown', policy: 'default', steps: [{ kind: 'tool_call', server: 'files', tool: i % 2 === 0 ? 'read_file' : 'delete_file', arguments: { path: i % 2 === 0 ? '/tmp/notes.txt' : '/etc/passwd' } }], expect: { decision: i % 2 === 0 ? 'allow' : 'deny' } }));
    writeFileSync(join(dir, 'cases.jsonl'), `${cases.join('\n')}\n`);
    const r = cli(['eval', '--cases', join(dir, 'cases.jsonl'), '--quiet']);
    expect(r.status, r.stderr.slice(0, 400)).toBe(0);
    expect(r.stdout).toMatch(/^overall +12 /m);
  });

  it('a store opened and closed many times in one process leaves its pragmas working', async () => {
    for (let i = 0; i < 50; i++) await openStore(':memory:').close();
    const s = openStore(join(dir, 'state.db'));
    await s.close();
  });
});
