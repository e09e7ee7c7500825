/**
 * Several proxies journaling into ONE SQLite store (issue #30 part 1; the journal is on by default): three `serve
 * --http` processes of the built CLI share a store file, each under load from clients of its own, and one of them
 * is killed with SIGKILL mid-load and started again, several times, while the others go on. Afterwards the chain
 * verifies (`quadguard audit verify`), every denial's audit id (what a client is told) names the row of that very
 * decision, and every answered allow is in the log with its decision.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/demos/kit.js';
import { auditSelect, readStored } from '../../src/store/audit-columns.js';
import { openDatabase } from '../../src/store/sqlite.js';
import { makeSandbox, ROOT, server, spawnHttpProxy, writeConfig } from '../support/proxy-harness.js';
import { auditMismatches, interleavings, killOneAtATime, type JournalRow } from './journal-load.js';

const TOKEN = 'writer-token-0123456789abcdef';
const PROXIES = 3;
const CLIENTS = 3;
const KILLS = 3;

describe('audit journal: several proxies on one SQLite store, kill -9 of one mid-load', () => {
  const sb = makeSandbox();
  afterAll(() => rmSync(sb.dir, { recursive: true, force: true }));

  it('every answered decision is found by its audit id with the decision answered, and the chain verifies', async () => {
    const store = join(sb.dir, 'shared.db');
    // No `audit_journal` in the config: the journal is the default.
    const cfg = writeConfig(sb.dir, {
      servers: { ws: server('workspace', '--root', join(sb.dir, 'workspace')) },
      policy: join(ROOT, 'policies', 'default'),
      store,
      agents: { writer: { token: { env: 'WRITER_TOKEN' } }, planner: {} },
    });
    const answers = await killOneAtATime(
      () =>
        spawnHttpProxy(['serve', '--config', cfg, '--http', '0', '--no-ui'], {
          env: { PATH: process.env.PATH ?? '', QUADGUARD_LOG_LEVEL: 'info', WRITER_TOKEN: TOKEN },
          timeoutMs: 90_000,
        }),
      { proxies: PROXIES, clients: CLIENTS, kills: KILLS, token: TOKEN },
    );

    const denied = answers.filter((a) => a.decision === 'deny');
    expect(denied.length, 'denials answered').toBeGreaterThan(10);
    expect(denied.every((a) => a.auditId !== undefined), 'every denial names its audit id').toBe(true);
    // `audit verify` opens the store, replays any journal left, and walks the chain.
    const verify = await runCli(['audit', 'verify', '--store', store]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    const db = openDatabase(store, { readonly: true });
    try {
      // Rows read as the store reads them (a preview left out of the row is read from its recorded body).
      const byRefStmt = db.prepare(auditSelect('WHERE a.ref = ?'));
      const byRef = (ref: string) => ((r) => (r === undefined ? undefined : (readStored(r) as JournalRow)))(byRefStmt.get(ref));
      const messages = db.prepare(auditSelect("WHERE a.kind = 'message'")).all().map(readStored) as JournalRow[];
      const { wrong, missing } = auditMismatches(answers, byRef, messages);
      expect(wrong, `denials whose audit id names another row or none (of ${denied.length})`).toEqual([]);
      expect(missing, `answered but not in the audit with that decision (of ${answers.length})`).toEqual([]);
      // The processes wrote one chain together (their rows interleave), not one after another.
      const refs = db.prepare('SELECT ref FROM audit WHERE ref IS NOT NULL ORDER BY id').all() as Array<{ ref: string }>;
      expect(interleavings(refs.map((r) => r.ref))).toBeGreaterThan(PROXIES);
    } finally {
      db.close();
    }
  }, 300_000);
});

