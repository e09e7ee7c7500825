import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeDecision } from '../../../src/core/types.js';
import { GUARD_STAGES, newContext, runStages, type Stage } from '../../../src/guard/stages/index.js';
import { envFor, interaction } from './support.js';

const i = interaction({ kind: 'tool_call', server: 'web', tool: 'search', arguments: { query: 'x' } });

describe('runStages: the one fail-closed catch site', () => {
  let env: Awaited<ReturnType<typeof envFor>>;
  const log: string[] = [];
  beforeEach(async () => {
    env = await envFor();
    log.length = 0;
  });
  afterEach(() => env.close());
  const step = (name: string, run: Stage['run'] = () => {}, extra: Partial<Stage> = {}): Stage => ({
    name,
    run: async (ctx, e) => {
      log.push(name);
      await run(ctx, e);
    },
    ...extra,
  });
  const allow: Stage['run'] = (ctx) => {
    ctx.decision = makeDecision({ decision: 'allow', rationale: 'ok' });
  };

  it('runs the stages in the documented order', () => {
    expect(GUARD_STAGES.map((s) => s.name)).toEqual([
      'flowInspect', 'quarantineGate', 'rateCount', 'tracking', 'modelExpansion', 'watcher', 'threatStep', 'quarantine', 'rateLimit', 'referee', 'holds', 'redaction', 'stickyCommit',
      'flowAnnotate', 'observe', 'stamp', 'audit', 'flowRecord', 'rateRecord',
    ]);
  });

  it('turns a throw in any stage into a denial with source error, skips the deciding stages after it and still records', async () => {
    const d = await runStages(
      [step('a', allow), step('b', () => { throw new Error('detector crashed'); }), step('c', allow), step('rec', () => {}, { always: true })],
      newContext(i),
      env,
    );
    expect(d).toMatchObject({ decision: 'deny', source: 'error' });
    expect(d.rationale).toMatch(/could not evaluate this interaction \(detector crashed\)/);
    expect(log).toEqual(['a', 'b', 'rec']);
  });

  it('a final decision skips the deciding stages but not the recording ones', async () => {
    const gate: Stage['run'] = (ctx) => {
      ctx.decision = makeDecision({ decision: 'deny', rationale: 'gate' });
      ctx.final = true;
    };
    const d = await runStages([step('gate', gate), step('later', allow), step('rec', () => {}, { always: true })], newContext(i), env);
    expect(d.rationale).toBe('gate');
    expect(log).toEqual(['gate', 'rec']);
  });

  it("uses a stage's own fail-closed decision, and tolerates a tolerant stage's failure", async () => {
    const own = makeDecision({ decision: 'deny', rationale: 'own', source: 'error' });
    const d1 = await runStages([step('a', allow), step('x', () => { throw new Error('boom'); }, { failClosed: () => own })], newContext(i), env);
    expect(d1).toBe(own);
    const d2 = await runStages([step('a', allow), step('t', () => { throw new Error('boom'); }, { tolerant: true, always: true })], newContext(i), env);
    expect(d2.decision).toBe('allow');
  });

  it('treats a synchronous stage as an async one: a synchronous throw fails closed, and each stage starts after the one before ended', async () => {
    const order: string[] = [];
    const sync = (name: string, run: Stage['run'] = () => {}, extra: Partial<Stage> = {}): Stage => ({
      name,
      run: (ctx, e) => {
        order.push(name);
        return run(ctx, e);
      },
      ...extra,
    });
    const slow: Stage['run'] = async (ctx) => {
      await new Promise((r) => setTimeout(r, 5));
      order.push('slow done');
      await allow(ctx, env);
    };
    const d1 = await runStages([sync('a', allow), sync('s', slow), sync('b'), sync('x', () => { throw new Error('sync boom'); }), sync('c', allow), sync('rec', () => {}, { always: true })], newContext(i), env);
    expect(d1).toMatchObject({ decision: 'deny', source: 'error' });
    expect(d1.rationale).toMatch(/sync boom/);
    expect(order).toEqual(['a', 's', 'slow done', 'b', 'x', 'rec']);
    const d2 = await runStages([sync('a', allow), sync('t', () => { throw new Error('boom'); }, { tolerant: true, always: true })], newContext(i), env);
    expect(d2.decision).toBe('allow');
  });

  it('denies when no stage decided', async () => {
    const d = await runStages([step('nothing')], newContext(i), env);
    expect(d).toMatchObject({ decision: 'deny', source: 'error' });
  });

  it('the full pipeline decides, stamps and audits', async () => {
    const d = await runStages(GUARD_STAGES, newContext(i), env);
    expect(d).toMatchObject({ decision: 'allow', policy: env.policy });
    expect(d.auditId).toBeDefined();
    expect(d.elapsedMs).toBeGreaterThanOrEqual(0);
  });
});
