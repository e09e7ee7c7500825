import { homedir } from 'node:os';
import { z } from 'zod';
import { argumentsOf, type Interaction } from '../core/types.js';
import { selectFields } from '../core/fields.js';
import { clip, configError, no, unknown } from './common.js';
import { malformedPath, pathArguments } from './path-args.js';
import { realPathOf } from './path.js';
import { realPathAnswersOf, type RealPathAnswers } from './real-paths.js';
import { formatPath, lexicalPath, resolveAgainst, type LexicalPath } from './posix-path.js';
import { globSet } from './glob-set.js';
import { defineDetector } from './registry.js';
import type { DetectorResult } from './types.js';

/**
 * `path_name`: true when a path the interaction names matches one of `match` (and none of `except`): which file it
 * is, where `path` asks where it lies. The list is data in the book (the default book names well-known credential
 * files: `.ssh/id_*` and `.env` at any depth, `/etc/shadow`, …).
 *
 * - `field` (default `any`): `arguments` reads every path-like argument as `path` does (keys named like paths,
 *   `file://` URIs, values shaped like paths, the tool's schema path keys); `uri` reads a resource request's URI
 *   (`file://` decoded, or a plain absolute or `~` path); `any` reads both.
 * - `match` (≥ 1), `except`: globs (picomatch, dotfiles included: `*` within one segment, `**` across segments,
 *   `{a,b}`, `?`) on every form of the path: as written and normalised (`~/.ssh/id_rsa` stays `~/…`), relative
 *   ones joined to each directory the server may resolve them against (the interaction's `roots`), `~` expanded to
 *   the proxy's home, and each absolute form through symbolic links (a link in the sandbox to `~/.ssh/id_rsa` is
 *   that key). A form matching an `except` glob does not count (`.env.example` at any depth).
 *
 * A malformed path is left to the `path` detector (false here). `false` when no path matches.
 *
 * @example { type: path_name, match: ['/etc/shadow', '~/.netrc', '~/.ssh/id_*'], except: ['~/.ssh/*.pub'] }
 */
export const PathNameOptionsSchema = z.strictObject({
  field: z.enum(['arguments', 'uri', 'any']).default('any'),
  match: z.array(z.string().min(1)).min(1),
  except: z.array(z.string().min(1)).default([]),
});
export type PathNameOptions = z.infer<typeof PathNameOptionsSchema>;

const MAX_PATHS = 1000;

/** The raw path texts of the field (none when the interaction has no such field). */
function pathTexts(i: Interaction, field: PathNameOptions['field']): string[] {
  const out: string[] = [];
  if (field !== 'arguments') out.push(...selectFields(i, 'uri').map((f) => f.text).filter((t) => /^file:\/\//i.test(t) || t.startsWith('/') || t.startsWith('~')));
  const args = field === 'uri' ? undefined : argumentsOf(i);
  if (args !== undefined) out.push(...pathArguments(args, i.kind === 'tool_call' ? (i.pathKeys ?? []) : []).map((f) => f.text));
  return out;
}

/** Every form of one path the detector matches globs on (see the doc comment). */
function formsOf(parsed: LexicalPath, bases: readonly LexicalPath[], home: string, memo: RealPathAnswers): string[] {
  const lexical = parsed.root === '.' && bases.length > 0 ? bases.map((b) => resolveAgainst(parsed, b)) : [parsed];
  const out = new Set<string>();
  for (const p of lexical) {
    const text = formatPath(p);
    out.add(text);
    const abs = p.root === '~' ? `${home}${text.slice(1)}` : p.root === '/' ? text : undefined;
    if (abs === undefined) continue;
    out.add(abs);
    const real = realPathOf(abs, memo);
    if (real !== undefined) out.add(real);
  }
  return [...out];
}

export const pathNameDetector = defineDetector({
  type: 'path_name',
  summary: 'true when a path the interaction names (as written, resolved, through links) matches one of the given globs',
  options: PathNameOptionsSchema,
  create(opts, ctx) {
    let matches: (s: string) => boolean;
    let excepted: (s: string) => boolean;
    try {
      matches = globSet(opts.match, { dot: true });
      excepted = globSet(opts.except, { dot: true });
    } catch (err) {
      throw configError(ctx, `path_name: a glob of match or except does not compile: ${err instanceof Error ? err.message : String(err)}`, err);
    }
    const home = homedir();
    return function pathName(i): DetectorResult {
      const texts = pathTexts(i, opts.field);
      const bases = (i.kind === 'tool_call' ? (i.roots ?? []) : []).map((r) => lexicalPath(r)).filter((r): r is LexicalPath => r !== undefined && r.root === '/');
      // realpath answers of this interaction (the proxy's and the path detector's: real-paths.ts), else of this run.
      const memo = realPathAnswersOf(i) ?? new Map<string, string | null>();
      for (const text of texts.slice(0, MAX_PATHS)) {
        if (malformedPath(text) !== undefined) continue;
        const parsed = lexicalPath(text);
        if (parsed === undefined) continue;
        const hit = formsOf(parsed, bases, home, memo).find((f) => matches(f) && !excepted(f));
        if (hit !== undefined) {
          const shown = hit === text ? '' : ` (from ${clip(text, 60)})`;
          return { value: 'true', score: 1, evidence: `path_name: ${clip(hit, 120)}${shown} matches a listed name` };
        }
      }
      return texts.length > MAX_PATHS ? unknown(`path_name: more than ${MAX_PATHS} paths`) : no();
    };
  },
});
