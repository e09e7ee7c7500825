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
    // publish matches; rule no-secret-publish references publish, so secret is must-check too. external is not.
    expect(names(g.mustCheck(call('github', 'publish_release')))).toEqual(['secret', 'publish']);
    expect(names(g.mustCheck(call('mail', 'send')))).toEqual(['secret', 'unrelated']);
    expect(names(g.mustCheck(call('fs', 'read')))).toEqual([]);
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
    expect(must.predicates.map((p) => p.name)).toEqual(['secret', 'publish']);
    // no-external-secret and mail-ok touch `secret`, so they are checked; external/unrelated were not evaluated (false).
    expect(must.rules.map((r) => [r.id, r.status])).toEqual([
      ['no-secret-publish', 'violated'],
      ['no-external-secret', 'satisfied'],
      ['mail-ok', 'satisfied'],
    ]);
    const full = evaluateBook(compiled, i, 'all');
    expect(full.rules.find((r) => r.id === 'no-external-secret')?.status).toBe('violated');
    expect(must.verdict).toBe('deny');
  });
});
