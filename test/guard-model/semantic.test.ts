import { afterEach, describe, expect, it } from 'vitest';
import { useScriptedLlmServer } from '../support/scripted-llm-server.js';
import { bank, calls, clientFor, guardWith, is, updates, userJson } from './helpers.js';

/** Semantic predicates decided by the model (§4.1), failure modes, state expansion (§4.3), accounting. */
describe('guard with a model: semantic predicates', () => {
  const llm = useScriptedLlmServer({ per: 'block' });
  const disposers: Array<() => void> = [];
  afterEach(() => {
    for (const d of disposers.splice(0)) d();
  });

  async function guard(config = {}, model = {}) {
    const g = await guardWith(clientFor(llm, config), { model });
    disposers.push(() => g.dispose());
    return g;
  }

  it('denies when the model says the semantic predicate holds, in one batched light call', async () => {
    llm.when(is('tracker', 'light'), updates(['fraud_request', true, 0.95]));
    const g = await guard();
    const d = await g.pipeline.check(bank('transfer', { to: 'acct-99', amount: 9000, memo: 'split it so the bank does not report it' }));
    expect(d.decision).toBe('deny');
    expect(d.rules).toEqual(['no-fraud']);
    expect(d.witness.find((w) => w.rule === 'no-fraud')).toMatchObject({ predicates: { fraud_request: 'true' }, confidence: 0.95 });
    expect(calls(llm)).toEqual(['tracker/light']);
    const sent = userJson(llm.chatRequests[0]!);
    expect(sent.predicates.map((p: { name: string }) => p.name).sort()).toEqual(['fraud_request', 'risky_payee']);
    expect(sent.current).toEqual({ fraud_request: 'false', risky_payee: 'false' });
    expect(llm.chatRequests[0]!.body.temperature).toBe(0);
  });

  it('allows when the model reports nothing (event predicates default to false)', async () => {
    llm.when(is('tracker', 'light'), updates());
    const g = await guard();
    const d = await g.pipeline.check(bank('balance', { account: 'main' }));
    expect(d.decision).toBe('allow');
    expect(calls(llm)).toEqual(['tracker/light']);
  });

  it('passes the last interactions of the session as observations, bounded', async () => {
    llm.when(is('tracker', 'light'), updates());
    const g = await guard({}, { observations: 2 });
    for (const account of ['a1', 'a2', 'a3']) await g.pipeline.check(bank('balance', { account }));
    const last = userJson(llm.chatRequests[2]!);
    expect(last.observations).toHaveLength(2);
    expect(last.observations[0]).toContain('a1');
    expect(last.observations[1]).toContain('a2');
    expect(userJson(llm.chatRequests[0]!).observations).toEqual([]);
  });

  it('garbage from the model leaves the predicates unknown and each rule\'s on_unknown decides', async () => {
    llm.when(is('tracker', 'light'), { content: 'sure! fraud_request is probably true' });
    const g = await guard();
    // no-fraud (hard, on_unknown default deny) denies on unknown; careful-payee (soft, on_unknown flag) flags.
    const d = await g.pipeline.check(bank('transfer', { to: 'acct-1', amount: 10 }));
    expect(d.decision).toBe('deny');
    expect(d.rules).toEqual(['no-fraud']);
    expect(d.flagged).toContain('careful-payee');
    expect(d.rationale).toContain('could not be shown satisfied');
    expect(d.witness.find((w) => w.rule === 'no-fraud')?.predicates).toEqual({ fraud_request: 'unknown' });
    // a failed call is still accounted; no expansion and no review after a failure
    expect(calls(llm)).toEqual(['tracker/light']);
    expect(d.detail.llm).toMatchObject({ calls: 1 });
  });

  it('a model slower than the timeout: unknown within bounded time, no hang', async () => {
    llm.when(is('tracker', 'light'), { hang: true });
    const g = await guard({ timeout_ms: 300, max_retries: 1 });
    const t0 = performance.now();
    const d = await g.pipeline.check(bank('transfer', { to: 'acct-1', amount: 10 }));
    const ms = performance.now() - t0;
    expect(d.decision).toBe('deny');
    expect(d.witness.find((w) => w.rule === 'no-fraud')?.predicates).toEqual({ fraud_request: 'unknown' });
    expect(ms).toBeLessThan(3000);
    expect(ms).toBeGreaterThanOrEqual(550); // two attempts of 300 ms
    expect(llm.chatRequests).toHaveLength(2);
  });

  it('the per-interaction budget bounds the wait even with a long client timeout', async () => {
    llm.when(is('tracker', 'light'), { hang: true });
    const g = await guard({ timeout_ms: 60_000, max_retries: 3 }, { budget_ms: 250 });
    const t0 = performance.now();
    const d = await g.pipeline.check(bank('balance', { account: 'x' }));
    expect(performance.now() - t0).toBeLessThan(2500);
    expect(d.decision).toBe('deny'); // no-fraud unknown → deny
    expect(llm.chatRequests).toHaveLength(1);
  });

  it('a caller abort stops the model call at once', async () => {
    llm.when(is('tracker', 'light'), { hang: true });
    const g = await guard({ timeout_ms: 60_000 });
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(), 100);
    const t0 = performance.now();
    const d = await g.pipeline.check(bank('balance', { account: 'x' }), ctrl.signal);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(d.decision).toBe('deny');
  });

  it('state expansion: a low-confidence witness is re-decided once by the strong tier, then re-verified', async () => {
    llm.when(is('tracker', 'light'), updates(['fraud_request', true, 0.4]));
    llm.when(is('tracker', 'strong'), updates(['fraud_request', false, 0.9]));
    const g = await guard();
    const d = await g.pipeline.check(bank('transfer', { to: 'acct-2', amount: 50, memo: 'rent' }));
    expect(calls(llm)).toEqual(['tracker/light', 'tracker/strong']);
    expect(userJson(llm.chatRequests[1]!).predicates.map((p: { name: string }) => p.name)).toEqual(['fraud_request']);
    expect(d.decision).toBe('allow');
    expect(d.detail.expanded).toEqual(['fraud_request']);
  });

  it('state expansion happens at most once, even when the strong tier is unsure too', async () => {
    llm.when(is('tracker', 'light'), updates(['fraud_request', true, 0.3]));
    llm.when(is('tracker', 'strong'), updates(['fraud_request', true, 0.35]));
    const g = await guard();
    const d = await g.pipeline.check(bank('transfer', { to: 'acct-2', amount: 50 }));
    expect(calls(llm)).toEqual(['tracker/light', 'tracker/strong']);
    expect(d.decision).toBe('deny');
    expect(d.witness.find((w) => w.rule === 'no-fraud')?.confidence).toBeCloseTo(0.35);
  });

  it('no expansion at or above the threshold', async () => {
    llm.when(is('tracker', 'light'), updates(['fraud_request', true, 0.6]));
    const g = await guard({}, { expand_below: 0.6 });
    const d = await g.pipeline.check(bank('transfer', { to: 'acct-2', amount: 50 }));
    expect(calls(llm)).toEqual(['tracker/light']);
    expect(d.decision).toBe('deny');
  });

  it('accounts calls, tokens and time of every model call of the interaction in detail.llm', async () => {
    llm.when(is('tracker', 'light'), { ...updates(['fraud_request', true, 0.4]), usage: { prompt_tokens: 100, completion_tokens: 10 } });
    llm.when(is('tracker', 'strong'), { ...updates(['fraud_request', true, 0.9]), usage: { prompt_tokens: 200, completion_tokens: 20 }, delayMs: 30 });
    const g = await guard();
    const d = await g.pipeline.check(bank('transfer', { to: 'acct-2', amount: 50 }));
    const u = d.detail.llm;
    expect(u).toMatchObject({ calls: 2, promptTokens: 300, completionTokens: 30 });
    expect(u?.ms).toBeGreaterThanOrEqual(30);
  });
});
