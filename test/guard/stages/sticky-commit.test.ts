import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeDecision } from '../../../src/core/types.js';
import { quarantineGate, stickyCommit, tracking } from '../../../src/guard/stages/index.js';
import { envFor, interaction, through } from './support.js';

const readMail = interaction({ kind: 'tool_result', server: 'mail', tool: 'read_email', content: [{ type: 'text', text: 'hello' }] });

describe('stage stickyCommit', () => {
  let env: Awaited<ReturnType<typeof envFor>>;
  beforeEach(async () => {
    env = await envFor();
  });
  afterEach(() => env.close());

  it('commits the newly sticky facts of an allowed interaction to Γ and the store', async () => {
    const ctx = await through(env, readMail, [quarantineGate, tracking]);
    const names = ctx.track!.newlySticky;
    expect(names.length).toBeGreaterThan(0);
    ctx.decision = makeDecision({ decision: 'allow', rationale: 'ok' });
    await stickyCommit.run(ctx, env);
    for (const n of names) expect(ctx.sticky?.get(n)).toBe('true');
    const stored = await env.store.state.getSticky('s1');
    for (const n of names) expect(stored.get(n)).toBe('true');
  });

  it('commits nothing for a denied interaction: a denied read read nothing', async () => {
    const ctx = await through(env, readMail, [quarantineGate, tracking]);
    ctx.decision = makeDecision({ decision: 'deny', rationale: 'no' });
    await stickyCommit.run(ctx, env);
    expect(ctx.sticky?.size).toBe(0);
    expect((await env.store.state.getSticky('s1')).size).toBe(0);
  });
});
