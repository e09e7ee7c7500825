import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/core/errors.js';
import type { Witness } from '../../src/core/types.js';
import { evaluateSemanticPredicates, expandState } from '../../src/llm/evaluators/predicates.js';
import { citeWitness, hierarchicalReview, reviewDenial, type ReviewInput } from '../../src/llm/evaluators/review.js';
import { threatLevelUpdate } from '../../src/llm/evaluators/threat.js';
import { REFEREE_SYSTEM } from '../../src/llm/prompts/referee.js';
import { STATE_TRACKER_SYSTEM } from '../../src/llm/prompts/state-tracker.js';
import { THREAT_WATCHER_SYSTEM } from '../../src/llm/prompts/threat-watcher.js';
import { UsageMeter } from '../../src/llm/usage.js';
import { useScriptedLlmServer } from '../support/scripted-llm-server.js';
import { clientFor, toolCall, userJson } from './helpers.js';

const PREDS = [
  { name: 'sensitive_info', description: 'the content includes private or confidential information', keywords: ['salary', 'ssn'] },
  { name: 'publish_content', description: 'the call publishes content publicly', keywords: ['post', 'publish'] },
  { name: 'external_recipient', description: 'the message goes to someone outside the organisation' },
];

describe('evaluateSemanticPredicates / expandState', () => {
  const llm = useScriptedLlmServer({ per: 'test' });

  it('evaluates all candidates in ONE light call and applies the documented missing-value rule', async () => {
    llm.script({ content: { updates: [{ name: 'sensitive_info', value: true, confidence: 0.9 }, { name: 'not_a_candidate', value: true, confidence: 1 }] } });
    const client = clientFor(llm);
    const r = await evaluateSemanticPredicates(client, {
      predicates: PREDS,
      interaction: toolCall({ to: 'blog', body: 'salaries of the team' }),
      observations: Array.from({ length: 15 }, (_, i) => `obs ${i}`),
      current: { publish_content: 'true' },
    });
    expect(llm.chatRequests).toHaveLength(1);
    const body = llm.chatRequests[0]!.body;
    expect(body.model).toBe('light-m');
    expect(body.messages[0].content).toBe(STATE_TRACKER_SYSTEM);
    const user = userJson(body);
    expect(user.predicates.map((p: any) => p.name)).toEqual(['sensitive_info', 'publish_content', 'external_recipient']);
    expect(user.predicates[0].keywords).toEqual(['salary', 'ssn']);
    expect(user.current).toEqual({ sensitive_info: 'unknown', publish_content: 'true', external_recipient: 'unknown' });
    expect(user.observations).toEqual(Array.from({ length: 10 }, (_, i) => `obs ${i + 5}`));
    expect(r.values).toEqual({
      sensitive_info: { value: 'true', confidence: 0.9, changed: true },
      publish_content: { value: 'true', confidence: 1, changed: false }, // unchanged: frame assumption
      external_recipient: { value: 'unknown', confidence: 0, changed: false }, // never decided
    });
    expect(r.ignored).toEqual(['not_a_candidate']);
    expect(r.usage.calls).toBe(1);
  });

  it('expandState uses the strong tier; no candidates means no call', async () => {
    llm.script({ content: { updates: [{ name: 'publish_content', value: false, confidence: 0.95 }] } });
    const client = clientFor(llm);
    const r = await expandState(client, { predicates: PREDS.slice(1, 2), interaction: toolCall({}), current: { publish_content: 'true' } });
    expect(llm.chatRequests[0]!.body.model).toBe('strong-m');
    expect(r.values.publish_content).toEqual({ value: 'false', confidence: 0.95, changed: true });
    const none = await evaluateSemanticPredicates(client, { predicates: [], interaction: toolCall({}) });
    expect(none.values).toEqual({});
    expect(llm.chatRequests).toHaveLength(1);
  });

  it('a hanging or failing model rejects within the bound, never hangs', async () => {
    llm.script({ hang: true }, { hang: true });
    const client = clientFor(llm, { timeout_ms: 150, max_retries: 1 });
    const t0 = Date.now();
    await expect(evaluateSemanticPredicates(client, { predicates: PREDS, interaction: toolCall({}) })).rejects.toMatchObject({ code: 'llm_timeout' });
    expect(Date.now() - t0).toBeLessThan(1500);
    llm.script({ status: 400, message: 'bad request' });
    await expect(expandState(client, { predicates: PREDS, interaction: toolCall({}) })).rejects.toMatchObject({ code: 'llm_refused' });
  });

  it('contradictory or malformed answers fail the whole evaluation', async () => {
    const client = clientFor(llm, { cache_size: 0 });
    llm.script({
      content: { updates: [{ name: 'sensitive_info', value: true, confidence: 1 }, { name: 'sensitive_info', value: false, confidence: 1 }] },
    });
    const input = { predicates: PREDS, interaction: toolCall({}) };
    await expect(evaluateSemanticPredicates(client, input)).rejects.toMatchObject({ code: 'llm_malformed_output' });
    llm.script({ content: { sensitive_info: true } }); // the paper's flat form is not ours: no guessing
    await expect(evaluateSemanticPredicates(client, input)).rejects.toMatchObject({ code: 'llm_malformed_output' });
    llm.script({ content: { updates: [{ name: 'sensitive_info', value: 'yes', confidence: 1 }] } });
    await expect(evaluateSemanticPredicates(client, input)).rejects.toBeInstanceOf(LlmError);
  });
});

