import { afterEach, describe, expect, it } from 'vitest';
import { newContext, quarantine, quarantineGate, tracking, watcher } from '../../../src/guard/stages/index.js';
import { envFor, interaction, through } from './support.js';

const violating = interaction({ kind: 'tool_call', server: 'files', tool: 'delete_file', arguments: { path: '/etc/passwd' } });

describe('stage quarantine (threat level 4)', () => {
  let env: Awaited<ReturnType<typeof envFor>>;
  afterEach(() => env.close());

  it('quarantines the agent at level 4, names the violated rules and keeps the pipeline detail', async () => {
    env = await envFor();
    const ctx = await through(env, violating, [quarantineGate, tracking, watcher]);
    ctx.threat = { ...ctx.threat!, level: 4 };
    await quarantine.run(ctx, env);
    expect(ctx.final).toBe(true);
    expect(ctx.decision).toMatchObject({ decision: 'deny', source: 'quarantine', threatLevel: 4 });
    expect(ctx.decision?.rules).toContain('no-delete-outside-sandbox');
    expect(ctx.decision?.rationale).toMatch(/threat level 4 after violations of .*no-delete-outside-sandbox/);
    expect(ctx.decision?.detail).toMatchObject({ threat: { level: 4 } });
    expect((await env.store.state.getThreat('assistant')).quarantined).toBe(true);
  });

  it('names the threat evidence as the reason, never the rate (rate is not threat)', async () => {
    env = await envFor();
    const ctx = await through(env, violating, [quarantineGate, tracking, watcher]);
    ctx.threat = { tau: 0.9, level: 4, burst: true, rate: 99 };
    await quarantine.run(ctx, env);
    expect(ctx.decision?.rationale).toMatch(/threat level 4 after violations of .*no-delete-outside-sandbox/);
    expect(ctx.decision?.rationale).not.toMatch(/burst/);
  });

  it('does nothing below level 4, or with quarantine turned off', async () => {
    env = await envFor(undefined, { options: { watcher: { quarantine: false } } });
    const ctx = await through(env, violating, [quarantineGate, tracking, watcher]);
    ctx.threat = { ...ctx.threat!, level: 4 };
    await quarantine.run(ctx, env);
    expect(ctx.decision).toBeUndefined();
    env.close();

    env = await envFor();
    const low = await through(env, violating, [quarantineGate, tracking, watcher]);
    low.threat = { ...low.threat!, level: 3 };
    await quarantine.run(low, env);
    expect(low.decision).toBeUndefined();
    expect((await env.store.state.getThreat('assistant')).quarantined).toBe(false);
  });

  it('needs the watcher before it', async () => {
    env = await envFor();
    expect(() => quarantine.run(newContext(violating), env)).toThrow(/stage order/);
  });
});
