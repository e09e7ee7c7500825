import { describe, expect, it } from 'vitest';
import { formulaToString, formulaVars } from '../../src/policy/ast.js';
import { FormulaParseError, parseFormula } from '../../src/policy/parse.js';

const show = (s: string) => formulaToString(parseFormula(s));

describe('parseFormula', () => {
  it('respects precedence: ! over & over | over ->', () => {
    expect(parseFormula('a | b & !c')).toMatchObject({ type: 'or', right: { type: 'and', right: { type: 'not' } } });
    expect(parseFormula('a & b -> c | d')).toMatchObject({ type: 'implies', left: { type: 'and' }, right: { type: 'or' } });
  });

  it('makes -> right-associative and & / | left-associative', () => {
    expect(parseFormula('a -> b -> c')).toMatchObject({ type: 'implies', left: { name: 'a' }, right: { type: 'implies' } });
    expect(parseFormula('a & b & c')).toMatchObject({ type: 'and', left: { type: 'and' }, right: { name: 'c' } });
    expect(show('(a -> b) -> c')).toBe('(a -> b) -> c');
    expect(show('a -> (b -> c)')).toBe('a -> b -> c');
  });

  it('accepts word operators, doubled symbols, constants and parentheses', () => {
    expect(show('not (a and b) or c implies d')).toBe('!(a & b) | c -> d');
    expect(show('a && b || false')).toBe('a & b | false');
    expect(show('((true))')).toBe('true');
    expect(show('!!a')).toBe('!!a');
  });

  it('records columns of variables and operators', () => {
    const ast = parseFormula('!(sensitive_info & publish)');
    expect([...formulaVars(ast)]).toEqual([
      ['sensitive_info', 3],
      ['publish', 20],
    ]);
    expect(ast.column).toBe(1);
  });

  const errors: Array<[string, string, number, RegExp]> = [
    ['', 'empty_formula', 1, /empty formula/],
    ['   ', 'empty_formula', 1, /empty formula/],
    ['a &', 'unexpected_end', 4, /unexpected end of formula after "&"/],
    ['a & & b', 'unexpected_token', 5, /unexpected "&" at column 5/],
    ['a b', 'trailing_input', 3, /after a complete formula/],
    ['(a & b', 'unbalanced_parens', 1, /"\(" at column 1 is never closed/],
    ['a & b)', 'unbalanced_parens', 6, /"\)" at column 6 has no matching/],
    ['((a)', 'unbalanced_parens', 1, /never closed/],
    ['(a b)', 'unexpected_token', 4, /expected an operator or "\)"/],
    ['()', 'unexpected_token', 2, /unexpected "\)"/],
    ['a & Secret', 'bad_identifier', 5, /bad identifier "Secret"/],
    ['9lives', 'bad_identifier', 1, /bad identifier/],
    ['_x', 'bad_identifier', 1, /bad identifier/],
    ['a = b', 'bad_character', 3, /unexpected character "="/],
    ['a - b', 'bad_character', 3, /unexpected character "-"/],
    ['!', 'unexpected_end', 2, /unexpected end/],
    ['a -> ', 'unexpected_end', 6, /after "->"/],
  ];
  it.each(errors)('rejects %j as %s at column %i', (text, reason, column, message) => {
    let caught: unknown;
    try {
      parseFormula(text);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(FormulaParseError);
    const e = caught as FormulaParseError;
    expect(e.code).toBe('policy_parse_error');
    expect(e.reason).toBe(reason);
    expect(e.column).toBe(column);
    expect(e.message).toMatch(message);
  });
});
