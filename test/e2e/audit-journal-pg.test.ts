/**
 * Replicas journaling into ONE PostgreSQL store (issue #30 part 1; `audit_journal: true`, off by default there): two
 * `serve --http` processes of the built CLI on one database, each with its own journal folder, signed head and
 * clients, the audit key shared; one is killed with SIGKILL mid-load and started again on the same folder, several
 * times, while the other goes on. Afterwards `quadguard audit verify` exits 0, every denial's audit id names the row
 * of that very decision, and every answered decision is in the log with its decision.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { auditSelect, readStored } from '../../src/store/audit-columns.js';
import { runCli } from '../../src/cli/demos/kit.js';
import { usePostgres } from '../support/postgres.js';
import { makeSandbox, ROOT, server, spawnHttpProxy, writeConfig } from '../support/proxy-harness.js';
import { auditMismatches, interleavings, killOneAtATime, type JournalRow } from './journal-load.js';

const TOKEN = 'writer-token-0123456789abcdef';
const AUDIT_KEY = randomBytes(32).toString('hex');
const PROXIES = 2;
const CLIENTS = 3;
const KILLS = 3;

describe('audit journal: replicas on one PostgreSQL store, kill -9 of one mid-load', () => {
  const sb = makeSandbox();
  const pgServer = usePostgres();
  afterAll(() => rmSync(sb.dir, { recursive: true, force: true }));

  it('every answered decision is found by its audit id with the decision answered, and the chain verifies', async () => {
    const store = await pgServer.freshDatabase('journal');
    const cfg = writeConfig(sb.dir, {
      servers: { ws: server('workspace', '--root', join(sb.dir, 'workspace')) },
      policy: join(ROOT, 'policies', 'default'),
      store,
      audit_journal: true,
      agents: { writer: { token: { env: 'WRITER_TOKEN' } }, planner: {} },
    });
    /** A replica's environment: its own journal folder and signed head, kept across its restarts (its disk). */
    const env = (p: number) => ({
      PATH: process.env.PATH ?? '',
      QUADGUARD_LOG_LEVEL: 'info',
      QUADGUARD_HOME: join(sb.dir, `home${p}`),
      QUADGUARD_AUDIT_JOURNAL_DIR: join(sb.dir, `journal${p}`),
      QUADGUARD_AUDIT_HEAD_FILE: join(sb.dir, `replica${p}.head`),
      QUADGUARD_AUDIT_KEY: AUDIT_KEY,
      WRITER_TOKEN: TOKEN,
    });
    let replayed = 0;
    const answers = await killOneAtATime(
      async (p) => {
        const proxy = await spawnHttpProxy(['serve', '--config', cfg, '--http', '0', '--no-ui'], { env: env(p), timeoutMs: 90_000 });
        if (/"rows":[1-9][^\n]*replayed the audit journal/.test(proxy.stderr())) replayed++;
        return proxy;
      },
      { proxies: PROXIES, clients: CLIENTS, kills: KILLS, token: TOKEN },
    );

    const denied = answers.filter((a) => a.decision === 'deny');
    expect(denied.length, 'denials answered').toBeGreaterThan(10);
    // Journaled decisions are answered with their `ref`.
    expect(denied.every((a) => a.auditId !== undefined && /^j[0-9a-f]{12}\./.test(a.auditId)), 'every denial names its journaled audit id').toBe(true);
    const verify = await runCli(['audit', 'verify', '--store', store, ...[0, 1].flatMap((p) => ['--head', join(sb.dir, `replica${p}.head`)])], {
      QUADGUARD_AUDIT_KEY: AUDIT_KEY,
      QUADGUARD_HOME: join(sb.dir, 'verifier'),
    });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    const db = new pg.Client({ connectionString: store });
    await db.connect();
    try {
      // Rows read as the store reads them (a preview left out of the row is read from its recorded body).
      const all = (await db.query(auditSelect("WHERE a.kind = 'message'"))).rows.map(readStored) as JournalRow[];
      const byRef = new Map(all.map((r) => [r.ref, r]));
      const { wrong, missing } = auditMismatches(answers, (ref) => byRef.get(ref), all);
      expect(wrong, `denials whose audit id names another row or none (of ${denied.length})`).toEqual([]);
      expect(missing, `answered but not in the audit with that decision (of ${answers.length})`).toEqual([]);
      expect(new Set(all.map((r) => r.ref)).size, 'each row once').toBe(all.length);
      const refs = (await db.query('SELECT ref FROM audit WHERE ref IS NOT NULL ORDER BY id')).rows as Array<{ ref: string }>;
      expect(interleavings(refs.map((r) => r.ref))).toBeGreaterThan(PROXIES);
    } finally {
      await db.end();
    }
    // How many restarts found rows to replay (a kill between a journal write and its group's commit).
    console.log(`restarts that replayed a journal: ${replayed} of ${KILLS}`);
  }, 300_000);
});

