/**
 * Retention of the audit log through the built CLI and a running proxy, on a real SQLite file:
 * `quadguard audit prune` (rows dropped, the export, `audit verify` from the retention anchor, a failing verify after
 * tampering) and the config's `audit_retention` (a proxy drops old rows itself, in batches, and the chain verifies).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { openDatabase } from '../../src/store/sqlite.js';
import { connectHttp } from '../../src/cli/demos/kit.js';
import { CLI, makeSandbox, ROOT, server, startHttpProxy, waitFor, writeConfig } from '../support/proxy-harness.js';
import { entry } from '../store/helpers.js';

const DAY = 86_400_000;

function quadguard(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** A store with `old` rows written 10 days ago, then `recent` of today. */
async function aged(file: string, old: number, recent: number): Promise<void> {
  const s = openStore(file);
  const now = Date.now();
  for (let i = 1; i <= old + recent; i++) await s.audit.append(entry(i, { ts: i <= old ? now - 10 * DAY + i : now + i }));
  await s.close();
}

const count = (file: string): number => {
  const db = openDatabase(file, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM audit').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('audit retention (built CLI, SQLite)', () => {
  const sb = makeSandbox();
  afterAll(() => rmSync(sb.dir, { recursive: true, force: true }));
  beforeAll(() => {
    expect(existsSync(CLI), 'run `npm run build` first').toBe(true);
  });

  it('audit prune drops and exports the old rows; verify passes from the anchor, and fails after tampering', async () => {
    const store = join(sb.dir, 'prune.db');
    await aged(store, 8, 4);
    const out = join(sb.dir, 'before-5d.ndjson');
    const pruned = quadguard('audit', 'prune', '--store', store, '--older-than', '5', '--export', out);
    expect(pruned.code, pruned.err).toBe(0);
    expect(pruned.out).toMatch(/dropped 8 audit rows .* exported to .*; the kept chain verifies from row 8 \(8 rows dropped in all\)/);
    expect(count(store)).toBe(4);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: number; rationale: string });
    expect(lines.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(lines[0]!.rationale).toBe('decision 1');

    const verified = quadguard('audit', 'verify', '--store', store);
    expect(verified.code, verified.out + verified.err).toBe(0);
    expect(verified.out).toMatch(/rows 1–8 dropped by retention/);
    // Nothing more is due: a second prune drops nothing; an export file is never overwritten.
    expect(quadguard('audit', 'prune', '--store', store, '--older-than', '5').out).toMatch(/dropped 0 audit rows/);
    const again = quadguard('audit', 'prune', '--store', store, '--older-than', '5', '--export', out);
    expect(again.code).not.toBe(0);
    expect(again.err).toMatch(/EEXIST|exists/);

    const db = openDatabase(store);
    db.exec('DROP TRIGGER audit_no_update');
    db.prepare("UPDATE audit SET rationale = 'nothing to see' WHERE id = 10").run();
    db.close();
    const tampered = quadguard('audit', 'verify', '--store', store);
    expect(tampered.code).toBe(1);
    expect(tampered.out).toMatch(/first bad row 10/);
  }, 90_000);

  it('a proxy with audit_retention drops the old rows itself, exports them, and the chain verifies', async () => {
    const store = join(sb.dir, 'retained.db');
    await aged(store, 25, 3);
    const exportDir = join(sb.dir, 'pruned');
    const cfg = writeConfig(sb.dir, {
      servers: { ws: server('workspace', '--root', sb.workspace) },
      policy: join(ROOT, 'policies', 'default'),
      store,
      // Batches of 10: three transactions for the 25 rows due.
      audit_retention: { days: 1, export_dir: 'pruned', batch: 10 },
      agents: { writer: { token: { env: 'WRITER_TOKEN' } }, planner: {} },
    }, 'retention.yaml');
    const proxy = await startHttpProxy(cfg, { WRITER_TOKEN: 'writer-token-0123456789abcdef' }, ['--no-ui']);
    try {
      const client = await connectHttp(proxy.url, 'writer-token-0123456789abcdef', 'retention');
      await client.callTool({ name: 'guard_check_message', arguments: { sender: 'writer', recipient: 'planner', content: 'Status: the draft is ready.' } });
      await waitFor(() => count(store) <= 4, 30_000, 'the old rows dropped by the proxy');
      await waitFor(() => proxy.stderr().includes('audit retention: dropped 25 rows'), 10_000, 'the retention log line');
      await client.close();
    } finally {
      proxy.child.kill('SIGTERM');
      await new Promise<void>((r) => (proxy.child.exitCode !== null || proxy.child.signalCode !== null ? r() : proxy.child.once('exit', () => r())));
    }
    const files = readdirSync(exportDir);
    expect(files).toEqual([expect.stringMatching(/^audit-pruned-\d{4}-\d{2}-\d{2}\.ndjson$/)]);
    const ids = readFileSync(join(exportDir, files[0]!), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { id: number }).id);
    expect(ids).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    const verified = quadguard('audit', 'verify', '--store', store);
    expect(verified.code, verified.out + verified.err).toBe(0);
    expect(verified.out).toMatch(/rows 1–25 dropped by retention/);
  }, 90_000);
});
