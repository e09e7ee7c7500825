/**
 * A small SQL tokenizer for the read-set extractor: identifiers (bare or quoted with "", ``, []), string
 * literals (skipped by the reader, never mistaken for names), numbers, operators and punctuation. Comments
 * are dropped. Names are folded to lower case (SQL names compare case-insensitively here).
 */

export type SqlTokenKind = 'ident' | 'qident' | 'string' | 'number' | 'op' | 'punct' | 'param';

export interface SqlToken {
  kind: SqlTokenKind;
  /** Lower-cased name for identifiers, raw text otherwise. */
  text: string;
  /** Upper-cased text of a bare identifier, for keyword tests; '' for everything else. */
  upper: string;
  /** Offset in the source. */
  pos: number;
}

/** The SQL could not be read; the detector answers `unknown`. */
export class SqlParseError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(`${message} at offset ${pos}`);
    this.name = 'SqlParseError';
  }
}

const OPERATORS = ['<>', '<=', '>=', '!=', '==', '||', '::', '->>', '->', '<<', '>>'];

/** Tokens of `sql`, and for each '(' the index of its ')' (and vice versa). Throws `SqlParseError`. */
export function tokenize(sql: string): { tokens: SqlToken[]; match: Map<number, number> } {
  const tokens: SqlToken[] = [];
  let i = 0;
  const n = sql.length;
  const push = (kind: SqlTokenKind, text: string, pos: number, upper = '') => tokens.push({ kind, text, upper, pos });
  while (i < n) {
    const c = sql[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) throw new SqlParseError('unterminated comment', i);
      i = end + 2;
    } else if (c === "'" || ((c === 'E' || c === 'e' || c === 'N' || c === 'n' || c === 'X' || c === 'x') && sql[i + 1] === "'")) {
      const start = i;
      i = c === "'" ? i + 1 : i + 2;
      for (;;) {
        if (i >= n) throw new SqlParseError('unterminated string literal', start);
        if (sql[i] === '\\' && c !== "'") i += 2;
        else if (sql[i] === "'" && sql[i + 1] === "'") i += 2;
        else if (sql[i] === "'") break;
        else i++;
      }
      i++;
      push('string', sql.slice(start, i), start);
    } else if (c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      const start = i;
      let name = '';
      i++;
      for (;;) {
        if (i >= n) throw new SqlParseError('unterminated quoted identifier', start);
        if (sql[i] === close && sql[i + 1] === close && close !== ']') {
          name += close;
          i += 2;
        } else if (sql[i] === close) break;
        else name += sql[i++];
      }
      i++;
      push('qident', name.toLowerCase(), start);
    } else if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      const start = i;
      while (i < n && /[A-Za-z0-9_$\u0080-\uffff]/.test(sql[i] as string)) i++;
      const word = sql.slice(start, i);
      push('ident', word.toLowerCase(), start, word.toUpperCase());
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      const start = i;
      while (i < n && /[0-9A-Za-z_.]/.test(sql[i] as string)) {
        if ((sql[i] === 'e' || sql[i] === 'E') && (sql[i + 1] === '+' || sql[i + 1] === '-')) i++;
        i++;
      }
      push('number', sql.slice(start, i), start);
    } else if (c === '?' || ((c === ':' || c === '@' || c === '$') && /[A-Za-z0-9_]/.test(sql[i + 1] ?? ''))) {
      const start = i;
      i++;
      while (i < n && /[A-Za-z0-9_]/.test(sql[i] as string)) i++;
      push('param', sql.slice(start, i), start);
    } else if ('(),;.'.includes(c)) {
      push('punct', c, i);
      i++;
    } else {
      const op = OPERATORS.find((o) => sql.startsWith(o, i));
      push('op', op ?? c, i);
      i += op ? op.length : 1;
    }
  }
  return { tokens, match: matchParens(tokens) };
}

function matchParens(tokens: SqlToken[]): Map<number, number> {
  const match = new Map<number, number>();
  const stack: number[] = [];
  tokens.forEach((t, idx) => {
    if (t.kind !== 'punct') return;
    if (t.text === '(') stack.push(idx);
    else if (t.text === ')') {
      const open = stack.pop();
      if (open === undefined) throw new SqlParseError("unbalanced ')'", t.pos);
      match.set(open, idx);
      match.set(idx, open);
    }
  });
  const open = stack.pop();
  if (open !== undefined) throw new SqlParseError("unbalanced '('", (tokens[open] as SqlToken).pos);
  return match;
}