describe('threatLevelUpdate', () => {
  const llm = useScriptedLlmServer({ per: 'test' });

  const input = (currentLevel: number) => ({
    agent: 'agent-a',
    currentLevel,
    interaction: toolCall({ cmd: 'rm -rf /' }, 'shell'),
    violations: [{ id: 'no-destroy', text: 'Never delete system files.', severity: 'critical' as const }],
  });

  it('returns a ±1 step, clamped whatever the model answers', async () => {
    const client = clientFor(llm, { cache_size: 0 });
    llm.script(
      { content: { threat_level: 2, reason: 'destructive command' } },
      { content: { threat_level: 4, reason: 'jumps' } },
      { content: { threat_level: 0, reason: 'safe' } },
      { content: { threat_level: 1, reason: 'same' } },
      { content: { threat_level: 4, reason: 'already max' } },
    );
    expect(await threatLevelUpdate(client, input(1))).toMatchObject({ delta: 1, reason: 'destructive command' });
    expect((await threatLevelUpdate(client, input(1))).delta).toBe(1);
    expect((await threatLevelUpdate(client, input(3))).delta).toBe(-1);
    expect((await threatLevelUpdate(client, input(1))).delta).toBe(0);
    expect((await threatLevelUpdate(client, input(4))).delta).toBe(0);
    const body = llm.chatRequests[0]!.body;
    expect(body.messages[0].content).toBe(THREAT_WATCHER_SYSTEM);
    expect(userJson(body)).toMatchObject({ agent: 'agent-a', current_level: 1, observations: [], violations: [{ id: 'no-destroy', severity: 'critical' }] });
  });

  it('rejects out-of-range levels as malformed', async () => {
    llm.script({ content: { threat_level: 7, reason: 'x' } });
    await expect(threatLevelUpdate(clientFor(llm), input(1))).rejects.toMatchObject({ code: 'llm_malformed_output' });
  });
});

