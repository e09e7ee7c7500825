import type { FieldText } from '../core/fields.js';

/**
 * The path-like arguments of a tool call, found by their shape rather than one field name:
 * - values of keys named like paths (`path`, `paths`, `file`, `files`, `source`, `destination`, `src`, `dst`,
 *   `dir`, `directory`, `folder`, `cwd`, `root`, and any key ending in path, file, dir or directory, e.g.
 *   `sourcePath`, `output_file`, `targetDir`), strings or arrays of strings, at any depth;
 * - values of looser keys (`target`, `from`, `to`, `location`, `uri`, `url`) when they look like a path;
 * - any whole string value that looks like a path: `file://…`, `/…`, `~/…`, `./…`, `../…`, a drive letter
 *   (`C:\…`), or text with a backslash separator and no spaces.
 */
const PATH_KEY = /^(?:paths?|files?|file_?names?|file_?paths?|sources?|src|destinations?|dest|dst|dirs?|directory|directories|folders?|cwd|root|workdir|working_?dir(?:ectory)?)$|(?:path|paths|file|files|dir|directory|folder)$/i;
const LOOSE_KEY = /^(?:targets?|from|to|location|uri|url|old|new)$/i;
export const LOOKS_LIKE_PATH = /^(?:file:\/\/|\/|~(?:[A-Za-z0-9_.-]*)(?:\/|$)|\.\.?(?:\/|\\|$)|[A-Za-z]:[\\/]|\\\\)|^[^\s\\]*\\[^\s]*$/;
const MAX_DEPTH = 32;

export function pathArguments(args: unknown, schemaKeys: readonly string[] = []): FieldText[] {
  const out: FieldText[] = [];
  walk(args, 'arguments', false, false, 0, out, new Set(schemaKeys));
  return out;
}

/** `schemaKeys`: argument names the tool's input schema marks as paths (whatever their value looks like). */
function walk(value: unknown, field: string, named: boolean, loose: boolean, depth: number, out: FieldText[], schemaKeys: ReadonlySet<string>): void {
  if (depth > MAX_DEPTH) return;
  if (typeof value === 'string') {
    if (named || LOOKS_LIKE_PATH.test(value) || (loose && /[/\\]/.test(value) && !/^[a-z][a-z0-9+.-]*:\/\/(?!\/)/i.test(value) && !/\s/.test(value))) {
      out.push({ field, text: value });
    }
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, k) => walk(v, `${field}.${k}`, named, loose, depth + 1, out, schemaKeys));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    walk(v, `${field}.${k}`, PATH_KEY.test(k) || schemaKeys.has(k), LOOSE_KEY.test(k), depth + 1, out, schemaKeys);
  }
}

/**
 * Why a path text is malformed for a POSIX file system guard, or undefined when it is not: a NUL or control
 * character, a Windows drive or UNC prefix, a backslash separator (mixed separators), or percent-encoding outside a
 * `file://` URI (a server that decodes it would see another path than the guard: `%2e%2e` is `..`). A `file://`
 * URI with a host other than localhost is malformed too (not a local file).
 */
export function malformedPath(text: string): string | undefined {
  if (/[\u0000-\u001f\u007f]/.test(text)) return 'a NUL or control character';
  const uri = /^file:\/\//i.test(text);
  if (uri) {
    if (!/^file:\/\/(?:localhost)?\//i.test(text)) return 'a file:// URI naming a remote host';
    try {
      if (/[\u0000-\u001f\\]/.test(decodeURIComponent(text))) return 'an encoded NUL, control character or backslash';
    } catch {
      return 'a bad percent-encoding';
    }
    return undefined;
  }
  if (/^[A-Za-z]:/.test(text)) return 'a Windows drive prefix';
  if (text.includes('\\')) return 'a backslash separator';
  if (/%[0-9A-Fa-f]{2}/.test(text)) return 'percent-encoding';
  return undefined;
}
