import { afterEach, describe, expect, it, vi } from 'vitest';
import { referee, type RuleOutcome } from '../../src/guard/referee.js';
import { tauForLevel } from '../../src/guard/model/index.js';
import { useScriptedLlmServer } from '../support/scripted-llm-server.js';
import { bank, calls, clientFor, guardWith, is, roleOf, updates, verdict } from './helpers.js';

/** The hierarchical referee (§4.4) on soft denials, hard rules never reviewed, and the threat complement. */
describe('guard with a model: review of soft denials', () => {
  const llm = useScriptedLlmServer({ per: 'block' });
  const disposers: Array<() => void> = [];
  afterEach(() => {
    for (const d of disposers.splice(0)) d();
  });

  async function guard(model = {}) {
    const g = await guardWith(clientFor(llm), { model });
    disposers.push(() => g.dispose());
    return g;
  }
  /** A transfer to a risky payee: careful-payee (soft, medium) is violated; no-fraud holds. */
  const transfer = () => bank('transfer', { to: 'new-acct-77', amount: 400 });
  const riskyPayee = () => llm.when(is('tracker', 'light'), updates(['risky_payee', true, 0.9]));

  it('a clear light allow stands: allowed and flagged, rationale cites the witness', async () => {
    riskyPayee();
    llm.when(is('referee', 'light'), verdict('allow', 0.9, 'The payee is the user\'s own savings account.'));
    const g = await guard();
    const d = await g.pipeline.check(transfer());
    expect(calls(llm)).toEqual(['tracker/light', 'referee/light']);
    expect(d.decision).toBe('allow');
    expect(d.flagged).toContain('careful-payee');
    expect(d.rationale).toContain('Reviewer: light model ruled allow');
    expect(d.rationale).toMatch(/risky_payee/);
    expect(d.detail.review).toMatchObject({ ruling: 'allow' });
  });

  it('a light deny escalates; the strong verdict stands (allow)', async () => {
    riskyPayee();
    llm.when(is('referee', 'light'), verdict('deny', 0.8));
    llm.when(is('referee', 'strong'), verdict('allow', 0.9, 'The payee was verified earlier in the session.'));
    const g = await guard();
    const d = await g.pipeline.check(transfer());
    expect(calls(llm)).toEqual(['tracker/light', 'referee/light', 'referee/strong']);
    expect(d.decision).toBe('allow');
    expect(d.rationale).toContain('strong model ruled allow after escalation');
  });

  it('a light deny escalates; the strong deny stands with the witness in the rationale', async () => {
    riskyPayee();
    llm.when(is('referee', 'light'), verdict('deny', 0.8));
    llm.when(is('referee', 'strong'), verdict('deny', 0.95, 'A first transfer to an unverified account.'));
    const g = await guard();
    const d = await g.pipeline.check(transfer());
    expect(calls(llm)).toEqual(['tracker/light', 'referee/light', 'referee/strong']);
    expect(d.decision).toBe('deny');
    expect(d.rules).toEqual(['careful-payee']);
    expect(d.rationale).toMatch(/Reviewer: strong model ruled deny/);
    expect(d.rationale).toMatch(/Machine-checked witness: rule careful-payee: .*risky_payee=true/);
  });

  it('ambiguous from the strong tier denies (fail closed)', async () => {
    riskyPayee();
    llm.when(is('referee', 'light'), verdict('ambiguous', 0.5));
    llm.when(is('referee', 'strong'), verdict('ambiguous', 0.5, 'Cannot tell whether the payee is known.'));
    const g = await guard();
    const d = await g.pipeline.check(transfer());
    expect(d.decision).toBe('deny');
    expect(d.rationale).toContain('could not decide (ambiguous)');
  });

  it('a review that fails keeps the denial', async () => {
    riskyPayee();
    llm.when(is('referee', 'light'), { status: 500 });
    llm.when(is('referee', 'strong'), { garbage: 'not json' });
    const g = await guard();
    const d = await g.pipeline.check(transfer());
    expect(d.decision).toBe('deny');
    expect(d.rationale).toContain('model review failed');
    expect(d.detail.llm?.calls).toBe(3);
    // The accounting is recorded in the decision's audit row, inside the hash chain.
    const row = await g.pipeline.store.audit.get(d.auditId!);
    expect(row?.llm?.calls).toBe(3);
    expect((await g.pipeline.store.audit.verify()).ok).toBe(true);
  });

  it('a hard violation is never sent for review, even when a soft rule is violated too', async () => {
    llm.when(is('tracker', 'light'), updates(['risky_payee', true, 0.9], ['fraud_request', true, 0.95]));
    llm.when(is('referee', 'light'), verdict('allow', 0.99));
    llm.when(is('referee', 'strong'), verdict('allow', 0.99));
    const g = await guard();
    const d = await g.pipeline.check(transfer());
    expect(d.decision).toBe('deny');
    expect(d.rules).toContain('no-fraud');
    // the soft rule is reviewed on its own; the hard one never appears in a review request
    for (const r of llm.chatRequests.filter((x) => roleOf(x.body) === 'referee')) {
      expect(r.body.messages[1].content).not.toContain('no-fraud');
    }
  });

  it('a hard-only violation makes no review request at all', async () => {
    llm.when(is('tracker', 'light'), updates(['fraud_request', true, 0.95]));
    llm.when(() => true, verdict('allow', 0.99));
    const g = await guard();
    const d = await g.pipeline.check(bank('balance', { account: 'laundering-pool' }));
    expect(d.decision).toBe('deny');
    expect(calls(llm)).toEqual(['tracker/light']);
  });

  it('the referee never hands hard rules or unknown outcomes to a reviewer', async () => {
    const def = (id: string, hard: boolean) => ({ id, text: 't', applies_to: ['tool_call' as const], formula: '!p', severity: 'critical' as const, hard, mode: 'enforce' as const, effect: 'deny' as const });
    const outcome = (id: string, hard: boolean, status: 'violated' | 'unknown'): RuleOutcome => ({ id, def: def(id, hard), onUnknown: 'deny', status, witness: { rule: id, predicates: { p: 'true' }, confidence: 1 } });
    const reviewer = vi.fn(async () => ({ ruling: 'allow' as const }));
    const v = await referee({ kind: 'tool_call', outcomes: [outcome('h', true, 'violated'), outcome('u', false, 'unknown')], threatLevel: 0, denyAtRank: [1, 1, 1, 1, 1], reviewer });
    expect(reviewer).not.toHaveBeenCalled();
    expect(v.decision.decision).toBe('deny');
    await referee({ kind: 'tool_call', outcomes: [outcome('h', true, 'violated'), outcome('s', false, 'violated')], threatLevel: 0, denyAtRank: [1, 1, 1, 1, 1], reviewer });
    expect(reviewer).toHaveBeenCalledTimes(1);
    expect((reviewer.mock.calls[0] as unknown as [{ rules: RuleOutcome[] }])[0].rules.map((r) => r.id)).toEqual(['s']);
  });
});

