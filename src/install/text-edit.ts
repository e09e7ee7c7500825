/**
 * Surgical text edits: replace `[start, end)` spans of the original file with new text, and show what changes as a
 * per-edit line diff. Everything outside the spans (comments, formatting, other entries) stays byte-identical.
 */

/** Replace `text.slice(start, end)` with `replacement`. */
export interface TextEdit {
  start: number;
  end: number;
  replacement: string;
}

/** Applies non-overlapping edits (any order). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.start) + e.replacement + out.slice(e.end);
  return out;
}

/** The file's line ending (`\r\n` if it uses any, else `\n`). */
export function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** The file's indent unit: a tab, or the smallest leading run of spaces (2 when nothing is indented). */
export function indentUnitOf(text: string): string {
  if (/\n\t/.test(text)) return '\t';
  let min = Infinity;
  for (const m of text.matchAll(/\n( +)\S/g)) min = Math.min(min, m[1]!.length);
  return min === Infinity || min > 8 ? '  ' : ' '.repeat(min);
}

/** Leading whitespace of the line that holds `offset`. */
export function lineIndentAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** `value` as JSON, indented with the file's unit, continuation lines prefixed with `baseIndent`. */
export function formatValue(value: unknown, unit: string, baseIndent: string, eol: string): string {
  return JSON.stringify(value, null, unit).split('\n').join(eol + baseIndent);
}

/** A readable diff: one `@@ line N @@` hunk per edit, whole lines, `-` before and `+` after. */
export function describeEdits(file: string, text: string, edits: readonly TextEdit[]): string {
  const lines = [`--- ${file}`, `+++ ${file} (after)`];
  for (const e of [...edits].sort((a, b) => a.start - b.start)) {
    const from = text.lastIndexOf('\n', e.start - 1) + 1;
    const nl = text.indexOf('\n', e.end);
    const to = nl < 0 ? text.length : nl;
    const before = text.slice(from, to).replace(/\r$/, '');
    const after = (text.slice(from, e.start) + e.replacement + text.slice(e.end, to)).replace(/\r/g, '');
    const line = text.slice(0, from).split('\n').length;
    lines.push(`@@ line ${line} @@`, ...before.split(/\r?\n/).map((l) => `-${l}`), ...after.split('\n').map((l) => `+${l}`));
  }
  return `${lines.join('\n')}\n`;
}
