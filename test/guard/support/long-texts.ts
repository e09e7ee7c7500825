/** What the worker-pool tests share: texts long enough for the pool, and a decision and audit rows without their recording. */
import { join } from 'node:path';
import type { Decision } from '../../../src/core/types.js';
import type { PreparedBook } from '../../../src/guard/build.js';
import { GuardPipeline } from '../../../src/guard/pipeline.js';
import type { TextPool } from '../../../src/guard/text-pool.js';
import { openStore, type Store } from '../../../src/store/db.js';
import { openDatabase } from '../../../src/store/sqlite.js';

/** The pool's threshold for a long text (characters). */
export const MIN = 256 * 1024;

const prose = 'The quarterly review covers the harbour project and the payroll migration for the finance team. ';
/** `n` characters of ordinary prose. */
export const fill = (n: number) => prose.repeat(Math.ceil(n / prose.length)).slice(0, n);

/** What in a decision depends on the reading, not on when or where it was recorded (audit ids name rows). */
export function verdict(d: Decision): unknown {
  const { auditId: _a, elapsedMs: _e, ...rest } = d;
  return JSON.parse(JSON.stringify(rest).replace(/\b\d+-[0-9a-f]{8}\b/g, '<audit id>'));
}

/** The audit rows of the store `file`, all but what names when and where they were written (time, chain, ids). */
export function auditRows(file: string): Record<string, unknown>[] {
  const db = openDatabase(file, { readonly: true });
  try {
    return db
      .prepare('SELECT a.*, b.body, i.masked, i.truncated FROM audit a JOIN audit_interaction i ON i.id = a.id LEFT JOIN audit_body b ON b.digest = i.body_digest ORDER BY a.id')
      .all()
      .map((r) => {
        const { id: _i, ts: _t, elapsed_ms: _e, prev_hash: _p, hash: _h, mac: _m, ref: _r, ...rest } = r as Record<string, unknown>;
        // A rationale naming an earlier row names it by its id and hash (the hash covers the row's time).
        return JSON.parse(JSON.stringify(rest).replace(/\b\d+-[0-9a-f]{8}\b/g, '<audit id>')) as Record<string, unknown>;
      });
  } finally {
    db.close();
  }
}

/**
 * Two pipelines of `prepared`'s book on stores in `dir` (`pool.db`, `loop.db`, one flow key for both: the fingerprints
 * kept of a long read are a sample chosen by a keyed hash), one reading long texts in `pool`, one on the event loop;
 * `close` closes both stores.
 */
export function poolAndLoopPipelines(prepared: PreparedBook, pool: TextPool, dir: string): { inPool: GuardPipeline; onLoop: GuardPipeline; close(): void } {
  const stores: Store[] = [];
  const pipeline = (withPool: boolean) => {
    const store = openStore(join(dir, `${withPool ? 'pool' : 'loop'}.db`), undefined, { flowKey: Buffer.alloc(32, 9) });
    stores.push(store);
    return new GuardPipeline({ book: prepared.book, index: prepared.index, store, pool: withPool ? pool : null, now: () => 1_000_000 });
  };
  return { inPool: pipeline(true), onLoop: pipeline(false), close: () => stores.forEach((s) => s.close()) };
}
