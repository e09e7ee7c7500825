import { describe, expect, it } from 'vitest';
import { readSet } from '../../../src/detectors/sql/reader.js';
import { SqlParseError } from '../../../src/detectors/sql/tokenize.js';
import type { SqlSchema } from '../../../src/detectors/sql/scope.js';

const SCHEMA: SqlSchema = new Map(
  Object.entries({
    ward: ['ward_id', 'name', 'floor'],
    stay: ['stay_id', 'ward_id', 'person_id', 'admitted', 'discharged'],
    person: ['person_id', 'name', 'birth_year', 'insurer'],
    invoice: ['invoice_id', 'person_id', 'amount', 'issued'],
  }).map(([t, c]) => [t, new Set(c)]),
);

/** The read set as a plain sorted object, for readable assertions. */
function reads(sql: string, schema: SqlSchema | undefined = SCHEMA): Record<string, string[]> {
  const r = readSet(sql, schema);
  return Object.fromEntries([...r.tables].sort(([a], [b]) => a.localeCompare(b)).map(([t, c]) => [t, [...c].sort()]));
}

describe('readSet', () => {
  it('reads qualified columns from every clause', () => {
    expect(
      reads(
        "select person.name from person where person.birth_year > 1990 group by person.insurer having count(person.person_id) > 2 order by person.name",
      ),
    ).toEqual({ person: ['birth_year', 'insurer', 'name', 'person_id'] });
  });

  it('follows table aliases and joins (ON and USING)', () => {
    expect(reads('SELECT p.name, w.floor FROM person AS p JOIN stay s ON s.person_id = p.person_id LEFT OUTER JOIN ward w USING (ward_id)')).toEqual({
      person: ['name', 'person_id'],
      stay: ['person_id', 'ward_id'],
      ward: ['floor', 'ward_id'],
    });
  });

  it('reads IN, EXISTS and scalar subqueries, including correlated ones', () => {
    expect(
      reads(
        'select name from person p where person_id in (select person_id from stay where ward_id = 3) and exists (select 1 from invoice i where i.person_id = p.person_id) and (select max(floor) from ward) > 2',
      ),
    ).toEqual({ invoice: ['person_id'], person: ['name', 'person_id'], stay: ['person_id', 'ward_id'], ward: ['floor'] });
  });

  it('reads derived tables and CTEs through to their base tables only', () => {
    expect(reads('select avg(t.total) from (select sum(invoice.amount) as total from invoice group by invoice.person_id) as t')).toEqual({
      invoice: ['amount', 'person_id'],
    });
    expect(reads('with recent(pid) as (select person_id from stay where admitted > 5), big as (select * from recent) select pid from big')).toEqual({
      stay: ['admitted', 'person_id'],
    });
  });

  it('expands * and t.* with the schema, and leaves count(*) at table level', () => {
    expect(reads('select * from ward')).toEqual({ ward: ['floor', 'name', 'ward_id'] });
    expect(reads('select s.* , w.name from stay s join ward w on w.ward_id = s.ward_id')).toEqual({
      stay: ['admitted', 'discharged', 'person_id', 'stay_id', 'ward_id'],
      ward: ['name', 'ward_id'],
    });
    expect(reads('select count(*) from invoice')).toEqual({ invoice: [] });
    expect(reads('select * from mystery', undefined)).toEqual({ mystery: ['*'] });
  });

  it('places unqualified columns with the schema; ambiguous ones count for every candidate', () => {
    expect(reads('select amount, name from invoice, person')).toEqual({ invoice: ['amount'], person: ['name'] });
    expect(reads('select person_id from stay, invoice')).toEqual({ invoice: ['person_id'], stay: ['person_id'] });
  });

  it('ignores string literals, keywords, functions and select-list aliases; folds case and quotes', () => {
    expect(reads("SELECT strftime('%Y', Stay.\"Admitted\") AS yr FROM \"STAY\" WHERE stay.ward_id = 'from ward' ORDER BY yr")).toEqual({
      stay: ['admitted', 'ward_id'],
    });
    expect(reads("select datetime(current_time, '-1 year'), cast(amount as integer) from invoice")).toEqual({ invoice: ['amount'] });
    expect(reads('select `name` from [ward] -- trailing comment naming person')).toEqual({ ward: ['name'] });
  });

  it('skips types, units, date parts and typed literals', () => {
    expect(
      reads(
        "select extract(year from admitted), cast(amount as double precision), amount::numeric(10, 2) from stay, invoice where admitted > date '2020-01-01' + interval '1' day and discharged is not null",
      ),
    ).toEqual({ invoice: ['amount'], stay: ['admitted', 'discharged'] });
  });

  it('reads the shared columns of a NATURAL JOIN and lets LATERAL subqueries see their siblings', () => {
    expect(reads('select name from ward natural join stay')).toEqual({ stay: ['ward_id'], ward: ['name', 'ward_id'] });
    expect(reads('select x.total from person p cross join lateral (select sum(i.amount) total from invoice i where i.person_id = p.person_id) x')).toEqual({
      invoice: ['amount', 'person_id'],
      person: ['person_id'],
    });
  });

  it('reads every SELECT of a compound query', () => {
    expect(reads('select name from ward union all select name from person')).toEqual({ person: ['name'], ward: ['name'] });
  });

  it('takes a qualifier without a FROM for the table it names', () => {
    expect(reads("select person.insurer where person.name = 'x'")).toEqual({ person: ['insurer', 'name'] });
  });

  it('refuses what it cannot read', () => {
    expect(() => readSet('delete from person')).toThrow(SqlParseError);
    expect(() => readSet("select name from person where name = 'x")).toThrow(SqlParseError);
    expect(() => readSet('select (name from person')).toThrow(SqlParseError);
    expect(() => readSet('   ;  ')).toThrow(SqlParseError);
  });
});
