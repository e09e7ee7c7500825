import { afterEach, describe, expect, it } from 'vitest';
import { modelExpansion, quarantineGate, tracking } from '../../../src/guard/stages/index.js';
import { envFor, fakeModel, interaction, MODEL_BOOK, through, usage } from './support.js';

const memo = interaction({ kind: 'tool_call', server: 'bank', tool: 'balance', arguments: { account: 'a', memo: 'move it quietly' } });

describe('stage modelExpansion (state expansion, §4.3)', () => {
  let env: Awaited<ReturnType<typeof envFor>>;
  afterEach(() => env.close());

  it('does nothing without a model', async () => {
    env = await envFor(MODEL_BOOK);
    const ctx = await through(env, memo, [quarantineGate, tracking]);
    const outcomes = ctx.outcomes;
    await modelExpansion.run(ctx, env);
    expect(ctx.outcomes).toBe(outcomes);
    expect(ctx.expanded).toBeUndefined();
  });

  it('re-decides a low-confidence witness predicate with the strong tier and verifies again', async () => {
    const asked: string[][] = [];
    env = await envFor(MODEL_BOOK, {
      model: fakeModel({
        semantic: async () => ({ values: new Map([['fraud_request', { value: 'true', confidence: 0.3 }]]), usage: usage(1) }),
        expand: async ({ predicates }) => {
          asked.push(predicates.map((p) => p.name));
          return { values: new Map([['fraud_request', { value: 'false', confidence: 0.95 }]]), usage: usage(2) };
        },
      }),
    });
    const ctx = await through(env, memo, [quarantineGate, tracking]);
    expect(ctx.outcomes?.map((o) => o.id)).toContain('no-fraud');
    await modelExpansion.run(ctx, env);
    expect(asked).toEqual([['fraud_request']]);
    expect(ctx.expanded).toEqual(['fraud_request']);
    expect(ctx.outcomes?.map((o) => o.id) ?? []).not.toContain('no-fraud');
    expect(ctx.usages).toEqual([usage(1), usage(2)]);
  });

  it('leaves a confident decision alone', async () => {
    let expanded = 0;
    env = await envFor(MODEL_BOOK, {
      model: fakeModel({
        semantic: async () => ({ values: new Map([['fraud_request', { value: 'true', confidence: 0.9 }]]) }),
        expand: async () => {
          expanded++;
          return { values: new Map() };
        },
      }),
    });
    const ctx = await through(env, memo, [quarantineGate, tracking]);
    await modelExpansion.run(ctx, env);
    expect(expanded).toBe(0);
    expect(ctx.outcomes?.map((o) => o.id)).toContain('no-fraud');
  });
});
