/**
 * Text from the store, as a terminal or a page shows it. Names and rationales in the audit come from clients and
 * servers (an unknown tool name, a recipient, a URI, a log's logger), so they may hold a newline that forges a
 * whole row in `audit tail`, an ANSI escape that rewrites the operator's terminal, or a bidi control that reorders
 * what is shown. Every such character is shown as an escape instead: C0 controls and DEL, C1 controls, bidi
 * controls and marks, zero-width characters, line and paragraph separators and the BOM.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `s` with every unprintable character escaped (`\n`, `\x1b`, `\u202e`): one line, shown as it is stored. */
export function printable(s: string): string {
  return s.replace(UNPRINTABLE, (c) => SHORT[c] ?? escapeCode(c, c.charCodeAt(0) < 0x100 ? 'x' : 'u'));
}

/**
 * JSON text (from `JSON.stringify`, which escapes C0 controls but not the others) with the rest escaped as JSON
 * `\uXXXX` escapes: the same value when parsed, and nothing a terminal acts on when printed.
 */
export function printableJson(json: string): string {
  return json.replace(UNPRINTABLE, (c) => (c === '\n' ? c : escapeCode(c, 'u')));
}

function escapeCode(c: string, form: 'x' | 'u'): string {
  const hex = c.charCodeAt(0).toString(16).padStart(form === 'x' ? 2 : 4, '0');
  return `\\${form}${hex}`;
}
