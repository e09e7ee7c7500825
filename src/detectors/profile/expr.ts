/**
 * The tiny comparison language of the `profile` detector:
 *
 *   expr    := path [ op literal ]        (a bare path means `path == true`)
 *   path    := 'profile' ('.' ident)+     ident := [A-Za-z_][A-Za-z0-9_-]*
 *   op      := '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not in'
 *   literal := number | 'true' | 'false' | string ('…' or "…", JSON escapes) | '[' literal (',' literal)* ']'
 *
 * `parseProfileExpr` throws `ProfileExprError` with a 1-based column; evaluation never throws.
 */
export type Literal = number | boolean | string | Literal[];
export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not in';

export interface ProfileExpr {
  /** Path inside the profile (`['age']`, `['license', 'class']`). */
  path: string[];
  op: CompareOp;
  value: Literal;
}

/** A syntax error at a 1-based column. */
export class ProfileExprError extends Error {
  constructor(
    message: string,
    readonly column: number,
  ) {
    super(message);
  }
}

export function parseProfileExpr(src: string): ProfileExpr {
  let k = 0;
  const fail = (what: string): never => {
    throw new ProfileExprError(`${what} at column ${k + 1}`, k + 1);
  };
  const ws = (): void => {
    while (k < src.length && /\s/.test(src[k]!)) k++;
  };
  const ident = (): string => {
    const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(src.slice(k));
    if (!m) fail('expected a field name');
    k += m![0].length;
    return m![0];
  };
  const literal = (): Literal => {
    ws();
    const rest = src.slice(k);
    const num = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(rest);
    if (num) {
      k += num[0].length;
      return Number(num[0]);
    }
    const bool = /^(true|false)\b/.exec(rest);
    if (bool) {
      k += bool[0].length;
      return bool[1] === 'true';
    }
    const q = src[k];
    if (q === '"' || q === "'") {
      let j = k + 1;
      while (j < src.length && src[j] !== q) j += src[j] === '\\' ? 2 : 1;
      if (j >= src.length) fail('unterminated string');
      const body = src.slice(k + 1, j);
      k = j + 1;
      try {
        return JSON.parse(`"${q === "'" ? body.replace(/\\'/g, "'").replace(/"/g, '\\"') : body}"`) as string;
      } catch {
        return fail('bad escape in string');
      }
    }
    if (q === '[') {
      k++;
      const items: Literal[] = [];
      ws();
      if (src[k] === ']') {
        k++;
        return items;
      }
      for (;;) {
        items.push(literal());
        ws();
        if (src[k] === ',') {
          k++;
          continue;
        }
        if (src[k] === ']') {
          k++;
          return items;
        }
        fail('expected "," or "]"');
      }
    }
    return fail('expected a number, true, false, a string or a list');
  };

  ws();
  if (!src.startsWith('profile', k) || /[A-Za-z0-9_]/.test(src[k + 7] ?? '')) fail('expected "profile.<field>"');
  k += 7;
  const path: string[] = [];
  while (src[k] === '.') {
    k++;
    path.push(ident());
  }
  if (path.length === 0) fail('expected "." and a field name after "profile"');
  ws();
  if (k >= src.length) return { path, op: '==', value: true };
  const opm = /^(==|!=|<=|>=|<|>|in\b|not\s+in\b)/.exec(src.slice(k));
  if (!opm) fail('expected an operator (== != < <= > >= in, not in)');
  const op = opm![0].replace(/\s+/g, ' ') as CompareOp;
  k += opm![0].length;
  const value = literal();
  ws();
  if (k < src.length) fail('unexpected text after the expression');
  if ((op === 'in' || op === 'not in') && !Array.isArray(value)) throw new ProfileExprError(`"${op}" needs a list on the right`, k + 1);
  if (!(op === 'in' || op === 'not in') && Array.isArray(value)) throw new ProfileExprError(`"${op}" cannot compare with a list; use in`, k + 1);
  if (['<', '<=', '>', '>='].includes(op) && typeof value === 'boolean') throw new ProfileExprError(`"${op}" needs a number or a string`, k + 1);
  return { path, op, value };
}

const typeOf = (v: unknown): string => (Array.isArray(v) ? 'list' : typeof v);

/** `true`/`false`, or `undefined` (unknown) when the value is missing, null, or of another type than the literal. */
export function evaluateProfileExpr(e: ProfileExpr, actual: unknown): boolean | undefined {
  if (actual === undefined || actual === null) return undefined;
  const t = typeOf(actual);
  if (t !== 'number' && t !== 'string' && t !== 'boolean') return undefined;
  if (e.op === 'in' || e.op === 'not in') {
    const list = e.value as Literal[];
    if (list.length > 0 && !list.some((x) => typeOf(x) === t)) return undefined;
    const found = list.some((x) => x === actual);
    return e.op === 'in' ? found : !found;
  }
  if (typeOf(e.value) !== t) return undefined;
  const a = actual as number | string | boolean;
  const b = e.value as number | string | boolean;
  switch (e.op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    default:
      return a >= b;
  }
}
