import { describe, expect, it } from 'vitest';
import type { Interaction, Truth } from '../../src/core/types.js';
import { checkRule, compileBook, evalFormula, evaluatePredicate, parseFormula, predicateApplies, type Predicate } from '../../src/policy/index.js';
import { call, flag, registerTestDetectors, sampleBook } from './support.js';

registerTestDetectors();

const T: Truth[] = ['true', 'false', 'unknown'];
const ev = (f: string, vals: Record<string, Truth>) => evalFormula(parseFormula(f), (n) => vals[n] ?? 'unknown');

describe('evalFormula (Kleene)', () => {
  it('follows the strong Kleene tables', () => {
    const and: Record<string, Truth> = {};
    const or: Record<string, Truth> = {};
    const imp: Record<string, Truth> = {};
    for (const a of T) for (const b of T) {
      and[`${a},${b}`] = ev('a & b', { a, b });
      or[`${a},${b}`] = ev('a | b', { a, b });
      imp[`${a},${b}`] = ev('a -> b', { a, b });
    }
    expect(and).toEqual({
      'true,true': 'true', 'true,false': 'false', 'true,unknown': 'unknown',
      'false,true': 'false', 'false,false': 'false', 'false,unknown': 'false',
      'unknown,true': 'unknown', 'unknown,false': 'false', 'unknown,unknown': 'unknown',
    });
    expect(or).toEqual({
      'true,true': 'true', 'true,false': 'true', 'true,unknown': 'true',
      'false,true': 'true', 'false,false': 'false', 'false,unknown': 'unknown',
      'unknown,true': 'true', 'unknown,false': 'unknown', 'unknown,unknown': 'unknown',
    });
    expect(imp['false,unknown']).toBe('true');
    expect(imp['unknown,true']).toBe('true');
    expect(imp['true,unknown']).toBe('unknown');
    expect(imp['true,false']).toBe('false');
    expect(ev('!a', { a: 'unknown' })).toBe('unknown');
    expect(ev('true & !false', {})).toBe('true');
  });

  it('does not treat p | !p as true when p is unknown (Kleene, not classical)', () => {
    expect(ev('p | !p', { p: 'unknown' })).toBe('unknown');
  });
});

describe('evaluatePredicate', () => {
  const compile = (predicates: unknown[]) =>
    compileBook({
      name: 'b', version: '1', predicates: predicates as never,
      rules: [{ id: 'r', text: 't', applies_to: ['tool_call'], formula: (predicates as Array<{ name: string }>).map((p) => `!${p.name}`).join(' & '), severity: 'low' }],
    }).compiled;

  it('combines detectors with three-valued OR (any) and AND (all)', () => {
    const detectors = [{ type: 'test_flag', arg: 'x' }, { type: 'test_flag', arg: 'y', score: 0.4 }];
    const c = compile([
      { name: 'any_p', description: 'd', detectors },
      { name: 'all_p', description: 'd', detectors, combine: 'all' },
    ]);
    const anyP = c.byName.get('any_p')!;
    const allP = c.byName.get('all_p')!;
    const on = (args: Record<string, unknown>) => call('s', 't', args);
    expect(evaluatePredicate(anyP, on({ x: false, y: true }))).toMatchObject({ value: 'true', score: 0.4, evidence: 'arguments.y is set' });
    expect(evaluatePredicate(anyP, on({ x: true, y: true })).score).toBe(1);
    expect(evaluatePredicate(anyP, on({ x: false })).value).toBe('unknown');
    expect(evaluatePredicate(anyP, on({ x: false, y: false })).value).toBe('false');
    expect(evaluatePredicate(allP, on({ x: true, y: true }))).toMatchObject({ value: 'true', score: 0.4 });
    expect(evaluatePredicate(allP, on({ x: false })).value).toBe('false');
    expect(evaluatePredicate(allP, on({ x: true })).value).toBe('unknown');
  });

  it('turns a throwing detector into unknown, never false', () => {
    const c = compile([flag('x')]);
    const r = evaluatePredicate(c.byName.get('x')!, call('s', 't', { x: 'throw' }));
    expect(r.value).toBe('unknown');
    expect(r.evidence).toMatch(/detector test_flag failed: boom on x/);
  });

  it('leaves a semantic predicate (no detectors) unknown', () => {
    const c = compile([{ name: 'harmful', description: 'is harmful' }]);
    const p = c.byName.get('harmful')!;
    expect(p.semantic).toBe(true);
    expect(evaluatePredicate(p, call('s', 't')).value).toBe('unknown');
  });
});

describe('predicateApplies', () => {
  const base = { agent: 'a', session: 's', profile: {} };
  const kinds: Interaction[] = [
    { ...base, kind: 'tool_call', tool: 't' },
    { ...base, kind: 'resource_read', uri: 'x', phase: 'request' },
    { ...base, kind: 'resource_read', uri: 'x', phase: 'response' },
    { ...base, kind: 'tool_result', tool: 't' },
    { ...base, kind: 'message', content: 'hi' },
  ];
  it.each([
    ['action', [true, true, false, false, false]],
    ['result', [false, false, true, true, false]],
    ['message', [false, false, false, false, true]],
    ['any', [true, true, true, true, true]],
  ] as const)('scope %s', (scope, want) => {
    const p: Predicate = { name: 'p', description: 'd', keywords: [], scope, persistence: 'event', detectors: [], combine: 'any' };
    expect(kinds.map((i) => predicateApplies(p, i))).toEqual(want);
  });
});

describe('checkRule', () => {
  const { compiled } = compileBook(sampleBook());
  const rule = compiled.rules.find((r) => r.id === 'no-secret-publish')!;

  it('is satisfied, violated with a witness, or unknown with a lower confidence', () => {
    expect(checkRule(rule, (n) => (n === 'secret' ? 'true' : 'false'))).toEqual({ status: 'satisfied' });
    expect(checkRule(rule, () => 'true')).toEqual({
      status: 'violated',
      witness: { rule: 'no-secret-publish', predicates: { secret: 'true', publish: 'true' }, confidence: 1 },
    });
    const u = checkRule(rule, (n) => (n === 'secret' ? 'true' : 'unknown'));
    expect(u.status).toBe('unknown');
    expect(u.witness).toEqual({ rule: 'no-secret-publish', predicates: { secret: 'true', publish: 'unknown' }, confidence: 0.5 });
  });

  it('takes the witness confidence from detector scores', () => {
    const r = checkRule(rule, () => 'true', (n) => (n === 'publish' ? 0.7 : undefined));
    expect(r.witness?.confidence).toBe(0.7);
  });

  it('defaults on_unknown to deny for hard rules and flag for soft ones', () => {
    expect(rule.onUnknown).toBe('deny');
    expect(compiled.rules.find((r) => r.id === 'no-external-secret')!.onUnknown).toBe('flag');
  });
});
