import { z } from 'zod';
import { defineDetector } from './registry.js';
import { clip, configError, FieldSelectorSchema, unknown } from './common.js';
import { atPath, selectFields } from '../core/fields.js';
import { formatPath, isUnder, lexicalPath, resolveAgainst, type LexicalPath } from './posix-path.js';
import type { DetectorResult } from './types.js';
import type { Interaction } from '../core/types.js';

/**
 * `path`: where the path(s) in a field lie, decided lexically (see `posix-path.ts`: POSIX normalisation, `..`
 * handled, no symlinks, `~` never expanded).
 *
 * - `field` (required): e.g. `arguments.path`; its value is a string or an array of strings. `uri` works too
 *   (`file://` URIs are decoded).
 * - `under` (required, ≥ 1): absolute (`/srv/data`) or home-relative (`~/projects`) directories.
 * - `outside` (default false): false → true when SOME path is under one of `under`; true → true when SOME path is
 *   outside all of them.
 * - `base`: absolute directory against which relative paths are resolved.
 *
 * A `~` path only lies under `~` entries, so with `outside: true` it counts as outside unless listed. A relative
 * path climbing above its start (`../x`) lies under nothing.
 *
 * `unknown` when the field is missing, is not a string / array of strings, is empty, holds an unreadable path
 * (empty, NUL byte, bad `file://` escape), or holds a relative path and no `base` is set — unless another path
 * already decides `true`. At most 1,000 paths are inspected; more, undecided, is `unknown`.
 *
 * @example { type: path, field: arguments.path, under: ['/workspace'], outside: true }
 */
export const PathOptionsSchema = z.strictObject({
  field: FieldSelectorSchema,
  under: z.array(z.string().min(1)).min(1),
  outside: z.boolean().default(false),
  base: z.string().min(1).optional(),
});
export type PathOptions = z.infer<typeof PathOptionsSchema>;

const MAX_PATHS = 1000;

/** The raw path texts of the field, or a reason why they cannot be read. */
function readPaths(i: Interaction, field: string): string[] | string {
  if (field.startsWith('arguments.')) {
    if (i.arguments === undefined) return 'no arguments';
    const v = atPath(i.arguments, field.slice('arguments.'.length));
    if (v === undefined || v === null) return `${field} is missing`;
    if (typeof v === 'string') return [v];
    if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) return v as string[];
    return `${field} is not a path or a list of paths`;
  }
  const texts = selectFields(i, field).map((f) => f.text);
  return texts.length === 0 ? `${field} is missing` : texts;
}

export const pathDetector = defineDetector({
  type: 'path',
  summary: 'true when a path argument lies under (or, with outside, outside) given directories',
  options: PathOptionsSchema,
  create(opts, ctx) {
    const dirs = opts.under.map((d) => {
      const p = lexicalPath(d);
      if (p === undefined || p.root === '.' || p.escapes) {
        throw configError(ctx, `path: under entry "${d}" must be an absolute (/…) or home (~/…) directory`);
      }
      return { text: d, p };
    });
    let base: LexicalPath | undefined;
    if (opts.base !== undefined) {
      base = lexicalPath(opts.base);
      if (base === undefined || base.root !== '/') throw configError(ctx, `path: base "${opts.base}" must be absolute`);
    }
    const { field, outside } = opts;
    return function path(i): DetectorResult {
      const raw = readPaths(i, field);
      if (typeof raw === 'string') return unknown(`path: ${raw}`);
      let undecided: string | undefined;
      for (const text of raw.slice(0, MAX_PATHS)) {
        const parsed = lexicalPath(text);
        if (parsed === undefined) {
          undecided ??= `unreadable path in ${field}`;
          continue;
        }
        const p = resolveAgainst(parsed, base);
        if (p.root === '.') {
          undecided ??= `relative path ${clip(text, 60)} and no base`;
          continue;
        }
        const hit = dirs.find((d) => isUnder(p, d.p));
        if (!outside && hit) {
          return { value: 'true', score: 1, evidence: `path: ${clip(formatPath(p), 120)} is under ${hit.text}` };
        }
        if (outside && !hit) {
          return { value: 'true', score: 1, evidence: `path: ${clip(formatPath(p), 120)} is outside ${opts.under.join(', ')}` };
        }
      }
      if (raw.length > MAX_PATHS) undecided ??= `more than ${MAX_PATHS} paths`;
      return undecided === undefined ? { value: 'false' } : unknown(`path: ${undecided}`);
    };
  },
});
