import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { makeDecision, type Decision, type DecisionDetail } from '../../../src/core/types.js';
import { audit, quarantineGate, referee, stamp, tracking, watcher } from '../../../src/guard/stages/index.js';
import { withDetail } from '../../../src/guard/stages/referee.js';
import { envFor, interaction, through } from './support.js';

// The referee stage's decision as the former spread made it (54834e0: `{ ...verdict.decision, detail }`).
const formerWithDetail = (d: Decision, detail: DecisionDetail): Decision => ({ ...d, detail });

/** Every own key (strings, integer-like ones first, and symbols), in order, with its descriptor; and the prototype. */
const shape = (o: object) => ({ proto: Object.getPrototypeOf(o) as unknown, keys: Reflect.ownKeys(o).map((k) => [k, Object.getOwnPropertyDescriptor(o, k)]) });

const tag = Symbol('tag');
const key = fc.oneof(
  fc.constantFrom('decision', 'rationale', 'rules', 'flagged', 'witness', 'threatLevel', 'remediation', 'source', 'detail', 'replacement', 'policy', 'elapsedMs', 'auditId', '__proto__', '0', '7', 'constructor', 'toString'),
  fc.string({ maxLength: 6 }),
);
const value = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null), fc.constant(undefined), fc.dictionary(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }), { maxKeys: 2 }));
/** Objects with any keys, `__proto__` among them as an own key (as JSON.parse makes it), some with a symbol key. */
const anyDecision = fc.tuple(fc.array(fc.tuple(key, value), { maxLength: 10 }), fc.boolean()).map(([entries, symbol]) => {
  const o: Record<string | symbol, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  if (symbol) o[tag] = 'symbol';
  return o as unknown as Decision;
});
const anyDetail = fc.record({ candidates: fc.nat(40), threat: fc.record({ tau: fc.double({ noNaN: true }), level: fc.nat(4), burst: fc.boolean(), rate: fc.nat() }) }) as fc.Arbitrary<DecisionDetail>;

describe("the referee stage's decision with the pipeline's detail", () => {
  it('has the keys, order, values and prototype the spread gave it, for any own keys', () => {
    fc.assert(
      fc.property(anyDecision, anyDetail, (d, detail) => {
        expect(shape(withDetail(d, detail))).toEqual(shape(formerWithDetail(d, detail)));
        expect(withDetail(d, detail).detail).toBe(detail);
        expect(withDetail(d, detail)).not.toBe(d);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps an own __proto__ key a key, as the spread did, and copies the decisions makeDecision builds as the spread did', () => {
    const detail: DecisionDetail = { candidates: 4, threat: { tau: 0, level: 0, burst: false, rate: 0 } };
    const parsed = JSON.parse('{"decision":"allow","__proto__":{"polluted":true},"rationale":"r","detail":{}}') as Decision;
    expect(shape(withDetail(parsed, detail))).toEqual(shape(formerWithDetail(parsed, detail)));
    expect(Object.getPrototypeOf(withDetail(parsed, detail))).toBe(Object.prototype);
    const made = [
      makeDecision({ decision: 'allow', rationale: 'Allowed: no rule of the policy is violated.' }),
      makeDecision({ decision: 'deny', rationale: 'Denied.', rules: ['a', 'b'], flagged: ['c'], threatLevel: 2, remediation: 'ask', source: 'pipeline' }),
      makeDecision({ decision: 'allow', rationale: 'Allowed, flagged.', flagged: ['x'], witness: [{ rule: 'x', predicates: { p: 'true' }, confidence: 1 }], detail: { review: { ruling: 'allow' } } }),
    ];
    for (const d of made) expect(shape(withDetail(d, detail))).toEqual(shape(formerWithDetail(d, detail)));
  });

  describe('through the stages', () => {
    let env: Awaited<ReturnType<typeof envFor>>;
    afterEach(() => env.close());

    it('gives the decision, stamped and recorded, the keys in the order the spread gave them', async () => {
      env = await envFor();
      for (const i of [
        interaction({ kind: 'tool_call', server: 'files', tool: 'read_file', arguments: { path: 'notes.txt' } }),
        interaction({ kind: 'tool_call', server: 'files', tool: 'delete_file', arguments: { path: '/etc/passwd' } }),
      ]) {
        const ctx = await through(env, i, [quarantineGate, tracking, watcher, referee]);
        const verdict = ctx.verdict!;
        const former = formerWithDetail(verdict.decision, ctx.decision!.detail);
        expect(shape(ctx.decision!)).toEqual(shape(former));
        await stamp.run(ctx, env);
        await audit.run(ctx, env);
        expect(Object.keys(ctx.decision!)).toEqual([...Object.keys(former), 'policy', 'elapsedMs', 'auditId']);
      }
    });
  });
});
