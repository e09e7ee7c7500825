import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FlowFacts } from '../../src/core/flow.js';
import { makeDecision, type DecisionDetail, type Interaction } from '../../src/core/types.js';
import { withKey } from '../../src/core/with-key.js';

// The copy as the former spreads made it (data flow's `{ ...i, flow }`, 270e0a2; the referee's `{ ...d, detail }`, 54834e0).
const spread = <T extends object>(o: T, key: keyof T, value: unknown): T => ({ ...o, [key]: value });

/** Every own key (strings, integer-like ones first, and symbols), in order, with its descriptor; and the prototype. */
const shape = (o: object) => ({ proto: Object.getPrototypeOf(o) as unknown, keys: Reflect.ownKeys(o).map((k) => [k, Object.getOwnPropertyDescriptor(o, k)]) });

const tag = Symbol('tag');
const name = fc.oneof(
  fc.constantFrom('kind', 'agent', 'session', 'tool', 'arguments', 'content', 'flow', 'decision', 'rationale', 'rules', 'detail', 'policy', 'auditId', '__proto__', '0', '7', 'constructor', 'toString'),
  fc.string({ maxLength: 6 }),
);
const value = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null), fc.constant(undefined), fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }));
/** Objects with any keys, `__proto__` among them as an own key (as JSON.parse makes it), some with a symbol key. */
const anyObject = fc.tuple(fc.array(fc.tuple(name, value), { maxLength: 10 }), fc.boolean()).map(([entries, symbol]) => {
  const o: Record<string | symbol, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  if (symbol) o[tag] = 'symbol';
  return o;
});

describe('withKey: an object copied with one key set', () => {
  it('has the keys, order, values and prototype the spread gave it, for any own keys and any key set', () => {
    fc.assert(
      fc.property(anyObject, fc.constantFrom('flow', 'detail', 'kind', '0', 'new'), value, (o, key, v) => {
        expect(shape(withKey(o, key, v))).toEqual(shape(spread(o, key, v)));
        expect(withKey(o, key, v)[key]).toBe(v);
        expect(withKey(o, key, v)).not.toBe(o);
      }),
      { numRuns: 5000 },
    );
  });

  it('keeps an own __proto__ key a key, as the spread did', () => {
    const parsed = JSON.parse('{"kind":"tool_call","__proto__":{"polluted":true},"agent":"a"}') as Record<string, unknown>;
    expect(shape(withKey(parsed, 'flow', 1))).toEqual(shape(spread(parsed, 'flow', 1)));
    expect(Object.getPrototypeOf(withKey(parsed, 'flow', 1))).toBe(Object.prototype);
  });

  it('copies interactions with their flow facts and decisions with their detail as the spread did', () => {
    const facts = { labels: [] } as unknown as FlowFacts;
    const call: Interaction = { kind: 'tool_call', agent: 'local', session: 's', profile: {}, server: 'ws', tool: 'read_file', arguments: { path: 'notes.txt' }, roots: ['/srv'], pathKeys: ['path'] };
    const result: Interaction = { kind: 'tool_result', agent: 'local', session: 's', profile: {}, server: 'ws', tool: 'read_file', content: [{ type: 'text', text: 'notes' }], flow: { labels: ['inert'] } as unknown as FlowFacts };
    for (const i of [call, result]) expect(shape(withKey(i, 'flow', facts))).toEqual(shape(spread(i, 'flow', facts)));
    const detail: DecisionDetail = { candidates: 4, threat: { tau: 0, level: 0, burst: false, rate: 0 } };
    for (const d of [
      makeDecision({ decision: 'allow', rationale: 'Allowed: no rule of the policy is violated.' }),
      makeDecision({ decision: 'deny', rationale: 'Denied.', rules: ['a', 'b'], flagged: ['c'], threatLevel: 2, remediation: 'ask', source: 'pipeline' }),
      makeDecision({ decision: 'allow', rationale: 'Allowed, flagged.', flagged: ['x'], witness: [{ rule: 'x', predicates: { p: 'true' }, confidence: 1 }], detail: { review: { ruling: 'allow' } } }),
    ]) expect(shape(withKey(d, 'detail', detail))).toEqual(shape(spread(d, 'detail', detail)));
  });
});
