import { CLAUSE_KEYWORDS, COMPOUND_KEYWORDS, EXPRESSION_KEYWORDS, JOIN_KEYWORDS, NOT_ALIAS } from './keywords.js';
import { resolveScopes, Scope, type ReadSet, type Source, type SqlSchema } from './scope.js';
import { SqlParseError, tokenize, type SqlToken } from './tokenize.js';

/**
 * The read set of a SQL statement: which base tables and columns it reads, through joins, aliases, derived
 * tables, IN/EXISTS/scalar subqueries, CTEs, `*` and `t.*` (expanded with the schema), unqualified columns
 * (placed with the schema; ambiguous ones count for every candidate) and function arguments. String literals
 * are ignored. Only queries (SELECT, VALUES, WITH … SELECT) are read; anything else throws `SqlParseError`.
 *
 * @example
 * readSet('select p.age from patient p where p.uniquepid = ?', schema).tables  // Map { 'patient' => {age, uniquepid} }
 */
export function readSet(sql: string, schema?: SqlSchema): ReadSet {
  const { tokens, match } = tokenize(sql);
  const reader = new Reader(tokens, match);
  const root = new Scope();
  let start = 0;
  let statements = 0;
  for (let i = 0; i <= tokens.length; i++) {
    if (i === tokens.length || isPunct(tokens[i], ';')) {
      if (i > start) {
        reader.query(start, i, root, new Map());
        statements++;
      }
      start = i + 1;
    }
  }
  if (statements === 0) throw new SqlParseError('no statement', 0);
  return resolveScopes(root, schema);
}

type Ctes = Map<string, string[] | null>;

function isPunct(t: SqlToken | undefined, p: string): boolean {
  return t !== undefined && t.kind === 'punct' && t.text === p;
}
function isWord(t: SqlToken | undefined, ...words: string[]): boolean {
  return t !== undefined && t.kind === 'ident' && words.includes(t.upper);
}
function isName(t: SqlToken | undefined): t is SqlToken {
  return t !== undefined && (t.kind === 'qident' || (t.kind === 'ident' && !EXPRESSION_KEYWORDS.has(t.upper)));
}

class Reader {
  constructor(
    private readonly t: SqlToken[],
    private readonly match: Map<number, number>,
  ) {}

  private fail(msg: string, i: number): never {
    throw new SqlParseError(msg, this.t[i]?.pos ?? this.t[this.t.length - 1]?.pos ?? 0);
  }

  /** Index after the token at `i`, jumping over a parenthesised group. */
  private next(i: number): number {
    return isPunct(this.t[i], '(') ? (this.match.get(i) as number) + 1 : i + 1;
  }

  /** Positions of depth-0 tokens in [s, e) satisfying `pred`. */
  private topLevel(s: number, e: number, pred: (tok: SqlToken) => boolean): number[] {
    const out: number[] = [];
    for (let i = s; i < e; i = this.next(i)) if (pred(this.t[i] as SqlToken)) out.push(i);
    return out;
  }

  /** A query in [s, e): optional WITH, then SELECT cores joined by set operators. Returns its output names. */
  query(s: number, e: number, parent: Scope | undefined, outer: Ctes): string[] | null {
    const ctes: Ctes = new Map(outer);
    let i = s;
    if (isWord(this.t[i], 'WITH')) {
      i++;
      if (isWord(this.t[i], 'RECURSIVE')) i++;
      for (;;) {
        const name = this.t[i];
        if (!isName(name)) this.fail('expected a CTE name', i);
        i++;
        let declared: string[] | null = null;
        if (isPunct(this.t[i], '(')) {
          const close = this.match.get(i) as number;
          declared = this.t.slice(i + 1, close).filter((x) => x.kind === 'ident' || x.kind === 'qident').map((x) => x.text);
          i = close + 1;
        }
        if (!isWord(this.t[i], 'AS')) this.fail('expected AS after the CTE name', i);
        i++;
        while (isWord(this.t[i], 'NOT', 'MATERIALIZED')) i++;
        if (!isPunct(this.t[i], '(')) this.fail("expected '(' after AS", i);
        const close = this.match.get(i) as number;
        ctes.set(name.text, declared); // visible inside itself (recursive CTEs)
        const cols = this.query(i + 1, close, parent, ctes);
        ctes.set(name.text, declared ?? cols);
        i = close + 1;
        if (!isPunct(this.t[i], ',')) break;
        i++;
      }
    }
    if (i >= e) this.fail('expected a query', i);
    const cuts = this.topLevel(i, e, (x) => x.kind === 'ident' && COMPOUND_KEYWORDS.has(x.upper));
    let output: string[] | null | undefined;
    let from = i;
    for (const cut of [...cuts, e]) {
      const cols = this.core(from, cut, parent, ctes);
      if (output === undefined) output = cols;
      from = cut + 1;
      while (isWord(this.t[from], 'ALL', 'DISTINCT')) from++;
    }
    return output ?? null;
  }

