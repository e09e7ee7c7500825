import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newContext, quarantineGate } from '../../../src/guard/stages/index.js';
import { envFor, interaction } from './support.js';

describe('stage quarantineGate', () => {
  let env: Awaited<ReturnType<typeof envFor>>;
  beforeEach(async () => {
    env = await envFor();
  });
  afterEach(() => env.close());
  const i = interaction({ kind: 'tool_call', server: 'web', tool: 'search', arguments: { query: 'x' } });

  it('lets an agent that is not quarantined through, with its threat state', async () => {
    await env.store.state.setThreat('assistant', 0.4, 2);
    const ctx = newContext(i);
    await quarantineGate.run(ctx, env);
    expect(ctx.decision).toBeUndefined();
    expect(ctx.final).toBe(false);
    expect(ctx.before).toMatchObject({ agent: 'assistant', level: 2, quarantined: false });
  });

  it('denies everything of a quarantined agent, for good, and says how to release it', async () => {
    await env.store.state.quarantine('assistant', 'request burst');
    const ctx = newContext(i);
    await quarantineGate.run(ctx, env);
    expect(ctx.final).toBe(true);
    expect(ctx.decision).toMatchObject({ decision: 'deny', source: 'quarantine', threatLevel: 4 });
    expect(ctx.decision?.rationale).toMatch(/\(request burst\).*quadguard agents release assistant/);
  });
});
