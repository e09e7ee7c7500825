import { describe, expect, it } from 'vitest';
import { EvalCaseSchema, stepToInteraction, summarizeStep } from '../../src/eval/cases.js';
import { InteractionSchema } from '../../src/core/types.js';

const evalCase = EvalCaseSchema.parse({
  id: 'x',
  suite: 's',
  policy: 'default',
  context: { agent: 'ehr-agent', profile: { role: 'nursing' }, note: 'informational' },
  steps: [
    { kind: 'message', sender: 'user', recipient: 'ehr-agent', content: 'hello' },
    { kind: 'tool_call', server: 'ehr', tool: 'run_sql', arguments: { sql: 'select 1' } },
    { kind: 'tool_result', server: 'ehr', tool: 'run_sql', content: [{ type: 'text', text: 'row 1' }] },
    { kind: 'resource_read', server: 'files', uri: 'file:///etc/passwd' },
    { kind: 'resource_request', server: 'files', uri: 'file:///a' },
    { kind: 'resource_result', server: 'files', uri: 'file:///a', content: [{ type: 'text', text: 'A' }] },
    { kind: 'prompt_request', server: 'files', prompt: 'summarize', arguments: { path: 'a' } },
    { kind: 'prompt_result', server: 'files', prompt: 'summarize', content: [{ type: 'text', text: 'S' }] },
  ],
  expect: { decision: 'allow' },
});

describe('stepToInteraction', () => {
  it("sets a call's credentialKeys from the tool's schema in context.tools, as the proxy does from tools/list", () => {
    const withTools = EvalCaseSchema.parse({
      id: 'y',
      suite: 's',
      policy: 'default',
      context: { tools: [{ server: 'db', name: 'connect', inputSchema: { type: 'object', properties: { host: { type: 'string' }, value: { type: 'string', format: 'password' } } } }] },
      steps: [
        { kind: 'tool_call', server: 'db', tool: 'connect', arguments: { host: 'h', value: 'pw-1234' } },
        { kind: 'tool_call', server: 'db', tool: 'other', arguments: { value: 'x' } },
      ],
      expect: { decision: 'allow' },
    });
    const [listed, unlisted] = withTools.steps.map((st) => stepToInteraction(withTools, st, 's'));
    expect(listed).toMatchObject({ kind: 'tool_call', credentialKeys: ['value'] });
    expect(unlisted).not.toHaveProperty('credentialKeys');
  });

  it('maps every step kind onto a valid Interaction with the case agent, profile and session', () => {
    const [m, c, r, rr, q, qr, p, pr] = evalCase.steps.map((s) => stepToInteraction(evalCase, s, 'sess-1'));
    const base = { agent: 'ehr-agent', session: 'sess-1', profile: { role: 'nursing' } };
    expect(m).toEqual({ ...base, kind: 'message', sender: 'user', recipient: 'ehr-agent', content: 'hello' });
    expect(c).toEqual({ ...base, kind: 'tool_call', server: 'ehr', tool: 'run_sql', arguments: { sql: 'select 1' } });
    expect(r).toEqual({ ...base, kind: 'tool_result', server: 'ehr', tool: 'run_sql', content: [{ type: 'text', text: 'row 1' }] });
    // `resource_read`, the older step name, is a resource request.
    expect(rr).toEqual({ ...base, kind: 'resource_request', server: 'files', uri: 'file:///etc/passwd' });
    expect(q).toEqual({ ...base, kind: 'resource_request', server: 'files', uri: 'file:///a' });
    expect(qr).toEqual({ ...base, kind: 'resource_result', server: 'files', uri: 'file:///a', content: [{ type: 'text', text: 'A' }] });
    expect(p).toEqual({ ...base, kind: 'prompt_request', server: 'files', prompt: 'summarize', arguments: { path: 'a' } });
    expect(pr).toEqual({ ...base, kind: 'prompt_result', server: 'files', prompt: 'summarize', content: [{ type: 'text', text: 'S' }] });
    for (const i of [m, c, r, rr, q, qr, p, pr]) expect(InteractionSchema.parse(i)).toEqual(i);
  });

  it("defaults the agent to 'agent' and the profile to {}", () => {
    const bare = { ...evalCase, context: {} };
    const i = stepToInteraction(bare, bare.steps[1]!, 's');
    expect(i.agent).toBe('agent');
    expect(i.profile).toEqual({});
  });
});

describe('summarizeStep', () => {
  it('describes each kind on one line and caps the length', () => {
    expect(summarizeStep(evalCase.steps[1]!)).toBe('tool_call ehr/run_sql {"sql":"select 1"}');
    expect(summarizeStep(evalCase.steps[2]!)).toBe('tool_result ehr/run_sql: row 1');
    const long = summarizeStep({ kind: 'message', sender: 'a', recipient: 'b', content: 'x'.repeat(1000) }, 50);
    expect(long).toHaveLength(50);
    expect(long.endsWith('…')).toBe(true);
  });
});
