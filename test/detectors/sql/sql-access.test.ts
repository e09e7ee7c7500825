import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../../src/detectors/index.js';
import { compileDetector } from '../../../src/detectors/registry.js';
import { call, configError } from '../helpers.js';

const ACCESS = {
  clerk: { invoice: ['invoice_id', 'person_id', 'amount'], person: ['person_id', 'insurer'] },
  doctor: { person: '*', stay: '*', ward: ['ward_id', 'name'] },
};
const SCHEMA = {
  ward: ['ward_id', 'name', 'floor'],
  stay: ['stay_id', 'ward_id', 'person_id', 'admitted'],
  person: ['person_id', 'name', 'insurer'],
  invoice: ['invoice_id', 'person_id', 'amount'],
};
const spec = { type: 'sql_access', access: ACCESS, schema: SCHEMA };
const detector = compileDetector(spec, { path: 'p' });
const as = (role: unknown, sql: unknown, args: Record<string, unknown> = {}) =>
  call({ sql, ...args }, { profile: role === undefined ? {} : { role } });

describe('sql_access', () => {
  it('allows reads inside the role list and names what is outside', () => {
    expect(detector(as('clerk', 'select sum(amount) from invoice where person_id = 4')).value).toBe('false');
    const r = detector(as('clerk', 'select p.name, i.amount from person p join invoice i on i.person_id = p.person_id'));
    expect(r.value).toBe('true');
    expect(r.evidence).toBe('role "clerk" may not read person.name');
  });

  it('denies a whole table outside the list, even for count(*) and inside subqueries', () => {
    expect(detector(as('clerk', 'select count(*) from stay')).evidence).toBe('role "clerk" may not read stay');
    expect(detector(as('clerk', 'select amount from invoice where person_id in (select person_id from stay)')).value).toBe('true');
    expect(detector(as('doctor', 'select * from ward')).evidence).toBe('role "doctor" may not read ward.floor');
  });

  it("honours '*' grants and the same column name in different tables", () => {
    expect(detector(as('doctor', 'select * from person, stay')).value).toBe('false');
    // person_id is readable in person for the clerk, but stay is not granted at all.
    expect(detector(as('clerk', 'select person_id from stay')).value).toBe('true');
  });

  it('matches roles case-insensitively and reads the role from a configurable profile field', () => {
    expect(detector(as('  Clerk ', 'select amount from invoice')).value).toBe('false');
    const byTitle = compileDetector({ ...spec, role_field: 'title' }, { path: 'p' });
    expect(byTitle(call({ sql: 'select name from ward' }, { profile: { title: 'doctor' } })).value).toBe('false');
  });

  it('is unknown without a role, with an unlisted role, without SQL, or with unreadable SQL', () => {
    expect(detector(as(undefined, 'select 1')).value).toBe('unknown');
    expect(detector(as('janitor', 'select amount from invoice')).value).toBe('unknown');
    expect(detector(call({ path: '/tmp' }, { profile: { role: 'clerk' } })).value).toBe('unknown');
    expect(detector(as('clerk', "select amount from invoice where x = 'unterminated")).value).toBe('unknown');
    expect(detector(as('clerk', 'update invoice set amount = 0')).value).toBe('unknown');
  });

  it('finds SQL in another argument when no field is given, or in the named field', () => {
    const q = call({ query: 'SELECT name FROM person' }, { profile: { role: 'clerk' } });
    expect(detector(q).value).toBe('true');
    const named = compileDetector({ ...spec, field: 'arguments.stmt' }, { path: 'p' });
    expect(named(call({ stmt: 'select amount from invoice', sql: 'select name from person' }, { profile: { role: 'clerk' } })).value).toBe('false');
  });

  it('rejects bad options at load', () => {
    expect(configError({ type: 'sql_access' }).code).toBe('detector_invalid_options');
    expect(configError({ type: 'sql_access', access: ACCESS, access_file: 'a.yaml' }).code).toBe('detector_invalid_options');
    expect(configError({ type: 'sql_access', access: {} }).code).toBe('detector_invalid_options');
  });
});

describe('sql_access with access_file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'qg-sql-'));
    await writeFile(join(dir, 'access.yaml'), 'schema:\n  ward: [ward_id, name, floor]\nroles:\n  nurse:\n    ward: [ward_id, name]\n');
    await writeFile(join(dir, 'bad.yaml'), 'roles: [1, 2]\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('loads roles and schema relative to the book directory', () => {
    const d = compileDetector({ type: 'sql_access', access_file: 'access.yaml' }, { path: 'p', bookDir: dir });
    expect(d(call({ sql: 'select name from ward' }, { profile: { role: 'nurse' } })).value).toBe('false');
    expect(d(call({ sql: 'select * from ward' }, { profile: { role: 'nurse' } })).evidence).toContain('ward.floor');
  });

  it('reports a missing or malformed file at load', () => {
    expect(() => compileDetector({ type: 'sql_access', access_file: 'nope.yaml' }, { path: 'p', bookDir: dir })).toThrow(/cannot read access_file/);
    expect(() => compileDetector({ type: 'sql_access', access_file: 'bad.yaml' }, { path: 'p', bookDir: dir })).toThrow(/invalid access_file/);
  });
});
