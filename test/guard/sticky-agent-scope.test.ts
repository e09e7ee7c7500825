import { openDatabase } from '../../src/store/sqlite.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuardEnv } from '../../src/guard/pipeline.js';
import { prepareBook } from '../../src/guard/book.js';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../store/helpers.js';
import { DEFAULT_BOOK } from './stages/support.js';

/**
 * Γ kept per agent (guard.sticky_scope: agent) on a SQLite file: another proxy on the same file serves the same
 * agent, so a fact it learns must count at this proxy's very next check (it used to be cached here for good).
 */
describe('sticky facts per agent on one SQLite file', () => {
  const t = tempDir();
  afterEach(() => t.cleanup());

  it('sees a fact another connection committed, at the next read of Γ', async () => {
    const { book, index } = await prepareBook(DEFAULT_BOOK);
    const store = openStore(t.file);
    try {
      const env = createGuardEnv({ book, index, store, options: { sticky_scope: 'agent' } });
      const key = env.stickyKey({ kind: 'tool_call', agent: 'planner', session: 's1', profile: {}, server: 'ws', tool: 'read_file', arguments: {} });
      expect(key).toBe('agent:planner');
      expect((await env.stickyOf(key)).size).toBe(0);
      // Another process's proxy, as a second connection on the file.
      const other = openDatabase(t.file);
      other.prepare('INSERT INTO sticky (session, name, value, updated_at) VALUES (?, ?, ?, ?)').run(key, 'private_data_read', 'true', Date.now());
      other.close();
      expect((await env.stickyOf(key)).get('private_data_read')).toBe('true');
    } finally {
      await store.close();
    }
  });
});
