import type { FormulaAst } from './ast.js';
import type { Truth } from '../core/types.js';

/** Kleene's strong three-valued connectives over `Truth` (unknown = "could be either"). */
export function not3(a: Truth): Truth {
  return a === 'true' ? 'false' : a === 'false' ? 'true' : 'unknown';
}

/** Three-valued AND: false dominates, then unknown. */
export function and3(a: Truth, b: Truth): Truth {
  if (a === 'false' || b === 'false') return 'false';
  if (a === 'true' && b === 'true') return 'true';
  return 'unknown';
}

/** Three-valued OR: true dominates, then unknown. */
export function or3(a: Truth, b: Truth): Truth {
  if (a === 'true' || b === 'true') return 'true';
  if (a === 'false' && b === 'false') return 'false';
  return 'unknown';
}

/** Material implication: `a -> b` is `!a | b`. */
export function implies3(a: Truth, b: Truth): Truth {
  return or3(not3(a), b);
}


/**
 * Evaluates a formula in Kleene three-valued logic. `lookup` gives each predicate's current value; a missing
 * fact should be `unknown`, never guessed.
 */
export function evalFormula(ast: FormulaAst, lookup: (name: string) => Truth): Truth {
  switch (ast.type) {
    case 'const':
      return ast.value ? 'true' : 'false';
    case 'var':
      return lookup(ast.name);
    case 'not':
      return not3(evalFormula(ast.arg, lookup));
    case 'and': {
      const l = evalFormula(ast.left, lookup);
      return l === 'false' ? 'false' : and3(l, evalFormula(ast.right, lookup));
    }
    case 'or': {
      const l = evalFormula(ast.left, lookup);
      return l === 'true' ? 'true' : or3(l, evalFormula(ast.right, lookup));
    }
    case 'implies': {
      const l = evalFormula(ast.left, lookup);
      return l === 'false' ? 'true' : implies3(l, evalFormula(ast.right, lookup));
    }
  }
}
