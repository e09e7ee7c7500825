import { afterEach, describe, expect, it } from 'vitest';
import { makeDecision } from '../../../src/core/types.js';
import { holds, quarantineGate, referee, tracking, watcher } from '../../../src/guard/stages/index.js';
import { writeBook } from '../../approvals/support.js';
import { envFor, interaction, through } from './support.js';

describe('stage holds (effect: approve)', () => {
  let env: Awaited<ReturnType<typeof envFor>>;
  afterEach(() => env.close());
  const publish = interaction({ kind: 'tool_call', agent: 'writer', server: 'ws', tool: 'publish', arguments: { title: 'x' } });

  it('turns a hold into a pending approval request, then into one allow once a person approved it', async () => {
    env = await envFor(writeBook(), { now: () => 1_700_000_000_000 });
    const ctx = await through(env, publish, [quarantineGate, tracking, watcher, referee]);
    expect(ctx.verdict?.hold.map((o) => o.id)).toEqual(['publish-needs-approval']);
    await holds.run(ctx, env);
    expect(ctx.decision).toMatchObject({ decision: 'deny', source: 'approval', detail: { approval: { status: 'pending' } } });
    const id = ctx.decision!.detail.approval!.id;

    await env.store.approvals.approve(id, 'alice', 'cli', 1_700_000_000_000);
    const retry = await through(env, publish, [quarantineGate, tracking, watcher, referee]);
    await holds.run(retry, env);
    expect(retry.decision).toMatchObject({ decision: 'allow', source: 'approval', detail: { approval: { id, status: 'used' } } });
  });

  it('leaves a decision without a hold as it is', async () => {
    env = await envFor(writeBook());
    const ctx = await through(env, interaction({ kind: 'tool_call', server: 'ws', tool: 'list', arguments: {} }), [quarantineGate, tracking, watcher, referee]);
    const before = ctx.decision;
    await holds.run(ctx, env);
    expect(ctx.decision).toBe(before);
  });

  it('needs the referee before it', async () => {
    env = await envFor(writeBook());
    const ctx = await through(env, publish, [quarantineGate, tracking, watcher]);
    ctx.decision = makeDecision({ decision: 'allow', rationale: 'x' });
    // A stage may throw synchronously (runStages catches both ways).
    expect(() => holds.run(ctx, env)).toThrow(/stage order/);
  });
});
