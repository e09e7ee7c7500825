/**
 * The formula AST: propositional formulas over predicate names. Positions are 1-based columns into the formula
 * text, so errors found later (an undefined predicate) can point at the exact spot.
 */
export type FormulaAst =
  | { type: 'const'; value: boolean; column: number }
  | { type: 'var'; name: string; column: number }
  | { type: 'not'; arg: FormulaAst; column: number }
  | { type: 'and' | 'or' | 'implies'; left: FormulaAst; right: FormulaAst; column: number };

/** Each predicate name with the column of its first occurrence, in order of appearance. */
export function formulaVars(ast: FormulaAst, out: Map<string, number> = new Map()): Map<string, number> {
  switch (ast.type) {
    case 'const':
      return out;
    case 'var':
      if (!out.has(ast.name)) out.set(ast.name, ast.column);
      return out;
    case 'not':
      return formulaVars(ast.arg, out);
    default:
      formulaVars(ast.left, out);
      return formulaVars(ast.right, out);
  }
}

const PREC = { implies: 1, or: 2, and: 3, not: 4, var: 5, const: 5 } as const;
const SYM = { and: '&', or: '|', implies: '->' } as const;

/** The formula as text, with only the parentheses precedence needs (`!(a & b) -> c`). */
export function formulaToString(ast: FormulaAst): string {
  switch (ast.type) {
    case 'const':
      return String(ast.value);
    case 'var':
      return ast.name;
    case 'not': {
      const inner = formulaToString(ast.arg);
      return PREC[ast.arg.type] < PREC.not ? `!(${inner})` : `!${inner}`;
    }
    default: {
      const p = PREC[ast.type];
      // `->` is right-associative: a left operand of equal precedence needs parentheses, a right one does not.
      const leftNeeds = PREC[ast.left.type] < p || (ast.type === 'implies' && ast.left.type === 'implies');
      const rightNeeds = PREC[ast.right.type] < p;
      const l = formulaToString(ast.left);
      const r = formulaToString(ast.right);
      return `${leftNeeds ? `(${l})` : l} ${SYM[ast.type]} ${rightNeeds ? `(${r})` : r}`;
    }
  }
}
