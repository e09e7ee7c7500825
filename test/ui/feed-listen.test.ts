import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import type { AuditWatchHandlers, GuardStore } from '../../src/store/engine.js';
import { LiveFeed, type LiveEvent } from '../../src/ui/feed.js';
import { entry } from '../store/helpers.js';

/**
 * The feed with a store that notifies new rows (as PostgreSQL's LISTEN does; the real one is covered end to end in
 * test/e2e/live-listen-postgres.test.ts): a SQLite store whose `audit.watch` the test drives.
 */
function notifyingStore(dir: string): { store: GuardStore; handlers: () => AuditWatchHandlers | undefined; closed: () => boolean } {
  const base: GuardStore = openStore(join(dir, 'state.db'));
  let handlers: AuditWatchHandlers | undefined;
  let closed = false;
  const audit = Object.create(base.audit) as GuardStore['audit'];
  audit.watch = (h) => {
    handlers = h;
    return { close: () => void (closed = true) };
  };
  return { store: { ...base, audit, close: () => base.close() }, handlers: () => handlers, closed: () => closed };
}

const until = async (pred: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('LiveFeed with notified rows', () => {
  let dir = '';
  let feed: LiveFeed | undefined;
  afterEach(() => {
    feed?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('delivers a notified row at once although the poll is an hour away; polls again when the LISTEN is lost', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-feed-'));
    const { store, handlers, closed } = notifyingStore(dir);
    feed = new LiveFeed(store, { pollMs: 3_600_000 });
    const got: LiveEvent[] = [];
    const unsubscribe = feed.subscribe(0, (e) => got.push(e));
    expect(handlers()).toBeDefined();
    handlers()!.onState(true);
    expect(feed.notified).toBe(true);
    // Listening starts with a catch-up tick; let it end.
    await new Promise((r) => setTimeout(r, 200));

    await store.audit.append(entry(1, { agent: 'first' }));
    await new Promise((r) => setTimeout(r, 100));
    // Appended but not notified (and no poll due): not delivered yet.
    expect(got.filter((e) => e.event === 'decision')).toHaveLength(0);
    handlers()!.onRow(1);
    await until(() => got.some((e) => e.event === 'decision' && e.data.agent === 'first'));

    // Lost: the feed polls at pollMs again and catches up at once on what was appended meanwhile.
    await store.audit.append(entry(2, { agent: 'second' }));
    handlers()!.onState(false, 'terminated');
    expect(feed.notified).toBe(false);
    await until(() => got.some((e) => e.event === 'decision' && e.data.agent === 'second'));

    unsubscribe();
    expect(closed()).toBe(true);
    await store.close();
  });

  it('coalesces notifications that come while a tick runs, and misses none', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-feed-'));
    const { store, handlers } = notifyingStore(dir);
    feed = new LiveFeed(store, { pollMs: 3_600_000 });
    const got: LiveEvent[] = [];
    feed.subscribe(0, (e) => got.push(e));
    handlers()!.onState(true);
    for (let i = 1; i <= 20; i++) {
      await store.audit.append(entry(i, { agent: `a${i}` }));
      handlers()!.onRow(i);
    }
    await until(() => got.filter((e) => e.event === 'decision').length === 20);
    expect(got.filter((e) => e.event === 'decision').map((e) => (e as { id: number }).id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await store.close();
  });
});
