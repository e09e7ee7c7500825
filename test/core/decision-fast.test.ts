import { describe, expect, it } from 'vitest';
import { DecisionSchema, makeDecision, plainDecision, type DecisionInput } from '../../src/core/types.js';
import { prng } from '../prng.js';

/**
 * `makeDecision` builds the common decision shape without zod (`plainDecision`). It must give exactly what
 * `DecisionSchema.parse` gives — the same keys in the same order, the same values — and refuse (fall back to the
 * schema) whenever the schema would refuse or do anything the short cut does not.
 */
const sparse: unknown[] = [];
sparse[1] = 'a';
const POOLS: Record<string, unknown[]> = {
  decision: ['allow', 'deny', 'maybe', 1, null, undefined],
  rationale: ['Allowed: no rule of the policy is violated.', '', 5, null, undefined],
  rules: [[], ['a', 'b'], ['a', 1], 'a', sparse, null, undefined],
  flagged: [[], ['f'], [null], {}, undefined],
  witness: [[], [{ rule: 'r', predicates: { p: 'true' }, confidence: 1 }], [{}], null, undefined],
  threatLevel: [0, 4, 2, 5, -1, 1.5, Number.NaN, '1', Number.POSITIVE_INFINITY, undefined],
  remediation: ['do this instead', 3, null, undefined],
  source: ['quarantine', '', 7, undefined],
  detail: [{}, { candidates: 3 }, { bogus: 1 }, Object.create(null), [], null, undefined],
  policy: [{ name: 'n', version: '1', hash: 'h' }, undefined],
  elapsedMs: [1.5, undefined],
  auditId: ['1-abc', undefined],
  replacement: [[{ type: 'text', text: 'x' }], undefined],
  extra: [1, undefined],
};
const CORE = ['decision', 'rationale', 'rules', 'flagged', 'witness', 'threatLevel', 'remediation', 'source', 'detail'];

function outcome(f: () => unknown): { ok: true; value: unknown; json: string; keys: string } | { ok: false } {
  try {
    const value = f();
    return { ok: true, value, json: JSON.stringify(value), keys: JSON.stringify(value, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : v)) };
  } catch {
    return { ok: false };
  }
}

describe('makeDecision without zod (plainDecision)', () => {
  it('gives what DecisionSchema.parse gives, key for key and in order, on generated inputs, and refuses all it refuses', () => {
    const rnd = prng(12345);
    let fast = 0;
    for (let n = 0; n < 30_000; n++) {
      const input: Record<string, unknown> = {};
      // Mostly the core keys, in a random order, now and then one of the others.
      const keys = Object.keys(POOLS).filter((k) => (CORE.includes(k) ? rnd(3) > 0 : rnd(12) === 0));
      for (let k = keys.length - 1; k > 0; k--) {
        const j = rnd(k + 1);
        [keys[k], keys[j]] = [keys[j]!, keys[k]!];
      }
      // Valid values are drawn more often than invalid ones so that both paths are well exercised.
      for (const k of keys) input[k] = POOLS[k]![rnd(10) === 0 ? rnd(POOLS[k]!.length) : 0];
      if (rnd(2) === 0) input.decision = 'allow';
      if (rnd(2) === 0) input.rationale ??= 'r';
      const want = outcome(() => DecisionSchema.parse(input));
      const short = plainDecision(input as DecisionInput);
      if (short !== undefined) {
        fast++;
        expect(want.ok, JSON.stringify(input)).toBe(true);
        const got = outcome(() => short);
        expect(got, JSON.stringify(input)).toEqual(want);
        if (want.ok && got.ok) expect(got.value).toStrictEqual(want.value);
      }
      const made = outcome(() => makeDecision(input as DecisionInput));
      expect(made.ok).toBe(want.ok);
      if (made.ok && want.ok) {
        expect([made.json, made.keys]).toEqual([want.json, want.keys]);
        expect(made.value).toStrictEqual(want.value);
      }
    }
    // Not a vacuous test: a good share of the inputs took the short cut.
    expect(fast).toBeGreaterThan(2_000);
  });

  it('takes the short cut for the referee\'s allow and denial shapes, and copies the lists it is given', () => {
    const rules = ['no-secret-publish'];
    const allow = { decision: 'allow' as const, rationale: 'Allowed: no rule of the policy is violated.', rules: [], flagged: [], witness: [], threatLevel: 0, detail: {} };
    const deny = { decision: 'deny' as const, rationale: 'Denied by policy', rules, flagged: [], witness: [], remediation: 'ask first', threatLevel: 2, source: 'quarantine', detail: {} };
    for (const input of [allow, deny, { decision: 'allow' as const, rationale: 'no guard configured', source: 'none' }]) {
      const d = plainDecision(input);
      expect(d).toBeDefined();
      expect(JSON.stringify(d)).toBe(JSON.stringify(DecisionSchema.parse(input)));
    }
    const d = makeDecision(deny);
    d.rules.push('changed');
    d.detail.candidates = 1;
    expect(rules).toEqual(['no-secret-publish']);
    expect(deny.detail).toEqual({});
  });
});
