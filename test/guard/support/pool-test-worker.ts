import { poolHandler as realHandler, type PoolMessage } from '../../../src/guard/pool-worker.js';
import { SharedTextCache } from '../../../src/guard/shared-texts.js';

/**
 * The pool's worker module with two faults a test can ask for, by a marker in what it is sent: `CRASH-THE-WORKER`
 * ends the worker thread (as a crash or an out-of-memory would), `HOLD-THE-WORKER-<ms>` keeps it busy that long
 * before answering as the real one does. Everything else is the real handler.
 */
export function poolHandler(): (m: PoolMessage) => unknown {
  const handle = realHandler();
  const texts = new SharedTextCache();
  return (m) => {
    // The long texts as the real handler reads them (sent once, as shared bytes).
    if ('shared' in m && m.shared !== undefined) {
      texts.restore(m, m.shared);
      delete m.shared;
    }
    const seen = m.kind === 'read_hashes' ? m.text.slice(0, 64) : m.kind === 'evaluate' ? JSON.stringify(m.interaction).slice(0, 4096) : '';
    if (seen.includes('CRASH-THE-WORKER')) process.exit(3);
    const hold = /HOLD-THE-WORKER-(\d+)/.exec(seen);
    if (hold) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(hold[1]));
    return handle(m);
  };
}
