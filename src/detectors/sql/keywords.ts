/**
 * Reserved words the reader never takes for column names, and the words that delimit clauses.
 */

/** Words that are never column references in an expression. */
export const EXPRESSION_KEYWORDS = new Set([
  'ALL', 'AND', 'ANY', 'AS', 'ASC', 'BETWEEN', 'BY', 'CASE', 'CAST', 'COLLATE', 'CROSS', 'CURRENT_DATE', 'CURRENT_TIME',
  'CURRENT_TIMESTAMP', 'DESC', 'DISTINCT', 'ELSE', 'END', 'ESCAPE', 'EXCEPT', 'EXISTS', 'FALSE', 'FILTER', 'FIRST',
  'FOLLOWING', 'FROM', 'FULL', 'GLOB', 'GROUP', 'HAVING', 'ILIKE', 'IN', 'INNER', 'INTERSECT', 'INTERVAL', 'IS',
  'ISNULL', 'JOIN', 'LAST', 'LEFT', 'LIKE', 'LIMIT', 'MATCH', 'NATURAL', 'NOT', 'NOTNULL', 'NULL', 'NULLS', 'OFFSET',
  'ON', 'OR', 'ORDER', 'OUTER', 'OVER', 'PARTITION', 'PRECEDING', 'RANGE', 'REGEXP', 'RIGHT', 'ROWS', 'SELECT',
  'SIMILAR', 'SOME', 'THEN', 'TRUE', 'UNBOUNDED', 'UNION', 'USING', 'VALUES', 'WHEN', 'WHERE', 'WINDOW', 'WITH',
  'CURRENT', 'ROW', 'UNKNOWN', 'FETCH', 'NEXT', 'ONLY', 'TOP', 'PERCENT', 'TIES',
]);

/** Clause starters of a SELECT core, at parenthesis depth 0. */
export const CLAUSE_KEYWORDS = new Set(['FROM', 'WHERE', 'GROUP', 'HAVING', 'WINDOW', 'ORDER', 'LIMIT', 'OFFSET', 'FETCH']);

/** Set operators joining SELECT cores. */
export const COMPOUND_KEYWORDS = new Set(['UNION', 'INTERSECT', 'EXCEPT', 'MINUS']);

/** Words that end a FROM item's table name and alias. */
export const JOIN_KEYWORDS = new Set(['JOIN', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'OUTER', 'CROSS', 'NATURAL', 'LATERAL']);

/** Words that cannot be a table alias. */
export const NOT_ALIAS = new Set([...JOIN_KEYWORDS, ...CLAUSE_KEYWORDS, ...COMPOUND_KEYWORDS, 'ON', 'USING', 'AS', 'WITH', 'INDEXED', 'NOT']);
