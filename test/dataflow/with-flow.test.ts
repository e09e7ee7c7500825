import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FlowFacts } from '../../src/core/flow.js';
import type { Interaction } from '../../src/core/types.js';
import { withFlow } from '../../src/guard/dataflow.js';

// The interaction data flow hands on, with its facts, as the former spread made it (270e0a2: `{ ...i, flow: facts }`).
const formerWithFlow = (i: Interaction, flow: FlowFacts): Interaction => ({ ...i, flow });

/** Every own key (strings, integer-like ones first, and symbols), in order, with its descriptor; and the prototype. */
const shape = (o: object) => ({ proto: Object.getPrototypeOf(o) as unknown, keys: Reflect.ownKeys(o).map((k) => [k, Object.getOwnPropertyDescriptor(o, k)]) });

const tag = Symbol('tag');
const key = fc.oneof(fc.constantFrom('kind', 'agent', 'session', 'server', 'tool', 'arguments', 'content', 'flow', '__proto__', '0', '7', 'constructor', 'toString'), fc.string({ maxLength: 6 }));
const value = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null), fc.constant(undefined), fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }));
/** Objects with any keys, `__proto__` among them as an own key (as JSON.parse makes it), some with a symbol key. */
const anyInteraction = fc.tuple(fc.array(fc.tuple(key, value), { maxLength: 9 }), fc.boolean()).map(([entries, symbol]) => {
  const o: Record<string | symbol, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  if (symbol) o[tag] = 'symbol';
  return o as unknown as Interaction;
});

describe('the interaction handed on with its flow facts', () => {
  it('has the keys, order, values and prototype the spread gave it, for any own keys', () => {
    fc.assert(
      fc.property(anyInteraction, fc.array(fc.constantFrom('inert' as const, 'private_source' as const, 'external_send' as const), { maxLength: 2 }), (i, labels) => {
        const facts = { labels } as FlowFacts;
        expect(shape(withFlow(i, facts))).toEqual(shape(formerWithFlow(i, facts)));
        expect(withFlow(i, facts).flow).toBe(facts);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps an own __proto__ key a key, as the spread did, and a call and a result as the spread copied them', () => {
    const facts = { labels: [] } as FlowFacts;
    const parsed = JSON.parse('{"kind":"tool_call","__proto__":{"polluted":true},"agent":"a"}') as Interaction;
    expect(shape(withFlow(parsed, facts))).toEqual(shape(formerWithFlow(parsed, facts)));
    expect(Object.getPrototypeOf(withFlow(parsed, facts))).toBe(Object.prototype);
    const call: Interaction = { kind: 'tool_call', agent: 'local', session: 's', profile: {}, server: 'ws', tool: 'read_file', arguments: { path: 'notes.txt' }, roots: ['/srv'], pathKeys: ['path'] };
    const result: Interaction = { kind: 'tool_result', agent: 'local', session: 's', profile: {}, server: 'ws', tool: 'read_file', content: [{ type: 'text', text: 'notes' }], flow: { labels: ['inert'] } as FlowFacts };
    for (const i of [call, result]) expect(shape(withFlow(i, facts))).toEqual(shape(formerWithFlow(i, facts)));
  });
});
