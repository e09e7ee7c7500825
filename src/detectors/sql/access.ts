import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { z } from 'zod';
import { DetectorConfigError } from '../../core/errors.js';
import type { ReadSet, SqlSchema } from './scope.js';

/**
 * Role-based access lists for SQL reads: for each role, the tables it may read and, per table, the columns
 * (`'*'` for all). Names compare case-insensitively.
 */

/** `{table: [columns] | '*'}` for one role. */
export const TableAccessSchema = z.record(z.string(), z.union([z.array(z.string()), z.literal('*')]));
/** `{role: {table: [columns] | '*'}}`. */
export const AccessMapSchema = z.record(z.string(), TableAccessSchema);
export type AccessMap = z.infer<typeof AccessMapSchema>;
/** `{table: [columns]}`: the database's columns, for `*` expansion and unqualified names. */
export const SchemaMapSchema = z.record(z.string(), z.array(z.string()));
export type SchemaMap = z.infer<typeof SchemaMapSchema>;

/** The side file an `access_file` option names: the roles, and optionally the schema. */
export const AccessFileSchema = z.strictObject({
  schema: SchemaMapSchema.optional(),
  roles: AccessMapSchema,
});
export type AccessFile = z.infer<typeof AccessFileSchema>;

/** A compiled access list: lower-cased role → table → allowed columns (`'*'`: all). */
export type CompiledAccess = Map<string, Map<string, Set<string> | '*'>>;

const norm = (s: string) => s.trim().toLowerCase();

/** Lower-cases and indexes an access map. */
export function compileAccess(map: AccessMap): CompiledAccess {
  const out: CompiledAccess = new Map();
  for (const [role, tables] of Object.entries(map)) {
    const t = new Map<string, Set<string> | '*'>();
    for (const [table, cols] of Object.entries(tables)) t.set(norm(table), cols === '*' ? '*' : new Set(cols.map(norm)));
    out.set(norm(role), t);
  }
  return out;
}

/** Lower-cases and indexes a schema map. */
export function compileSchema(map: SchemaMap): SqlSchema {
  return new Map(Object.entries(map).map(([t, cols]) => [norm(t), new Set(cols.map(norm))]));
}

/** Loads and validates an access file relative to the book directory; throws `DetectorConfigError`. */
export function loadAccessFile(file: string, bookDir: string | undefined, where: string): AccessFile {
  const full = resolve(bookDir ?? '.', file);
  let raw: unknown;
  try {
    // `yaml` is loaded only when a book names an access file: `policy check` of other books starts without it.
    const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    raw = parse(readFileSync(full, 'utf8'));
  } catch (err) {
    throw new DetectorConfigError('detector_invalid_options', `${where}: cannot read access_file ${full}: ${(err as Error).message}`, {
      cause: err,
      location: { file: full, path: where },
    });
  }
  const parsed = AccessFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new DetectorConfigError('detector_invalid_options', `${where}: invalid access_file ${full}:\n${z.prettifyError(parsed.error)}`, {
      location: { file: full, path: where },
    });
  }
  return parsed.data;
}

/** Reads of `reads` the role may not make, as `table` (whole table denied) or `table.column` strings, sorted. */
export function deniedReads(reads: ReadSet, allowed: Map<string, Set<string> | '*'>): string[] {
  const denied: string[] = [];
  for (const [table, cols] of reads.tables) {
    const ok = allowed.get(table);
    if (ok === undefined) {
      denied.push(cols.size === 0 ? table : [...cols].map((c) => `${table}.${c}`).join(', '));
      continue;
    }
    if (ok === '*') continue;
    for (const c of cols) if (!ok.has(c)) denied.push(`${table}.${c}`);
  }
  return denied.sort();
}
