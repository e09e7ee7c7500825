import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { InteractionSchema } from '../../src/core/types.js';
import { prepareBook } from '../../src/guard/build.js';
import { PoolOptionsSchema } from '../../src/guard/options.js';
import { GuardPipeline } from '../../src/guard/pipeline.js';
import { sharedPool, spareThread, TextPool } from '../../src/guard/text-pool.js';
import { openStore } from '../../src/store/db.js';
import { fill, MIN } from './support/long-texts.js';
import { threadNice } from './support/pool-nice-worker.js';

/**
 * The pool's workers lower their own thread's priority at start (`guard.pool.nice`, text-pool.ts): on Linux each
 * thread has a nice value of its own, so the worker's changes and the event loop's does not. A worker that cannot
 * (another platform, a value the system refuses) runs anyway and the pool says so once, at debug.
 */

const NICE_WORKER = pathToFileURL(join(import.meta.dirname, 'support/pool-nice-worker.ts')).href;
const linux = process.platform === 'linux';
const silent = pino({ level: 'silent' });
const mainNice = (): number => threadNice(`/proc/self/task/${process.pid}/stat`);
const pools: TextPool[] = [];
/** How many of this process's threads run at `nice`. */
const threadsAt = (nice: number): number => readdirSync('/proc/self/task').filter((t) => threadNice(`/proc/self/task/${t}/stat`) === nice).length;
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

function pool(nice: number | undefined, logger = silent, workers = 1): TextPool {
  const p = new TextPool({ workers, queue: 4, url: NICE_WORKER, logger, ...(nice !== undefined ? { nice } : {}) });
  pools.push(p);
  return p;
}

describe('the pool workers\' priority', () => {
  it('defaults to nice 10', () => {
    expect(PoolOptionsSchema.parse({}).nice).toBe(10);
    expect(() => PoolOptionsSchema.parse({ nice: 20 })).toThrow();
    expect(() => PoolOptionsSchema.parse({ nice: -1 })).toThrow();
  });

  it.runIf(linux)('a worker runs at the configured nice value; the event loop\'s thread stays as it was', async () => {
    const before = mainNice();
    expect(await pool(7).run({ kind: 'books' })).toBe(7);
    expect(await pool(13).run({ kind: 'books' })).toBe(13);
    expect(mainNice()).toBe(before);
  });

  it.runIf(linux)('nice 0, or none, leaves a worker at the process\'s priority', async () => {
    const before = mainNice();
    expect(await pool(0).run({ kind: 'books' })).toBe(before);
    expect(await pool(undefined).run({ kind: 'books' })).toBe(before);
  });

  it.runIf(linux)('the real worker module and the spare thread are niced too', async () => {
    expect(threadsAt(6)).toBe(0);
    const spare = spareThread(silent, 6);
    pools.push(spare);
    expect(await spare.run({ kind: 'books' })).toEqual([]);
    // The worker's thread (and, from the sources, the loader thread tsx starts in it, which inherits its value).
    expect(threadsAt(6)).toBeGreaterThanOrEqual(1);
    expect(mainNice()).not.toBe(6);
  });

  it.runIf(linux)('a pipeline gives guard.pool.nice to its pool and its spare thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qg-pool-nice-'));
    const store = openStore(join(dir, 'state.db'));
    try {
      expect(threadsAt(4)).toBe(0);
      // The threads one worker of the real module brings at a nice value (its own and, from the sources, the loader
      // thread tsx starts in it, which inherits the value).
      const one = new TextPool({ workers: 1, queue: 1, logger: silent, nice: 3 });
      pools.push(one);
      await one.run({ kind: 'books' });
      const perWorker = threadsAt(3);
      expect(perWorker).toBeGreaterThanOrEqual(1);
      const prepared = await prepareBook(join(import.meta.dirname, '../../policies/default'));
      const pipeline = new GuardPipeline({ book: prepared.book, index: prepared.index, store, options: { pool: { workers: 1, read_ahead: true, nice: 4 } } });
      const read = InteractionSchema.parse({ agent: 'assistant', session: 's1', kind: 'tool_result', server: 'files', tool: 'read_file', content: [{ type: 'text', text: fill(MIN + 4096) }] });
      expect((await pipeline.check(read)).decision).toBe('allow');
      // The pool's worker and the spare thread.
      expect(threadsAt(4)).toBe(2 * perWorker);
    } finally {
      // The process's pool and spare thread for these settings: this test's alone.
      await Promise.all([sharedPool(1, PoolOptionsSchema.parse({}).queue, undefined, 4).close(), spareThread(undefined, 4).close()]);
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a worker that cannot lower its priority still runs, and the pool says so once, at debug', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, new Writable({ write: (chunk: Buffer, _enc, done) => { lines.push(chunk.toString()); done(); } }));
    // Out of setpriority's range (the setting allows 0–19): every worker is refused.
    const p = pool(99, logger, 2);
    const answers = await Promise.all([p.run({ kind: 'books' }), p.run({ kind: 'books' })]);
    if (linux) expect(answers).toEqual([mainNice(), mainNice()]);
    expect(p.running).toBe(2);
    const said = lines.filter((l) => l.includes('guard.pool.nice not applied'));
    expect(said).toHaveLength(1);
    expect(JSON.parse(said[0]!)).toMatchObject({ level: 20, nice: 99 });
  });
});