describe('reviewDenial / hierarchicalReview', () => {
  const llm = useScriptedLlmServer({ per: 'test' });

  const witness: Witness[] = [{ rule: 'no-illegal', predicates: { engage_activity: 'true', illegal: 'true' }, confidence: 1 }];
  const input: ReviewInput = {
    interaction: toolCall({ query: 'dark net markets' }, 'search'),
    violatedRules: [{ id: 'no-illegal', text: 'Do not engage in illegal activities.', severity: 'high', hard: false }],
    witness,
    threatLevel: 0,
  };
  const models = () => llm.chatRequests.map((r) => r.body.model);

  it('a clear light allow stands (one call), with the witness cited', async () => {
    llm.script({ content: { verdict: 'allow', confidence: 0.95, reason: 'Querying about a topic is not engaging in it.' } });
    const r = await hierarchicalReview(clientFor(llm), input);
    expect(r).toMatchObject({ ruling: 'allow', decidedBy: 'light', escalated: false });
    expect(r.rationale).toBe('Querying about a topic is not engaging in it. Machine-checked witness: rule no-illegal: engage_activity=true, illegal=true.');
    expect(models()).toEqual(['light-m']);
    const body = llm.chatRequests[0]!.body;
    expect(body.messages[0].content).toBe(REFEREE_SYSTEM);
    expect(userJson(body)).toMatchObject({ violated_rules: [{ id: 'no-illegal' }], witness: [{ rule: 'no-illegal' }], threat_level: 0 });
  });

  it('a light deny escalates; the strong verdict stands (either way)', async () => {
    llm.script(
      { content: { verdict: 'deny', confidence: 0.9, reason: 'illegal' } },
      { content: { verdict: 'allow', confidence: 0.8, reason: 'engage_activity and illegal fired on a search about a topic' } },
    );
    const r = await hierarchicalReview(clientFor(llm), input);
    expect(r).toMatchObject({ ruling: 'allow', decidedBy: 'strong', escalated: true, light: { ruling: 'deny' } });
    expect(r.rationale).toBe('engage_activity and illegal fired on a search about a topic'); // names the witness already
    expect(models()).toEqual(['light-m', 'strong-m']);
    expect(r.usage.calls).toBe(2);

    llm.reset();
    llm.script({ content: { verdict: 'deny', confidence: 0.9, reason: 'a' } }, { content: { verdict: 'deny', confidence: 0.9, reason: 'Buying is illegal' } });
    const d = await hierarchicalReview(clientFor(llm), input);
    expect(d).toMatchObject({ ruling: 'deny', decidedBy: 'strong' });
    expect(d.rationale).toContain('Machine-checked witness: rule no-illegal');
  });

  it('ambiguous and hesitant allows escalate', async () => {
    llm.script({ content: { verdict: 'ambiguous', confidence: 0.5, reason: 'unclear' } }, { content: { verdict: 'deny', confidence: 0.9, reason: 'no' } });
    expect(await hierarchicalReview(clientFor(llm), input)).toMatchObject({ ruling: 'deny', decidedBy: 'strong' });
    llm.reset();
    llm.script({ content: { verdict: 'allow', confidence: 0.4, reason: 'maybe' } }, { content: { verdict: 'ambiguous', confidence: 0.5, reason: 'cannot tell' } });
    expect(await hierarchicalReview(clientFor(llm), input)).toMatchObject({ ruling: 'ambiguous', decidedBy: 'strong' });
    expect(models()).toEqual(['light-m', 'strong-m']);
  });

  it('a light failure escalates; a strong failure is an error', async () => {
    llm.script({ content: 'not json' }, { content: { verdict: 'deny', confidence: 1, reason: 'x' } });
    const r = await hierarchicalReview(clientFor(llm, { cache_size: 0 }), input);
    expect(r.decidedBy).toBe('strong');
    expect(r.light).toMatchObject({ error: expect.stringContaining('llm_malformed_output') });

    llm.reset();
    llm.script({ content: { verdict: 'deny', confidence: 1, reason: 'x' } }, { status: 500 }, { status: 500 });
    const meter = new UsageMeter();
    await expect(hierarchicalReview(clientFor(llm, { max_retries: 1 }), input, { meter })).rejects.toMatchObject({ code: 'llm_unavailable' });
    expect(models()).toEqual(['light-m', 'strong-m', 'strong-m']);
    expect(meter.total).toMatchObject({ calls: 3, failures: 1 });

    llm.reset();
    llm.script({ content: { verdict: 'deny', confidence: 1, reason: 'x' } }, { refusal: 'no' });
    await expect(hierarchicalReview(clientFor(llm), input)).rejects.toMatchObject({ code: 'llm_refused' });
  });

  it('hard rules are never sent for review', async () => {
    const hard = { ...input, violatedRules: [{ ...input.violatedRules[0]!, hard: true }] };
    await expect(hierarchicalReview(clientFor(llm), hard)).rejects.toThrow(RangeError);
    await expect(reviewDenial(clientFor(llm), 'strong', hard)).rejects.toThrow(/never sent for model review/);
    expect(llm.chatRequests).toHaveLength(0);
  });

  it('reviewDenial on one tier', async () => {
    llm.script({ content: { verdict: 'deny', confidence: 0.7, reason: 'engage_activity, illegal: buying drugs' } });
    const r = await reviewDenial(clientFor(llm), 'strong', input);
    expect(r).toMatchObject({ ruling: 'deny', confidence: 0.7 });
    expect(models()).toEqual(['strong-m']);
  });

  it('citeWitness leaves a reason that names every witness predicate alone', () => {
    expect(citeWitness('x', [])).toBe('x');
    expect(citeWitness('illegal and engage_activity hold', witness)).toBe('illegal and engage_activity hold');
    expect(citeWitness('Unsafe!', witness)).toBe('Unsafe! Machine-checked witness: rule no-illegal: engage_activity=true, illegal=true.');
  });
});