  /** One SELECT core (or VALUES list, or parenthesised query) in [s, e). */
  private core(s: number, e: number, parent: Scope | undefined, ctes: Ctes): string[] | null {
    const first = this.t[s];
    if (isPunct(first, '(') && this.match.get(s) === e - 1) return this.query(s + 1, e - 1, parent, ctes);
    const scope = new Scope(parent);
    if (isWord(first, 'VALUES')) {
      this.expr(s + 1, e, scope, ctes);
      return null;
    }
    if (!isWord(first, 'SELECT')) this.fail(`only queries are read, found "${first?.text ?? 'end of input'}"`, s);
    const clauses = this.topLevel(s + 1, e, (x) => x.kind === 'ident' && CLAUSE_KEYWORDS.has(x.upper));
    const bounds = [...clauses, e];
    const output = this.selectList(s + 1, bounds[0] as number, scope, ctes);
    for (let k = 0; k < clauses.length; k++) {
      const at = clauses[k] as number;
      const end = bounds[k + 1] as number;
      if ((this.t[at] as SqlToken).upper === 'FROM') this.fromClause(at + 1, end, scope, ctes);
      else this.expr(at + 1, end, scope, ctes);
    }
    return output;
  }

  /** Select-list items: expressions, `*`, `q.*`, with aliases recorded. Returns the output names. */
  private selectList(s: number, e: number, scope: Scope, ctes: Ctes): string[] | null {
    while (isWord(this.t[s], 'DISTINCT', 'ALL')) s++;
    const commas = this.topLevel(s, e, (x) => isPunct(x, ','));
    const names: string[] = [];
    let known = true;
    let from = s;
    for (const cut of [...commas, e]) {
      let end = cut;
      const last = this.t[end - 1];
      const before = this.t[end - 2];
      let alias: string | undefined;
      if (end - from >= 2 && isName(last) && isWord(before, 'AS')) {
        alias = last.text;
        end -= 2;
      } else if (end - from >= 2 && isName(last) && before && !isPunct(before, '.') && before.kind !== 'op' && !isWord(before, ...EXPRESSION_KEYWORDS)) {
        alias = last.text; // implicit alias: `count(*) c1`
        end -= 1;
      }
      if (end - from === 1 && this.t[from]?.kind === 'op' && this.t[from]?.text === '*') {
        scope.refs.push({ column: '*' });
        known = false;
      } else {
        this.expr(from, end, scope, ctes);
        const single = end - from === 1 && isName(this.t[from]) ? this.t[from]?.text : undefined;
        const dotted = end - from === 3 && isPunct(this.t[from + 1], '.') ? this.t[from + 2]?.text : undefined;
        if (dotted === '*') known = false;
        const name = alias ?? single ?? dotted;
        if (name !== undefined) names.push(name);
      }
      if (alias !== undefined) scope.outputAliases.add(alias);
      from = cut + 1;
    }
    return known ? names : null;
  }

  /** FROM items separated by commas or joins, each with its ON / USING condition. */
  private fromClause(s: number, e: number, scope: Scope, ctes: Ctes): void {
    let i = s;
    while (i < e) {
      let natural = false;
      let lateral = false;
      while (i < e && (isPunct(this.t[i], ',') || isWord(this.t[i], ...JOIN_KEYWORDS))) {
        natural ||= isWord(this.t[i], 'NATURAL');
        lateral ||= isWord(this.t[i], 'LATERAL');
        i++;
      }
      if (i >= e) break;
      i = this.fromItem(i, e, scope, ctes, lateral);
      // NATURAL JOIN compares the columns both sides share: resolved with the schema, see `resolveScopes`.
      if (natural) (scope.sources[scope.sources.length - 1] as Source).natural = true;
      if (isWord(this.t[i], 'ON')) {
        const stop = this.topLevel(i + 1, e, (x) => isPunct(x, ',') || (x.kind === 'ident' && JOIN_KEYWORDS.has(x.upper)))[0] ?? e;
        this.expr(i + 1, stop, scope, ctes);
        i = stop;
      } else if (isWord(this.t[i], 'USING') && isPunct(this.t[i + 1], '(')) {
        const close = this.match.get(i + 1) as number;
        for (let k = i + 2; k < close; k++) if (isName(this.t[k])) scope.refs.push({ column: (this.t[k] as SqlToken).text });
        i = close + 1;
      } else if (i < e && !isPunct(this.t[i], ',') && !isWord(this.t[i], ...JOIN_KEYWORDS)) {
        this.fail(`unexpected "${this.t[i]?.text}" in FROM`, i);
      }
    }
  }

