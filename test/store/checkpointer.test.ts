import { mkdtempSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, pragma } from '../../src/store/sqlite.js';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Frames in the write-ahead log now, read by another connection (a PASSIVE checkpoint reports them). */
const walFrames = (file: string): number => {
  const db = openDatabase(file);
  try {
    return (pragma(db, 'wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]!.log;
  } finally {
    db.close();
  }
};

describe('background WAL checkpointing', () => {
  it('keeps the write-ahead log checkpointed while the proxy writes, and the chain intact', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qg-ckpt-'));
    dirs.push(dir);
    const file = join(dir, 'state.db');
    const store = openStore(file, undefined, { backgroundCheckpoint: true });
    // Fewer commits than SQLite's own auto-checkpoint would wait for (1000 pages): only the worker checkpoints.
    for (let i = 0; i < 300; i++) await store.audit.append({ agent: 'a', session: 's', kind: 'tool_call', tool: 't', decision: 'allow', rationale: `row ${i}`, payload: { i } });
    // The worker's PASSIVE checkpoints let the next writer restart the log from its beginning.
    await new Promise((done) => setTimeout(done, 800));
    for (let i = 0; i < 5; i++) await store.audit.append({ agent: 'a', session: 's', kind: 'tool_call', tool: 't', decision: 'allow', rationale: `late ${i}`, payload: { i } });
    const written = walFrames(file);
    expect((await store.audit.verify()).ok).toBe(true);
    await store.close();
    // 305 commits of 2–3 pages each would leave ~700+ frames of log without a checkpoint; restarted, it is short.
    expect(written).toBeLessThan(100);
  });

  it('close returns once the worker is gone: nothing touches the folder after it (a test or a user may remove it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qg-ckpt-'));
    dirs.push(dir);
    // Closed at once: the worker is still starting, and would open the file (making a new -wal) after an unawaited close.
    await openStore(join(dir, 'state.db'), undefined, { backgroundCheckpoint: true }).close();
    const touched: string[] = [];
    const watcher = watch(dir, (_event, name) => touched.push(String(name)));
    await new Promise((done) => setTimeout(done, 500));
    watcher.close();
    expect(touched).toEqual([]);
  });

  it('is off by default (CLI commands open a store briefly)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qg-ckpt-'));
    dirs.push(dir);
    const file = join(dir, 'state.db');
    const store = openStore(file);
    // 200 commits of 3–4 pages each: under SQLite's own checkpoint at 1,000 frames, which still applies.
    for (let i = 0; i < 200; i++) await store.audit.append({ agent: 'a', session: 's', kind: 'tool_call', tool: 't', decision: 'allow', rationale: `row ${i}`, payload: { i } });
    expect(walFrames(file)).toBeGreaterThan(300);
    await store.close();
  });
});
