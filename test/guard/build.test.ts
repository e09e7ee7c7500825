import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InteractionSchema } from '../../src/core/types.js';
import { buildGuard, BuildGuardOptionsSchema, prepareBook } from '../../src/guard/build.js';
import { GUARD_DEFAULTS, PipelineOptionsSchema } from '../../src/guard/options.js';
import { openStore } from '../../src/store/db.js';

const DEFAULT_BOOK = join(import.meta.dirname, '../../policies/default');
const search = InteractionSchema.parse({ kind: 'tool_call', agent: 'a', session: 's', server: 'web', tool: 'search', arguments: { query: 'x' } });

describe('buildGuard: the one way to build a guard', () => {
  it('needs only a policy: memory store, every default from GUARD_DEFAULTS', async () => {
    const o = BuildGuardOptionsSchema.parse({ policy: DEFAULT_BOOK });
    expect(o.store).toBe(GUARD_DEFAULTS.store);
    expect(o.settings).toEqual(PipelineOptionsSchema.parse({}));
    expect(o.settings.approval_ttl_ms).toBe(GUARD_DEFAULTS.approval_ttl_ms);
    expect(o.settings.deny_at_rank).toEqual([...GUARD_DEFAULTS.deny_at_rank]);
    const g = await buildGuard({ policy: DEFAULT_BOOK });
    expect((await g.pipeline.check(search)).decision).toBe('allow');
    await g.close();
  });

  it('refuses a misspelt option and a missing policy, naming them', () => {
    expect(() => BuildGuardOptionsSchema.parse({ policy: DEFAULT_BOOK, setting: {} })).toThrow(/setting/);
    expect(() => BuildGuardOptionsSchema.parse({})).toThrow(/policy/);
    expect(() => BuildGuardOptionsSchema.parse({ policy: DEFAULT_BOOK, model: { semantic: 1 } })).toThrow(/createGuardModel/);
  });

  it('shares a prepared book and leaves a store it was given open', async () => {
    const prepared = await prepareBook(DEFAULT_BOOK);
    const store = openStore(':memory:');
    const a = await buildGuard({ policy: prepared, store });
    const b = await buildGuard({ policy: prepared });
    expect(a.book).toBe(b.book);
    await a.close();
    expect((await a.pipeline.check(search)).auditId).toBeDefined(); // the store is still open
    expect(await store.audit.tail(5)).toHaveLength(1);
    await store.close();
    await b.close();
  });

  it('passes the settings and the clock to the pipeline', async () => {
    const g = await buildGuard({ policy: DEFAULT_BOOK, settings: { audit: false }, now: () => 42 });
    expect((await g.pipeline.check(search)).auditId).toBeUndefined();
    await g.close();
  });
});
