import { afterEach, describe, expect, it } from 'vitest';
import { quarantineGate, tracking, watcher } from '../../../src/guard/stages/index.js';
import { rateLimit, retryAfter } from '../../../src/guard/stages/rate-limit.js';
import { envFor, interaction, through } from './support.js';

const benign = interaction({ kind: 'tool_call', server: 'web', tool: 'search', arguments: { query: 'weather in Paris' } });

describe('stage rate-limit (rate is not threat)', () => {
  let env: Awaited<ReturnType<typeof envFor>>;
  afterEach(() => env.close());

  it('refuses a request above the threshold with a retry-after, without raising τ', async () => {
    env = await envFor(undefined, { now: () => 1_000_000, options: { watcher: { burst_threshold: 3 } } });
    let ctx = await through(env, benign, [quarantineGate, tracking, watcher]);
    for (let i = 0; i < 3; i++) ctx = await through(env, benign, [quarantineGate, tracking, watcher]);
    expect(ctx.threat).toMatchObject({ burst: true, rate: 4, level: 0, tau: 0 });
    await rateLimit.run(ctx, env);
    expect(ctx.final).toBe(true);
    expect(ctx.decision).toMatchObject({ decision: 'deny', source: 'rate', threatLevel: 0 });
    expect(ctx.decision?.detail.retryAfterMs).toBe(retryAfter(4, 3, 10_000));
    expect(ctx.decision?.rationale).toMatch(/4 requests in the last 10 s, above the limit of 3/);
    expect((await env.store.state.getThreat('assistant')).quarantined).toBe(false);
  });

  it('lets requests under the threshold and every result through', async () => {
    env = await envFor(undefined, { now: () => 1_000_000, options: { watcher: { burst_threshold: 1 } } });
    const first = await through(env, benign, [quarantineGate, tracking, watcher]);
    await rateLimit.run(first, env);
    expect(first.decision).toBeUndefined();
    await through(env, benign, [quarantineGate, tracking, watcher]);
    const result = await through(env, interaction({ kind: 'tool_result', server: 'web', tool: 'search', content: [{ type: 'text', text: 'sunny' }] }), [quarantineGate, tracking, watcher]);
    expect(result.threat?.burst).toBe(true);
    await rateLimit.run(result, env);
    expect(result.decision).toBeUndefined();
  });

  it('asks to wait about as long as the excess takes to leave the window, within one bucket and the window', () => {
    expect(retryAfter(700, 600, 10_000)).toBe(1429);
    expect(retryAfter(601, 600, 10_000)).toBe(1000);
    expect(retryAfter(100_000, 600, 10_000)).toBe(9940);
    expect(retryAfter(5, 1, 10_000)).toBe(8000);
  });
});
