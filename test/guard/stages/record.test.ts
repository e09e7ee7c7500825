import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeDecision, targetOf } from '../../../src/core/types.js';
import { audit, newContext, observe, stamp } from '../../../src/guard/stages/index.js';
import { envFor, fakeModel, interaction } from './support.js';

const i = interaction({ kind: 'tool_call', server: 'web', tool: 'search', arguments: { query: 'x' } });

describe('recording stages (observe, stamp, audit)', () => {
  let env: Awaited<ReturnType<typeof envFor>>;
  beforeEach(async () => {
    env = await envFor();
  });
  afterEach(() => env.close());

  it('are marked to run after a final decision; observe is the only one whose failure is tolerated', () => {
    expect([observe, stamp, audit].every((s) => s.always)).toBe(true);
    expect([observe, stamp, audit].filter((s) => s.tolerant).map((s) => s.name)).toEqual(['observe']);
  });

  it('observe hands the decided interaction to the model history', async () => {
    const seen: string[] = [];
    env.model = fakeModel({ observe: (x, d) => seen.push(`${targetOf(x)}:${d.decision}`) });
    const ctx = newContext(i);
    ctx.decision = makeDecision({ decision: 'allow', rationale: 'ok' });
    await observe.run(ctx, env);
    expect(seen).toEqual(['search:allow']);
  });

  it('stamp sets the policy and the elapsed time', async () => {
    const ctx = newContext(i, undefined, performance.now() - 5);
    ctx.decision = makeDecision({ decision: 'allow', rationale: 'ok' });
    await stamp.run(ctx, env);
    expect(ctx.decision.policy).toEqual(env.policy);
    expect(ctx.decision.elapsedMs).toBeGreaterThanOrEqual(5);
  });

  it('audit records the decision and keeps the row id', async () => {
    const ctx = newContext(i);
    ctx.decision = makeDecision({ decision: 'deny', rationale: 'no', rules: ['r'] });
    await audit.run(ctx, env);
    expect(ctx.decision.auditId).toMatch(/^\d+-[0-9a-f]{8}$/);
    expect((await env.store.audit.tail(1))[0]).toMatchObject({ decision: 'deny', rules: ['r'] });
  });

  it('audit records nothing with guard.audit off', async () => {
    env.options = { ...env.options, audit: false };
    const ctx = newContext(i);
    ctx.decision = makeDecision({ decision: 'allow', rationale: 'ok' });
    await audit.run(ctx, env);
    expect(ctx.decision.auditId).toBeUndefined();
    expect(await env.store.audit.tail(1)).toHaveLength(0);
  });

  it("audit's fail-closed decision: an unrecorded allow is denied, a denial stands and says it was not recorded", () => {
    const allowed = newContext(i);
    allowed.decision = makeDecision({ decision: 'allow', rationale: 'ok' });
    expect(audit.failClosed?.(allowed, env, new Error('disk full'))).toMatchObject({ decision: 'deny', source: 'error', rationale: expect.stringMatching(/could not be recorded/) });
    const denied = newContext(i);
    denied.decision = makeDecision({ decision: 'deny', rationale: 'no' });
    // The denial stands, and says truthfully that it could not be recorded.
    expect(audit.failClosed?.(denied, env, new Error('disk full'))).toMatchObject({ decision: 'deny', rationale: expect.stringMatching(/^no .*could not be recorded/) });
  });
});