describe('guard with a model: threat watcher complement', () => {
  const llm = useScriptedLlmServer({ per: 'block' });
  const disposers: Array<() => void> = [];
  afterEach(() => {
    for (const d of disposers.splice(0)) d();
  });

  it('asks for a ±1 step only on interactions with violations, and keeps τ on the level band', async () => {
    llm.when(is('tracker', 'light'), (body) => (body.messages[1].content.includes('acct-evil') ? updates(['fraud_request', true, 0.95]) : updates()));
    llm.when(is('threat', 'light'), { content: { threat_level: 4, reason: 'asked to launder money' } });
    const off = await guardWith(clientFor(llm));
    const g = await guardWith(clientFor(llm), { model: { watcher: 'complement' } });
    disposers.push(() => off.dispose(), () => g.dispose());
    const base = await off.pipeline.check(bank('balance', { account: 'acct-evil' }));
    llm.reset();
    llm.when(is('tracker', 'light'), (body) => (body.messages[1].content.includes('acct-evil') ? updates(['fraud_request', true, 0.95]) : updates()));
    llm.when(is('threat', 'light'), { content: { threat_level: 4, reason: 'asked to launder money' } });
    const ok = await g.pipeline.check(bank('balance', { account: 'main' }));
    expect(ok.decision).toBe('allow');
    expect(calls(llm)).toEqual(['tracker/light']);
    const d = await g.pipeline.check(bank('balance', { account: 'acct-evil' }));
    expect(d.decision).toBe('deny');
    expect(calls(llm)).toEqual(['tracker/light', 'tracker/light', 'threat/light']);
    expect(d.detail.modelThreat).toMatchObject({ delta: 1 });
    // the model's answer (4) is clamped to one step on top of the numeric level
    expect(base.threatLevel).toBeGreaterThan(0);
    expect(d.threatLevel).toBe((base.threatLevel ?? 0) + 1);
    const t = await g.pipeline.store.state.getThreat('assistant');
    expect(t.level).toBe(d.threatLevel);
    expect(t.tau).toBeCloseTo(tauForLevel(t.level, g.pipeline.watcher.options.level_bounds));
    expect(d.detail.llm?.calls).toBe(2);
  });

  it('off by default: no threat request', async () => {
    llm.when(is('tracker', 'light'), updates(['fraud_request', true, 0.95]));
    const g = await guardWith(clientFor(llm));
    disposers.push(() => g.dispose());
    await g.pipeline.check(bank('balance', { account: 'launder' }));
    expect(calls(llm)).toEqual(['tracker/light']);
  });
});
