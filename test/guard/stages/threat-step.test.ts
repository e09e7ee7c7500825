import { afterEach, describe, expect, it } from 'vitest';
import { tauForLevel } from '../../../src/guard/model/index.js';
import { quarantineGate, threatStep, tracking, watcher } from '../../../src/guard/stages/index.js';
import type { ThreatAdvisor } from '../../../src/guard/model/index.js';
import { envFor, fakeModel, interaction, through, usage } from './support.js';

const violating = interaction({ kind: 'tool_call', server: 'files', tool: 'delete_file', arguments: { path: '/etc/passwd' } });
const benign = interaction({ kind: 'tool_call', server: 'web', tool: 'search', arguments: { query: 'weather in Paris' } });

describe('stage threatStep (the model complement of the watcher)', () => {
  let env: Awaited<ReturnType<typeof envFor>>;
  afterEach(() => env.close());
  const advisor = (delta: -1 | 0 | 1, asked: number[]): ThreatAdvisor => async ({ level }) => {
    asked.push(level);
    return { delta, reason: 'looks like an attack', usage: usage(1) };
  };

  it('does nothing without the complement', async () => {
    env = await envFor(undefined, { model: fakeModel() });
    const ctx = await through(env, violating, [quarantineGate, tracking, watcher]);
    const before = ctx.threat;
    await threatStep.run(ctx, env);
    expect(ctx.threat).toBe(before);
    expect(ctx.modelThreat).toBeUndefined();
  });

  it('is not asked about an interaction without evidence', async () => {
    const asked: number[] = [];
    env = await envFor(undefined, { model: fakeModel({ threat: advisor(1, asked) }) });
    const ctx = await through(env, benign, [quarantineGate, tracking, watcher]);
    await threatStep.run(ctx, env);
    expect(asked).toEqual([]);
    expect(ctx.threat?.level).toBe(0);
  });

  it('moves the level one step and puts τ at the lower bound of the new level', async () => {
    const asked: number[] = [];
    env = await envFor(undefined, { model: fakeModel({ threat: advisor(1, asked) }) });
    const ctx = await through(env, violating, [quarantineGate, tracking, watcher]);
    const level = ctx.threat!.level;
    await threatStep.run(ctx, env);
    expect(asked).toEqual([level]);
    expect(ctx.modelThreat).toEqual({ delta: 1, reason: 'looks like an attack' });
    expect(ctx.threat?.level).toBe(level + 1);
    expect(ctx.threat?.tau).toBe(tauForLevel(level + 1, env.watcher.options.level_bounds));
    expect((await env.store.state.getThreat('assistant')).level).toBe(level + 1);
    expect(ctx.usages.at(-1)).toEqual(usage(1));
  });
});
