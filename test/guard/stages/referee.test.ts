import { afterEach, describe, expect, it } from 'vitest';
import { quarantineGate, referee, tracking, watcher } from '../../../src/guard/stages/index.js';
import { envFor, fakeModel, interaction, MODEL_BOOK, through, usage } from './support.js';

describe('stage referee', () => {
  let env: Awaited<ReturnType<typeof envFor>>;
  afterEach(() => env.close());

  it('denies a hard violation and adds the pipeline detail to the decision', async () => {
    env = await envFor();
    const ctx = await through(env, interaction({ kind: 'tool_call', server: 'files', tool: 'delete_file', arguments: { path: '/etc/passwd' } }), [quarantineGate, tracking, watcher]);
    await referee.run(ctx, env);
    expect(ctx.verdict).toBeDefined();
    expect(ctx.decision).toMatchObject({ decision: 'deny', source: 'pipeline' });
    expect(ctx.decision?.rules).toContain('no-delete-outside-sandbox');
    expect(ctx.decision?.detail.candidates).toBe(ctx.track?.candidates.length);
    expect(ctx.decision?.detail.threat?.level).toBe(ctx.threat?.level);
    expect(ctx.decision?.detail.llm).toBeUndefined();
    expect(ctx.final).toBe(false);
  });

  it('lets the model review a soft denial and sums the usage of every model call', async () => {
    env = await envFor(MODEL_BOOK, {
      model: fakeModel({
        semantic: async () => ({ values: new Map([['risky_payee', { value: 'true', confidence: 0.9 }], ['fraud_request', { value: 'false', confidence: 0.9 }]]), usage: usage(1) }),
        reviewer: async () => ({ ruling: 'allow', rationale: 'the payee is the user', usage: usage(2) }),
      }),
    });
    const ctx = await through(env, interaction({ kind: 'tool_call', server: 'bank', tool: 'transfer', arguments: { to: 'acct-9', amount: 5 } }), [quarantineGate, tracking, watcher]);
    await referee.run(ctx, env);
    expect(ctx.decision?.decision).toBe('allow');
    expect(ctx.decision?.flagged).toContain('careful-payee');
    expect(ctx.decision?.detail.review).toEqual({ ruling: 'allow', rationale: 'the payee is the user' });
    expect(ctx.decision?.detail.llm).toEqual(usage(3));
  });
});