  /** One FROM item: table [AS alias], (subquery) [AS] alias, or a parenthesised join. Returns the next index. */
  private fromItem(i: number, e: number, scope: Scope, ctes: Ctes, lateral = false): number {
    let source: Source;
    if (isPunct(this.t[i], '(')) {
      const close = this.match.get(i) as number;
      if (isWord(this.t[i + 1], 'SELECT', 'WITH', 'VALUES') || isPunct(this.t[i + 1], '(')) {
        // A derived table sees the enclosing query's sources, and its siblings' only when LATERAL.
        const cols = this.query(i + 1, close, lateral ? scope : scope.parent, ctes);
        source = { kind: 'derived', alias: '', columns: cols };
      } else {
        this.fromClause(i + 1, close, scope, ctes);
        return this.skipAlias(close + 1, e).next;
      }
      i = close + 1;
    } else {
      const name = this.t[i];
      if (!name || (name.kind !== 'ident' && name.kind !== 'qident')) this.fail('expected a table name', i);
      let table = name.text;
      i++;
      while (isPunct(this.t[i], '.') && this.t[i + 1]) {
        table = (this.t[i + 1] as SqlToken).text; // schema.table: the last part names the table
        i += 2;
      }
      if (isPunct(this.t[i], '(')) {
        // Table-valued function: its arguments are expressions; its columns are unknown.
        this.expr(i + 1, this.match.get(i) as number, scope, ctes);
        i = (this.match.get(i) as number) + 1;
        source = { kind: 'derived', alias: table, columns: null };
      } else if (ctes.has(table)) source = { kind: 'derived', alias: table, columns: ctes.get(table) ?? null };
      else source = { kind: 'table', alias: table, table };
    }
    const { alias, next } = this.skipAlias(i, e);
    if (alias !== undefined) source.alias = alias;
    scope.sources.push(source);
    return next;
  }

  private skipAlias(i: number, e: number): { alias?: string; next: number } {
    if (isWord(this.t[i], 'AS')) i++;
    const tok = this.t[i];
    if (i < e && tok && (tok.kind === 'qident' || (tok.kind === 'ident' && !NOT_ALIAS.has(tok.upper)))) {
      i++;
      if (isPunct(this.t[i], '(')) i = (this.match.get(i) as number) + 1; // alias column list
      return { alias: tok.text, next: i };
    }
    return { next: i };
  }

  /**
   * Skips what follows `AS` / `::` (a type of up to three words, `double precision`, with an optional size list)
   * or `INTERVAL` (a literal and one unit word). Keywords end the skip, so `… DAY AND col` still reads `col`.
   */
  private skipTypeWords(i: number, e: number, maxWords = 3): number {
    if (this.t[i]?.kind === 'string' || this.t[i]?.kind === 'number') i++;
    let words = 0;
    for (; i < e && words < maxWords; i++, words++) {
      const t = this.t[i] as SqlToken;
      if (t.kind !== 'ident' || EXPRESSION_KEYWORDS.has(t.upper) || isPunct(this.t[i + 1], '.')) break;
    }
    if (i < e && isPunct(this.t[i], '(')) i = (this.match.get(i) as number) + 1;
    return i;
  }

  /** Column references and subqueries in an expression range. */
  private expr(s: number, e: number, scope: Scope, ctes: Ctes): void {
    let i = s;
    while (i < e) {
      const tok = this.t[i] as SqlToken;
      if (isPunct(tok, '(')) {
        const close = this.match.get(i) as number;
        if (isWord(this.t[i + 1], 'SELECT', 'WITH', 'VALUES')) {
          this.query(i + 1, close, scope, ctes);
          i = close + 1;
        } else i++;
        continue;
      }
      if (tok.kind === 'ident' && (tok.upper === 'AS' || tok.upper === 'INTERVAL')) {
        // CAST(x AS type [(n)]) and INTERVAL '1' DAY name types and units, not columns.
        i = this.skipTypeWords(i + 1, e, tok.upper === 'AS' ? 3 : 1);
        continue;
      }
      if (tok.kind === 'ident' && EXPRESSION_KEYWORDS.has(tok.upper)) {
        i++;
        continue;
      }
      if (tok.kind === 'op' && tok.text === '::') {
        i = this.skipTypeWords(i + 1, e); // Postgres cast: x::numeric(10, 2)
        continue;
      }
      if (tok.kind !== 'ident' && tok.kind !== 'qident') {
        i++;
        continue;
      }
      if (isPunct(this.t[i + 1], '(')) {
        // Function name. EXTRACT(YEAR FROM col): the first word names a date part, not a column.
        i += tok.upper === 'EXTRACT' && this.t[i + 2]?.kind === 'ident' ? 3 : 1;
        continue;
      }
      if (tok.kind === 'ident' && this.t[i + 1]?.kind === 'string') {
        i++; // typed literal: DATE '2020-01-01', TIMESTAMP '…'
        continue;
      }
      // Dotted name: q.col, s.q.col, q.*
      const parts = [tok.text];
      let j = i + 1;
      while (isPunct(this.t[j], '.') && this.t[j + 1]) {
        const p = this.t[j + 1] as SqlToken;
        parts.push(p.kind === 'op' && p.text === '*' ? '*' : p.text);
        j += 2;
      }
      const column = parts[parts.length - 1] as string;
      if (parts.length === 1) scope.refs.push({ column });
      else scope.refs.push({ qualifier: parts[parts.length - 2] as string, column });
      i = j;
    }
  }
}
