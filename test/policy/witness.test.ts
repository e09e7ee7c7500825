import { describe, expect, it } from 'vitest';
import type { Truth } from '../../src/core/types.js';
import { buildWitness, EXACT_WITNESS_BOUND, evalFormula, formulaVars, minimalWitness, parseFormula } from '../../src/policy/index.js';

function witnessOf(formula: string, vals: Record<string, Truth>) {
  const ast = parseFormula(formula);
  return minimalWitness(ast, [...formulaVars(ast).keys()], (n) => vals[n] ?? 'false');
}

/** Independent brute force: all subsets, all 2-valued completions; the smallest forcing size. */
function bruteMinSize(formula: string, vals: Record<string, Truth>): number {
  const ast = parseFormula(formula);
  const vars = [...formulaVars(ast).keys()];
  const outcome = evalFormula(ast, (n) => vals[n] ?? 'false');
  const ok = (v: Truth) => (outcome === 'false' ? v === 'false' : v !== 'true');
  let best = Infinity;
  for (let s = 0; s < 1 << vars.length; s++) {
    const subset = vars.filter((_, i) => s & (1 << i));
    if (outcome === 'false' && subset.some((n) => vals[n] === 'unknown')) continue;
    const free = vars.filter((v) => !subset.includes(v));
    let forced = true;
    for (let c = 0; c < 1 << free.length && forced; c++) {
      const comp = new Map(free.map((n, i) => [n, (c & (1 << i) ? 'true' : 'false') as Truth]));
      if (!ok(evalFormula(ast, (n) => (subset.includes(n) ? (vals[n] ?? 'false') : comp.get(n)!)))) forced = false;
    }
    if (forced) best = Math.min(best, subset.length);
  }
  return best;
}

describe('minimal witnesses', () => {
  it('is undefined when the rule holds', () => {
    expect(witnessOf('!(a & b)', { a: 'true', b: 'false' })).toBeUndefined();
  });

  it('needs both conjuncts of !(a & b)', () => {
    expect(witnessOf('!(a & b)', { a: 'true', b: 'true' })).toEqual(['a', 'b']);
  });

  it('drops predicates that do not matter', () => {
    // !(a & b) & !c is violated by c alone; a, b are irrelevant even though both are true.
    expect(witnessOf('!(a & b) & !c', { a: 'true', b: 'true', c: 'true' })).toEqual(['c']);
    // a -> b violated: a=true, b=false, both needed; d unrelated.
    expect(witnessOf('(a -> b) & (d | !d)', { a: 'true', b: 'false', d: 'true' })).toEqual(['a', 'b']);
  });

  it('finds the smallest of several witnesses', () => {
    // (a | b | c) & (d | e): a=b=c=false forces false with 3; d=e=false with 2: the smaller one wins.
    expect(witnessOf('(a | b | c) & (d | e)', { a: 'false', b: 'false', c: 'false', d: 'false', e: 'false' })).toEqual(['d', 'e']);
  });

  it('uses classical completions, so a tautological part is not needed', () => {
    // (p | !p) is always true: the violation of `(p | !p) & !q` rests on q alone.
    expect(witnessOf('(p | !p) & !q', { p: 'true', q: 'true' })).toEqual(['q']);
  });

  it('excludes unknown values from witnesses of a decided violation', () => {
    expect(witnessOf('!a & !b', { a: 'true', b: 'unknown' })).toEqual(['a']);
  });

  it('includes the unknowns that keep an undecided rule from holding', () => {
    expect(witnessOf('!(a & b) & !c', { a: 'true', b: 'unknown', c: 'false' })).toEqual(['a', 'b']);
  });

  it('gives witness confidence 0.5 for unknown members and the minimum detector score otherwise', () => {
    const ast = parseFormula('!(a & b)');
    const vals: Record<string, Truth> = { a: 'true', b: 'unknown' };
    expect(buildWitness('r', ast, ['a', 'b'], (n) => vals[n]!)?.confidence).toBe(0.5);
    expect(buildWitness('r', ast, ['a', 'b'], () => 'true', (n) => (n === 'a' ? 0.9 : 0.6))?.confidence).toBe(0.6);
  });

  it('matches an independent brute force on random formulas and values', () => {
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const names = ['a', 'b', 'c', 'd', 'e'];
    const gen = (depth: number): string => {
      if (depth === 0 || rnd(3) === 0) return names[rnd(names.length)]!;
      const op = rnd(4);
      if (op === 0) return `!${gen(depth - 1)}`;
      return `(${gen(depth - 1)} ${['&', '|', '->'][op - 1]} ${gen(depth - 1)})`;
    };
    let checked = 0;
    for (let k = 0; k < 400; k++) {
      const f = gen(4);
      const vals = Object.fromEntries(names.map((n) => [n, (['true', 'false', 'unknown'] as Truth[])[rnd(3)]!]));
      const w = witnessOf(f, vals);
      if (!w) continue;
      checked++;
      expect(w.length, `${f} ${JSON.stringify(vals)}`).toBe(bruteMinSize(f, vals));
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('falls back to a greedy, still forcing, witness past the exact bound', () => {
    const n = EXACT_WITNESS_BOUND + 3;
    const vars = Array.from({ length: n }, (_, i) => `p${i}`);
    // Violated when every p is false: the disjunction needs all of them; plus a clause violated by q alone.
    const formula = `(${vars.join(' | ')}) & !q`;
    const vals: Record<string, Truth> = Object.fromEntries(vars.map((v) => [v, 'false' as Truth]));
    vals.q = 'false';
    expect(witnessOf(formula, vals)).toEqual(vars);
    vals.q = 'true';
    vals.p0 = 'true';
    expect(witnessOf(formula, vals)).toEqual(['q']);
  });
});
