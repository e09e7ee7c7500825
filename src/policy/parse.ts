import { PolicyError } from '../core/errors.js';
import type { FormulaAst } from './ast.js';

/**
 * The formula parser. It knows nothing about predicates: any snake_case identifier is a variable.
 *
 * Grammar (lowest precedence first; `->` is right-associative, `&` and `|` left-associative):
 *
 *   formula := or ( ('->' | 'implies') formula )?
 *   or      := and ( ('|' | '||' | 'or') and )*
 *   and     := unary ( ('&' | '&&' | 'and') unary )*
 *   unary   := ('!' | 'not') unary | primary
 *   primary := '(' formula ')' | 'true' | 'false' | identifier
 *
 * Identifiers are predicate names: `[a-z][a-z0-9_]*`. Every error is a `FormulaParseError` with code
 * `policy_parse_error`, a `reason` and the 1-based column it points at.
 */
export type ParseErrorReason =
  | 'empty_formula'
  | 'unexpected_token'
  | 'unexpected_end'
  | 'unbalanced_parens'
  | 'bad_identifier'
  | 'bad_character'
  | 'trailing_input';

/** A formula that does not parse; `column` is 1-based into the formula text. */
export class FormulaParseError extends PolicyError {
  readonly reason: ParseErrorReason;
  readonly column: number;

  constructor(reason: ParseErrorReason, message: string, column: number) {
    super('policy_parse_error', message, { location: { column } });
    this.reason = reason;
    this.column = column;
  }
}

type TokenKind = 'ident' | 'not' | 'and' | 'or' | 'implies' | 'lparen' | 'rparen' | 'true' | 'false' | 'eof';
interface Token {
  kind: TokenKind;
  text: string;
  column: number;
}

const KEYWORDS: Record<string, TokenKind> = {
  not: 'not',
  and: 'and',
  or: 'or',
  implies: 'implies',
  true: 'true',
  false: 'false',
};
const IDENT = /^[a-z][a-z0-9_]*$/;
const WORD_CHAR = /[A-Za-z0-9_]/;
/** Longest-first, so `->` wins over `-` and `&&` over `&`. */
const SYMBOLS: Array<[string, TokenKind]> = [
  ['->', 'implies'],
  ['&&', 'and'],
  ['||', 'or'],
  ['!', 'not'],
  ['&', 'and'],
  ['|', 'or'],
  ['(', 'lparen'],
  [')', 'rparen'],
];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const sym = SYMBOLS.find(([s]) => text.startsWith(s, i));
    if (sym) {
      tokens.push({ kind: sym[1], text: sym[0], column: i + 1 });
      i += sym[0].length;
      continue;
    }
    if (WORD_CHAR.test(ch)) {
      let j = i;
      while (j < text.length && WORD_CHAR.test(text[j]!)) j++;
      const word = text.slice(i, j);
      const kw = KEYWORDS[word];
      if (kw) tokens.push({ kind: kw, text: word, column: i + 1 });
      else if (IDENT.test(word)) tokens.push({ kind: 'ident', text: word, column: i + 1 });
      else {
        throw new FormulaParseError(
          'bad_identifier',
          `bad identifier "${word}" at column ${i + 1}: predicate names are snake_case (a-z, 0-9, _), starting with a letter`,
          i + 1,
        );
      }
      i = j;
      continue;
    }
    throw new FormulaParseError(
      'bad_character',
      `unexpected character "${ch}" at column ${i + 1} (operators: ! & | -> and parentheses)`,
      i + 1,
    );
  }
  tokens.push({ kind: 'eof', text: '', column: text.length + 1 });
  return tokens;
}

class Parser {
  private pos = 0;
  /** Columns of the currently open '(' tokens, innermost last. */
  private readonly open: number[] = [];

  constructor(private readonly tokens: Token[]) {}

  parse(): FormulaAst {
    if (this.peek().kind === 'eof') throw new FormulaParseError('empty_formula', 'empty formula', 1);
    const ast = this.formula();
    const t = this.peek();
    if (t.kind === 'rparen') {
      throw new FormulaParseError('unbalanced_parens', `unbalanced parentheses: ")" at column ${t.column} has no matching "("`, t.column);
    }
    if (t.kind !== 'eof') {
      throw new FormulaParseError(
        'trailing_input',
        `unexpected "${t.text}" at column ${t.column} after a complete formula (missing an operator?)`,
        t.column,
      );
    }
    return ast;
  }

  private peek(): Token {
    return this.tokens[this.pos]!;
  }

  private next(): Token {
    return this.tokens[this.pos++]!;
  }

  private formula(): FormulaAst {
    const left = this.or();
    if (this.peek().kind === 'implies') {
      const op = this.next();
      return { type: 'implies', left, right: this.formula(), column: op.column };
    }
    return left;
  }

  private or(): FormulaAst {
    let left = this.and();
    while (this.peek().kind === 'or') {
      const op = this.next();
      left = { type: 'or', left, right: this.and(), column: op.column };
    }
    return left;
  }

  private and(): FormulaAst {
    let left = this.unary();
    while (this.peek().kind === 'and') {
      const op = this.next();
      left = { type: 'and', left, right: this.unary(), column: op.column };
    }
    return left;
  }

  private unary(): FormulaAst {
    if (this.peek().kind === 'not') {
      const op = this.next();
      return { type: 'not', arg: this.unary(), column: op.column };
    }
    return this.primary();
  }

  private primary(): FormulaAst {
    const prev = this.tokens[this.pos - 1];
    const t = this.next();
    switch (t.kind) {
      case 'ident':
        return { type: 'var', name: t.text, column: t.column };
      case 'true':
      case 'false':
        return { type: 'const', value: t.kind === 'true', column: t.column };
      case 'lparen': {
        this.open.push(t.column);
        const inner = this.formula();
        const close = this.peek();
        if (close.kind !== 'rparen') {
          if (close.kind === 'eof') {
            throw new FormulaParseError(
              'unbalanced_parens',
              `unbalanced parentheses: "(" at column ${t.column} is never closed`,
              t.column,
            );
          }
          throw new FormulaParseError(
            'unexpected_token',
            `unexpected "${close.text}" at column ${close.column}: expected an operator or ")" to close "(" at column ${t.column}`,
            close.column,
          );
        }
        this.next();
        this.open.pop();
        return inner;
      }
      case 'eof': {
        const after = prev ? ` after "${prev.text}"` : '';
        throw new FormulaParseError('unexpected_end', `unexpected end of formula${after}: expected a predicate, "(", true or false`, t.column);
      }
      default:
        throw new FormulaParseError(
          'unexpected_token',
          `unexpected "${t.text}" at column ${t.column}: expected a predicate, "!", "(", true or false`,
          t.column,
        );
    }
  }
}

/**
 * Parses a formula such as `!(sensitive_info & publish_content)`. Throws `FormulaParseError`.
 *
 * @example parseFormula('a -> b -> c') // a -> (b -> c)
 */
export function parseFormula(text: string): FormulaAst {
  return new Parser(tokenize(text)).parse();
}
