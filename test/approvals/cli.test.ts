import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/db.js';
import { CLI } from '../support/proxy-harness.js';

const run = promisify(execFile);
const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '' } });

describe('quadguard approve / deny-approval / approvals list / ui (spawned CLI)', () => {
  let dir: string;
  let db: string;
  let store: Store;
  const hold = async (n: string) =>
    (await store.approvals.request({ agent: 'writer', session: 's', kind: 'tool_call', server: 'ws', tool: 'publish', argsHash: n.repeat(64), rules: ['publish-needs-approval'], rationale: 'held', ttlMs: 600_000 })).approval;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'qg-approve-cli-'));
    db = join(dir, 'state.db');
    store = openStore(db);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists pending approvals, approves one and denies another (audited with --by)', async () => {
    const a = await hold('a');
    const b = await hold('b');
    const list = await cli('approvals', 'list', '--pending', '--store', db);
    expect(list.stdout).toContain(a.id);
    expect(list.stdout).toContain(b.id);
    expect(list.stdout).toMatch(/pending\s+writer\s+tool_call ws__publish\s+\[publish-needs-approval\]/);

    const ok = await cli('approve', a.id, '--by', 'ann', '--store', db);
    expect(ok.stdout).toMatch(new RegExp(`^approved ${a.id}: tool_call ws__publish of writer; its identical retry passes once until `));
    expect(await store.approvals.get(a.id)).toMatchObject({ status: 'approved', decidedBy: 'ann' });
    expect((await cli('deny-approval', b.id, '--by', 'bo', '--store', db)).stdout).toBe(`denied ${b.id}\n`);
    expect((await store.approvals.get(b.id))?.status).toBe('denied');

    const again = await cli('approve', b.id, '--store', db).catch((e: { code: number; stderr: string }) => e);
    expect((again as { code: number }).code).toBe(1);
    expect((again as { stderr: string }).stderr).toMatch(/store_approval_not_pending: approval ap_[0-9a-f]+ is denied \(by bo/);
    const c = await hold('c');
    await cli('approve', c.id, '--deny', '--store', db);
    expect((await store.approvals.get(c.id))?.status).toBe('denied');
    const json = (await cli('approvals', 'list', '--json', '--store', db)).stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; status: string });
    expect(json.map((x) => [x.id, x.status])).toEqual([[c.id, 'denied'], [b.id, 'denied'], [a.id, 'approved']]);
  }, 120_000);

  it('quadguard ui serves the store on 127.0.0.1 with the printed token, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [CLI, 'ui', '--store', db, '--port', '0'], { env: { PATH: process.env.PATH ?? '', QUADGUARD_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const link = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`ui did not start: ${out}`)), 15_000);
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /(http:\/\/127\.0\.0\.1:\d+\/ui\/)\?token=([0-9a-f]{32})/.exec(out);
        if (m) {
          clearTimeout(t);
          resolve(`${m[1]}|${m[2]}`);
        }
      });
      child.once('exit', (code) => reject(new Error(`ui exited with ${code}: ${out}`)));
    });
    const [url, token] = link.split('|') as [string, string];
    try {
      expect((await fetch(`${url}api/snapshot`)).status).toBe(401);
      const snap = await fetch(`${url}api/snapshot`, { headers: { authorization: `Bearer ${token}` } });
      expect(snap.status).toBe(200);
      expect(((await snap.json()) as { approvals: unknown[] }).approvals.length).toBeGreaterThanOrEqual(3);
    } finally {
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 60_000);
});
