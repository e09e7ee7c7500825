import { Writable } from 'node:stream';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGuard, type BuiltGuard } from '../../src/guard/build.js';
import { InteractionSchema } from '../../src/core/types.js';
import { ROOT } from '../support/proxy-harness.js';
import { usePostgres } from '../support/postgres.js';

/**
 * A guard whose PostgreSQL store goes away denies (fail closed) with a rationale that says why, logs the loss
 * once, and decides normally again when the database is back, without a restart.
 */
describe('PostgreSQL store outage', () => {
  const server = usePostgres();
  let g: BuiltGuard;
  let logs = '';
  const message = (content: string) =>
    InteractionSchema.parse({ kind: 'message', agent: 'planner', session: 's1', sender: 'planner', recipient: 'writer', content });

  beforeAll(async () => {
    const sink = new Writable({ write: (c: Buffer, _e, cb) => { logs += c.toString(); cb(); } });
    g = await buildGuard({ policy: join(ROOT, 'policies', 'default'), store: await server.freshDatabase('outage'), logger: pino({ level: 'info' }, sink) });
  }, 60_000);
  afterAll(async () => {
    await g?.close();
  }, 60_000);

  it('denies while the database is down, then recovers', async () => {
    expect((await g.pipeline.check(message('The draft is ready.'))).decision).toBe('allow');
    await server.pause();
    const down = await g.pipeline.check(message('The draft is ready, again.'));
    expect(down.decision).toBe('deny');
    expect(down.source).toBe('error');
    expect(down.rationale).toMatch(/could not evaluate this interaction \(store_unavailable: cannot reach the PostgreSQL store postgres:\/\/postgres:\*\*\*@127\.0\.0\.1/);
    expect(down.rationale).not.toContain('quadguard-test');
    expect((await g.pipeline.check(message('Still down?'))).decision).toBe('deny');
    expect(logs.match(/lost the PostgreSQL store/g)).toHaveLength(1);

    await server.resume();
    const back = await g.pipeline.check(message('The database is back.'));
    expect(back.decision, back.rationale).toBe('allow');
    expect(logs).toMatch(/the PostgreSQL store is reachable again/);
    expect((await g.pipeline.store.audit.verify()).ok).toBe(true);
  }, 60_000);
});
