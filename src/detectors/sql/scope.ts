/**
 * Name scopes of a SQL query and the resolution of column references to the base tables they read.
 * The reader records sources and references per SELECT; resolution runs once the whole statement is read,
 * so correlated subqueries and select-list subqueries see every source of their enclosing queries.
 */

/** Columns of each table, lower-case: used to expand `*` and to place unqualified columns. */
export type SqlSchema = Map<string, Set<string>>;

/** A row source in a FROM clause: a base table, or a derived table (subquery or CTE) with its output names. */
export type Source = (
  | { kind: 'table'; alias: string; table: string }
  /** `columns` null: the output names are not known (e.g. the subquery selects `*`). */
  | { kind: 'derived'; alias: string; columns: string[] | null }
) & {
  /** Joined with NATURAL JOIN: reads the columns it shares with the sources before it. */
  natural?: boolean;
};

/** A column reference as written: `col`, `q.col`, `*` or `q.*`. */
export interface ColumnRef {
  qualifier?: string;
  column: string;
}

/** One SELECT's names: its sources, the references made in it, and its select-list aliases. */
export class Scope {
  readonly sources: Source[] = [];
  readonly refs: ColumnRef[] = [];
  readonly outputAliases = new Set<string>();
  readonly children: Scope[] = [];

  constructor(readonly parent?: Scope) {
    parent?.children.push(this);
  }

  /** The source a qualifier names, here or in an enclosing scope. */
  findAlias(q: string): Source | undefined {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- walking the scope chain starts at this scope
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const hit = s.sources.find((src) => src.alias === q);
      if (hit) return hit;
    }
    return undefined;
  }
}

/** What a statement reads: each base table with the columns read from it (possibly none, e.g. `count(*)`). */
export interface ReadSet {
  tables: Map<string, Set<string>>;
  /** Column names that no source in scope could own (no table in scope at all). */
  unresolved: string[];
}

/** Walks the scope tree and resolves every reference against the schema into a `ReadSet`. */
export function resolveScopes(root: Scope, schema: SqlSchema | undefined): ReadSet {
  const out: ReadSet = { tables: new Map(), unresolved: [] };
  const read = (table: string, column?: string) => {
    let cols = out.tables.get(table);
    if (!cols) out.tables.set(table, (cols = new Set()));
    if (column === undefined) return;
    if (column === '*') {
      const all = schema?.get(table);
      if (all) for (const c of all) cols.add(c);
      else cols.add('*');
    } else cols.add(column);
  };
  const visit = (scope: Scope) => {
    for (const src of scope.sources) if (src.kind === 'table') read(src.table);
    naturalJoinReads(scope, schema, read);
    for (const ref of scope.refs) resolveRef(scope, ref, schema, read, out);
    scope.children.forEach(visit);
  };
  visit(root);
  return out;
}

function resolveRef(
  scope: Scope,
  ref: ColumnRef,
  schema: SqlSchema | undefined,
  read: (table: string, column?: string) => void,
  out: ReadSet,
): void {
  if (ref.qualifier !== undefined) {
    const src = scope.findAlias(ref.qualifier);
    if (src?.kind === 'table') read(src.table, ref.column);
    // A derived source's columns were counted where the subquery selected them.
    else if (src === undefined) read(ref.qualifier, ref.column); // no FROM for it: the qualifier is the table
    return;
  }
  if (ref.column === '*') {
    for (const src of scope.sources) if (src.kind === 'table') read(src.table, '*');
    return;
  }
  const col = ref.column;
  for (let s: Scope | undefined = scope; s; s = s.parent) {
    const tables = s.sources.filter((src): src is Extract<Source, { kind: 'table' }> => src.kind === 'table');
    const owners = tables.filter((t) => schema?.get(t.table)?.has(col));
    const derived = s.sources.some((src) => src.kind === 'derived' && (src.columns === null || src.columns.includes(col)));
    if (owners.length > 0) {
      // Ambiguous names count against every candidate: over-reporting is the safe side of access control.
      for (const t of owners) read(t.table, col);
      return;
    }
    if (derived) return;
  }
  if (scope.outputAliases.has(col)) return; // ORDER BY / HAVING on a select-list alias
  // Nobody is known to own it: charge the tables in scope whose schema is unknown, else all of them.
  const inScope = scope.sources.filter((src): src is Extract<Source, { kind: 'table' }> => src.kind === 'table');
  const unknownSchema = inScope.filter((t) => !schema?.has(t.table));
  const charged = unknownSchema.length > 0 ? unknownSchema : inScope;
  if (charged.length === 0) out.unresolved.push(col);
  for (const t of charged) read(t.table, col);
}

/** NATURAL JOIN reads every column name the joined table shares with the tables before it (known via the schema). */
function naturalJoinReads(scope: Scope, schema: SqlSchema | undefined, read: (table: string, column?: string) => void): void {
  scope.sources.forEach((src, k) => {
    if (!src.natural || src.kind !== 'table') return;
    const mine = schema?.get(src.table);
    if (!mine) return;
    for (const before of scope.sources.slice(0, k)) {
      if (before.kind !== 'table') continue;
      const theirs = schema?.get(before.table);
      if (!theirs) continue;
      for (const c of mine) {
        if (theirs.has(c)) {
          read(src.table, c);
          read(before.table, c);
        }
      }
    }
  });
}
