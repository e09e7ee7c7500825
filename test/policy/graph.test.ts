import { describe, expect, it } from 'vitest';
import { compileBook } from '../../src/policy/index.js';
import { call, flag, registerTestDetectors, sampleBook } from './support.js';

registerTestDetectors();

describe('DependencyGraph', () => {
  const { compiled } = compileBook(sampleBook());
  const g = compiled.graph;
  const names = (ps: readonly { name: string }[]) => ps.map((p) => p.name);

  it('indexes rules by kind and by predicate', () => {
    expect(g.rulesFor('tool_call').map((r) => r.id)).toEqual(['no-secret-publish', 'no-external-secret', 'mail-ok']);
    expect(g.rulesFor('message')).toEqual([]);
    expect(g.rulesUsing('secret').map((r) => r.id)).toEqual(['no-secret-publish', 'no-external-secret', 'mail-ok']);
    expect(g.rulesUsing('publish').map((r) => r.id)).toEqual(['no-secret-publish']);
  });

  it('makes tool-matched predicates and their rules antecedents must-check', () => {
    // publish matches; rule no-secret-publish references publish, so secret is must-check too. no-external-secret
    // references no tool-bound predicate: it is a general tool_call rule, so secret and external are must-check for
    // every tool call. unrelated is bound to mail tools only.
    expect(names(g.mustCheck(call('github', 'publish_release')))).toEqual(['secret', 'publish', 'external']);
    expect(names(g.mustCheck(call('mail', 'send')))).toEqual(['secret', 'external', 'unrelated']);
    expect(names(g.mustCheck(call('fs', 'read')))).toEqual(['secret', 'external']);
    expect(g.mustCheck({ kind: 'message', agent: 'a', session: 's', profile: {}, content: 'x' })).toEqual([]);
  });

  it('only includes predicates of rules governing this interaction kind, in scope', () => {
    const { compiled: c } = compileBook({
      name: 'b', version: '1',
      predicates: [flag('pub', { tools: ['gh__*'] }), flag('sec_result', { scope: 'result' }), flag('sec_call', { scope: 'action' })],
      rules: [
        { id: 'call', text: 't', applies_to: ['tool_call'], formula: '!(pub & sec_call)', severity: 'low' },
        { id: 'result', text: 't', applies_to: ['tool_result'], formula: '!(pub & sec_result)', severity: 'low' },
      ],
    });
    expect(names(c.graph.mustCheck(call('gh', 'x')))).toEqual(['pub', 'sec_call']);
    const result = { kind: 'tool_result' as const, agent: 'a', session: 's', profile: {}, server: 'gh', tool: 'x', content: 'r' };
    expect(names(c.graph.mustCheck(result))).toEqual(['pub', 'sec_result']);
  });

  it('makes the predicates of general message rules must-check for messages, which have no tool', () => {
    const { compiled: c } = compileBook({
      name: 'm', version: '1',
      predicates: [flag('inj', { scope: 'message' }), flag('other', { scope: 'message' }), flag('pub', { tools: ['gh__*'] })],
      rules: [
        { id: 'no-inj', text: 't', applies_to: ['message'], formula: '!inj', severity: 'high' },
        { id: 'tool-bound', text: 't', applies_to: ['message', 'tool_call'], formula: '!(pub & other)', severity: 'low' },
      ],
    });
    const msg = { kind: 'message' as const, agent: 'a', session: 's', profile: {}, content: 'x' };
    // A message has no tool, so no `tools` glob narrows the rules of its kind: tool-bound's predicates are checked too.
    expect(names(c.graph.mustCheck(msg))).toEqual(['inj', 'other', 'pub']);
    // A tool call to another tool: tool-bound cannot be violated with pub false, so only its matched tools check it.
    expect(names(c.graph.mustCheck(call('fs', 'read')))).toEqual([]);
    expect(names(c.graph.mustCheck(call('gh', 'x')))).toEqual(['pub']); // other is a message predicate
  });

  it('makes every predicate of a rule must-check on interactions with no tool (resource and prompt results, messages)', () => {
    // The default book's shape: the injection predicate is bound to every tool, and its rule governs resource and
    // prompt results too. Before, a resource result had an empty must-check set: the rule was checked only when
    // retrieval ranked the predicate.
    const { compiled: c } = compileBook({
      name: 'r', version: '1',
      predicates: [flag('inj', { scope: 'result', tools: ['**'] }), flag('sec_args', { scope: 'action', tools: ['**'] }), flag('sec_msg', { scope: 'message' })],
      rules: [
        { id: 'no-inj', text: 't', applies_to: ['tool_result', 'resource_read'], formula: '!inj', severity: 'high' },
        { id: 'no-secret', text: 't', applies_to: ['tool_call', 'message'], formula: '!(sec_args | sec_msg)', severity: 'high' },
      ],
    });
    const base = { agent: 'a', session: 's', profile: {} };
    expect(names(c.graph.mustCheck({ ...base, kind: 'resource_result', server: 'd', uri: 'file:///n', content: 'x' }))).toEqual(['inj']);
    expect(names(c.graph.mustCheck({ ...base, kind: 'prompt_result', server: 'd', prompt: 'p', content: 'x' }))).toEqual(['inj']);
    expect(names(c.graph.mustCheck({ ...base, kind: 'tool_result', server: 'd', tool: 't', content: 'x' }))).toEqual(['inj']);
    expect(names(c.graph.mustCheck({ ...base, kind: 'message', content: 'x' }))).toEqual(['sec_msg']);
    expect(names(c.graph.mustCheck(call('fs', 'read')))).toEqual(['sec_args']);
  });

  it('makes the other predicates of a disjunction must-check for every tool (violable with the tool-bound ones false)', () => {
    const { compiled: c } = compileBook({
      name: 'd', version: '1',
      predicates: [flag('pub', { tools: ['gh__*'] }), flag('secret'), flag('approved', { tools: ['gh__*'] })],
      rules: [
        { id: 'or', text: 't', applies_to: ['tool_call'], formula: '!(pub | secret)', severity: 'high' },
        { id: 'implies', text: 't', applies_to: ['tool_call'], formula: 'approved -> !secret', severity: 'high' },
      ],
    });
    // `!(pub | secret)` is violated by secret alone; `approved -> !secret` holds whenever approved is false.
    expect(names(c.graph.mustCheck(call('fs', 'read')))).toEqual(['secret']);
    expect(names(c.graph.mustCheck(call('gh', 'x')))).toEqual(['pub', 'secret', 'approved']);
  });

  it('memoizes per (kind, tool): the same array comes back', () => {
    const a = g.mustCheck(call('github', 'publish_release', { secret: true }));
    const b = g.mustCheck(call('github', 'publish_release', { secret: false }));
    expect(b).toBe(a);
    expect(g.mustCheck(call('github', 'publish_x'))).not.toBe(a);
  });
});

describe('evaluateBook must-check path', () => {
  it('evaluates only M_t and the rules touching it, and agrees with the full path on tool-governed rules', async () => {
    const { evaluateBook } = await import('../../src/policy/index.js');
    const { compiled } = compileBook(sampleBook());
    const i = call('github', 'publish_release', { secret: true, publish: true, external: true });
    const must = evaluateBook(compiled, i, 'must-check');
    expect(must.predicates.map((p) => p.name)).toEqual(['secret', 'publish', 'external']);
    // mail-ok touches `secret`, so it is checked; unrelated was not evaluated (false). The general rule
    // no-external-secret is must-check, so the must-check path agrees with the full path on it.
    expect(must.rules.map((r) => [r.id, r.status])).toEqual([
      ['no-secret-publish', 'violated'],
      ['no-external-secret', 'violated'],
      ['mail-ok', 'satisfied'],
    ]);
    const full = evaluateBook(compiled, i, 'all');
    expect(full.rules.find((r) => r.id === 'no-external-secret')?.status).toBe('violated');
    expect(must.violated).toEqual(['no-secret-publish', 'no-external-secret']);
    expect(must.unknown).toEqual([]);
  });
});
