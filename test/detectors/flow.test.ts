import { describe, expect, it } from 'vitest';
import '../../src/detectors/index.js';
import type { FlowFacts, FlowSource } from '../../src/core/flow.js';
import type { Interaction, InteractionInput } from '../../src/core/types.js';
import { compile, interaction } from './helpers.js';

/**
 * The four data-flow detectors (src/detectors/flow.ts) share one shape: an interaction they do not read is `false`,
 * one without data-flow facts `unknown`, a fact `true` with evidence prefixed by the detector's type.
 */
const source: FlowSource = { id: '7-ab', kind: 'tool_result', server: 'mail', tool: 'read_email', session: 's-1', at: 0 };
const leak = { matched: 12, of: 40, source, others: 1 };

function withFlow(over: Partial<InteractionInput>, flow?: Partial<FlowFacts>): Interaction {
  const i = interaction(over);
  return flow === undefined ? i : { ...i, flow: { labels: [], ...flow } };
}

const message: Partial<InteractionInput> = { kind: 'message', sender: 'agent-1', recipient: 'boss', content: 'hi' };
const elicitation: Partial<InteractionInput> = { kind: 'elicitation_result', action: 'accept', arguments: { a: 'b' } };
const result: Partial<InteractionInput> = { kind: 'tool_result', content: 'x' };

describe('capability', () => {
  const d = compile({ type: 'capability', labels: ['external_send'] });
  it('is true for a labelled tool, false otherwise, unknown without facts', () => {
    expect(d(withFlow({}, { labels: ['external_send'], origin: 'config' }))).toEqual({ value: 'true', score: 1, evidence: 'capability: external_send (from config)' });
    expect(d(withFlow({}, { labels: ['file_write'] })).value).toBe('false');
    expect(d(withFlow({}))).toEqual({ value: 'unknown', evidence: 'capability: no data-flow facts (the guard did not label this tool)' });
  });
  it('reads only the kinds it is given', () => {
    const calls = compile({ type: 'capability', labels: ['external_send'], kinds: ['tool_call'] });
    expect(calls(withFlow(result, { labels: ['external_send'] })).value).toBe('false');
    expect(calls(withFlow(result)).value).toBe('false');
  });
});

describe('audience', () => {
  const d = compile({ type: 'audience', is: ['principal'] });
  it('speaks of messages only', () => {
    expect(d(withFlow(message, { audience: 'principal' }))).toEqual({ value: 'true', score: 1, evidence: 'audience: boss is the principal of agent-1' });
    expect(d(withFlow(message, { audience: 'allowed_agent' })).value).toBe('false');
    expect(d(withFlow(message)).value).toBe('unknown');
    expect(d(withFlow({}, { audience: 'principal' })).value).toBe('false');
    expect(d(withFlow({})).value).toBe('false');
  });
});

describe('data_flow', () => {
  const d = compile({ type: 'data_flow', sinks: ['external_send'] });
  const all = compile({ type: 'data_flow', sinks: ['external_send'], messages: true, elicitation: true, sampling: true, requests: true });
  it('is true for a sink carrying private data, and for a sink whose readings went unchecked', () => {
    expect(d(withFlow({}, { labels: ['external_send'], leak }))).toEqual({ value: 'true', score: 1, evidence: 'data_flow: carries 12 fingerprints of private data read by mail__read_email (audit 7-ab, 1970-01-01T00:00:00.000Z) and 1 other read(s)' });
    expect(d(withFlow({}, { labels: ['external_send'], cut: 'over budget' }))).toEqual({ value: 'true', score: 1, evidence: 'data_flow: over budget; not sent unchecked' });
    expect(d(withFlow({}, { labels: ['file_write'], leak })).value).toBe('false');
    expect(d(withFlow({}, { labels: ['external_send'] })).value).toBe('false');
  });
  it('reads calls and messages by default, the answers to a server only when opted in, and never what comes to the client', () => {
    expect(d(withFlow({})).value).toBe('unknown');
    // A message is read (unknown without facts) and is a sink only with `messages: true`.
    expect(d(withFlow(message)).value).toBe('unknown');
    expect(d(withFlow(message, { leak })).value).toBe('false');
    expect(all(withFlow(message, { leak })).value).toBe('true');
    // An elicitation answer is not read at all without its option (false, even without facts).
    expect(d(withFlow(elicitation)).value).toBe('false');
    expect(d(withFlow(elicitation, { leak })).value).toBe('false');
    expect(all(withFlow(elicitation)).value).toBe('unknown');
    expect(all(withFlow(elicitation, { leak })).value).toBe('true');
    expect(all(withFlow({ kind: 'resource_request', uri: 'file:///a' }, { leak })).value).toBe('true');
    expect(all(withFlow({ kind: 'sampling_result', content: 'x' }, { leak })).value).toBe('true');
    expect(all(withFlow(result, { leak })).value).toBe('false');
    expect(all(withFlow(result)).value).toBe('false');
  });
});

describe('provenance', () => {
  const d = compile({ type: 'provenance' });
  const steered = { by: 'value' as const, argument: 'to', what: 'e…@x', source };
  it('speaks of tool calls only', () => {
    expect(d(withFlow({}, { steered }))).toMatchObject({ value: 'true', evidence: expect.stringMatching(/^provenance: argument `to` carries a value/) });
    expect(d(withFlow({}, { steered: { ...steered, by: 'trifecta' } })).value).toBe('false');
    expect(d(withFlow({})).value).toBe('unknown');
    expect(d(withFlow(result, { steered })).value).toBe('false');
    expect(d(withFlow(message)).value).toBe('false');
  });
});
