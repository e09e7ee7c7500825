/**
 * A fast reader for the plain subset of YAML that policy books are written in, so that `policy check` and the
 * proxy's start need not load and run the full `yaml` library (its cold parse of the 29 KB default book costs
 * more than the rest of the check). It returns exactly what `yaml`'s `parseDocument(text).toJS()` returns, and
 * the start of every node (for line:column of diagnostics), or `undefined` as soon as the text leaves the subset,
 * and the caller then parses with `yaml` as before. Anything it is unsure of is outside the subset.
 *
 * The subset: block maps of plain identifier keys; block sequences (`- x`, `- key: …` compact maps, `-` alone);
 * single-line values: flow sequences and maps (`[…]`, `{ k: v }`), single-quoted scalars, double-quoted scalars
 * without escapes, plain scalars (strings; `null`, `true`, `false`, `~`; unsigned decimal integers and decimals);
 * block scalars `|`, `|-`, `>`, `>-` whose lines share one indentation with no blank line between them;
 * comments on their own line or after a value. Outside it (so parsed by `yaml`): tabs, CR, BOM, control
 * characters, directives, document markers, anchors, aliases, tags, explicit keys, quoted or numeric keys,
 * duplicate keys, empty values, multi-line plain or quoted scalars and flow collections, escapes, signed or
 * exponent numbers, and any indentation it does not expect.
 */

/** A node of the document: where it starts (an offset into the text), and for scalars where it ends and how it was written. */
export type SubsetNode =
  | { kind: 'map'; start: number; entries: Map<string, SubsetNode> }
  | { kind: 'seq'; start: number; items: SubsetNode[] }
  | { kind: 'scalar'; start: number; end: number; style: 'plain' | 'single' | 'double' | 'block' };

export interface SubsetDocument {
  /** What `parseDocument(text).toJS()` gives. */
  value: unknown;
  /** The root node (`doc.contents`). */
  root: SubsetNode;
}

/** Thrown inside the reader when the text leaves the subset; never escapes `parseYamlSubset`. */
class OutsideSubset extends Error {}

const out = (): never => {
  throw new OutsideSubset();
};

/** Plain keys: identifiers (never resolved to anything but a string; the words below excluded). */
const KEY = /^([A-Za-z_][A-Za-z0-9_.-]{0,999}):(?= |$)/;
const FLOW_KEY = /^([A-Za-z_][A-Za-z0-9_.-]{0,999}): /;
const NON_STRING_KEYS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', '__proto__']);
/** Characters a plain scalar may not start with here (YAML's indicators). */
const PLAIN_FIRST_REFUSED = new Set([...'-?:,[]{}#&*!|>\'"%@`']);

/** The tests of YAML 1.2's core schema (yaml's `schema/core`) for numbers: a plain scalar matching one is not a string. */
const CORE_NUMBER = [
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
];

/** The value of a plain scalar in YAML 1.2's core schema, for the forms the subset accepts. */
function resolvePlain(s: string): unknown {
  switch (s) {
    case '~':
    case 'null':
    case 'Null':
    case 'NULL':
      return null;
    case 'true':
    case 'True':
    case 'TRUE':
      return true;
    case 'false':
    case 'False':
    case 'FALSE':
      return false;
  }
  // Unsigned decimal integers (exact as doubles) and decimals; other numbers are left to the full parser.
  if (/^(?:0|[1-9][0-9]{0,14})$/.test(s)) return Number(s);
  if (/^(?:0|[1-9][0-9]{0,14})\.[0-9]{1,15}$/.test(s)) return parseFloat(s);
  if (CORE_NUMBER.some((re) => re.test(s))) out();
  return s;
}

interface Line {
  start: number;
  /** Offset of the end of the line (its `\n` or the end of the text). */
  end: number;
  indent: number;
  /** Blank or a comment only. */
  empty: boolean;
}

class Reader {
  readonly lines: Line[] = [];

  constructor(readonly text: string) {
    let start = 0;
    while (start <= text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      let i = start;
      while (i < end && text.charCodeAt(i) === 32) i++;
      this.lines.push({ start, end, indent: i - start, empty: i === end || text.charCodeAt(i) === 35 });
      start = end + 1;
    }
  }

  /** The first line from `i` that is not blank or a comment, or `lines.length`. */
  next(i: number): number {
    while (i < this.lines.length && this.lines[i]!.empty) i++;
    return i;
  }

  /** The first line from `i` that is not blank (comments count), or `lines.length`. */
  nextNonBlank(i: number): number {
    while (i < this.lines.length) {
      const l = this.lines[i]!;
      if (l.indent + l.start !== l.end) break;
      i++;
    }
    return i;
  }

  /** A block map or sequence starting at line `i` (not empty) with its indentation. Returns the value and the next line. */
  block(i: number): [SubsetNode, unknown, number] {
    const l = this.lines[i]!;
    const at = l.start + l.indent;
    return this.isSeqItem(at, l.end) ? this.seq(i) : this.map(i, at);
  }

  isSeqItem(at: number, end: number): boolean {
    return this.text.charCodeAt(at) === 45 && (at + 1 === end || this.text.charCodeAt(at + 1) === 32);
  }

  /** A block map whose first key is at offset `at` on line `i` (the line may start with `- `). */
  map(i: number, at: number): [SubsetNode, unknown, number] {
    const column = at - this.lines[i]!.start;
    const entries = new Map<string, SubsetNode>();
    const value: Record<string, unknown> = {};
    let first = true;
    for (;;) {
      const l = this.lines[i]!;
      const keyAt = first ? at : l.start + l.indent;
      first = false;
      const m = KEY.exec(this.text.slice(keyAt, l.end));
      if (!m) out();
      const key = m![1]!;
      if (NON_STRING_KEYS.has(key) || entries.has(key)) out();
      const [node, v, next] = this.value(i, keyAt + key.length + 1, column, true);
      entries.set(key, node);
      value[key] = v;
      i = this.next(next);
      if (i >= this.lines.length) break;
      const n = this.lines[i]!;
      if (n.indent < column) break;
      if (n.indent > column) out();
    }
    return [{ kind: 'map', start: at, entries }, value, i];
  }

  /** A block sequence whose first `-` starts line `i`. */
  seq(i: number): [SubsetNode, unknown, number] {
    const column = this.lines[i]!.indent;
    const start = this.lines[i]!.start + column;
    const items: SubsetNode[] = [];
    const value: unknown[] = [];
    for (;;) {
      const l = this.lines[i]!;
      const dash = l.start + l.indent;
      if (!this.isSeqItem(dash, l.end)) out();
      let p = dash + 1;
      while (p < l.end && this.text.charCodeAt(p) === 32) p++;
      let node: SubsetNode;
      let v: unknown;
      let next: number;
      if (p < l.end && this.text.charCodeAt(p) !== 35 && KEY.test(this.text.slice(p, l.end))) {
        [node, v, next] = this.map(i, p);
      } else {
        if (p < l.end && this.text.charCodeAt(p) === 45) out(); // `- - x`, `- -1`
        [node, v, next] = this.value(i, dash + 1, column, false);
      }
      items.push(node);
      value.push(v);
      i = this.next(next);
      if (i >= this.lines.length) break;
      const n = this.lines[i]!;
      if (n.indent < column) break;
      if (n.indent > column) out();
    }
    return [{ kind: 'seq', start, items }, value, i];
  }

  /**
   * The value after a key's `:` or an item's `-`, from offset `p` on line `i`, in a collection at `column`.
   * `inMap`: a map's value may be a sequence at the map's own column.
   */
  value(i: number, p: number, column: number, inMap: boolean): [SubsetNode, unknown, number] {
    const l = this.lines[i]!;
    const t = this.text;
    while (p < l.end && t.charCodeAt(p) === 32) p++;
    if (p === l.end || t.charCodeAt(p) === 35) {
      // Nothing (or a comment) on this line: the value is the block below.
      const j = this.next(i + 1);
      if (j >= this.lines.length) out();
      const n = this.lines[j]!;
      if (n.indent > column || (inMap && n.indent === column && this.isSeqItem(n.start + n.indent, n.end))) return this.block(j);
      return out();
    }
    const c = t.charCodeAt(p);
    if (c === 124 || c === 62) return this.blockScalar(i, p, column);
    let node: SubsetNode;
    let v: unknown;
    let q: number;
    if (c === 91 || c === 123) [node, v, q] = this.flow(p, l.end);
    else if (c === 39 || c === 34) [node, v, q] = this.quoted(p, l.end);
    else {
      // Plain: to a ` #` comment or the end of the line; `: ` or a trailing `:` would make it a key.
      let e = p;
      while (e < l.end && !(t.charCodeAt(e) === 35 && t.charCodeAt(e - 1) === 32)) e++;
      while (t.charCodeAt(e - 1) === 32) e--;
      const s = t.slice(p, e);
      if (PLAIN_FIRST_REFUSED.has(s[0]!) || s.includes(': ') || s.endsWith(':')) out();
      node = { kind: 'scalar', start: p, end: e, style: 'plain' };
      v = resolvePlain(s);
      q = e;
    }
    this.endOfLine(q, l.end);
    // A more indented line below would continue this scalar (or be an error): not in the subset.
    const j = this.nextNonBlank(i + 1);
    if (j < this.lines.length && this.lines[j]!.indent > column) out();
    return [node, v, i + 1];
  }

  /** Only spaces and a comment may follow a value on its line. */
  endOfLine(q: number, end: number): void {
    if (q === end) return;
    if (this.text.charCodeAt(q) !== 32) out();
    while (q < end && this.text.charCodeAt(q) === 32) q++;
    if (q < end && this.text.charCodeAt(q) !== 35) out();
  }

  /** `'…'` or `"…"` (no escapes) closed on the same line; returns the offset after the closing quote. */
  quoted(p: number, end: number): [SubsetNode, unknown, number] {
    const t = this.text;
    const quote = t[p]!;
    let s = '';
    let q = p + 1;
    for (;;) {
      const k = t.indexOf(quote, q);
      if (k < 0 || k >= end) out();
      s += t.slice(q, k);
      if (quote === '"' && s.includes('\\')) out();
      if (quote === "'" && t[k + 1] === "'") {
        s += "'";
        q = k + 2;
        continue;
      }
      q = k + 1;
      break;
    }
    return [{ kind: 'scalar', start: p, end: q, style: quote === "'" ? 'single' : 'double' }, s, q];
  }

  /** A flow collection or scalar inside one, from `p`, closed before `end`. Returns the offset after it. */
  flowNode(p: number, end: number): [SubsetNode, unknown, number] {
    const t = this.text;
    const c = t.charCodeAt(p);
    if (c === 91 || c === 123) return this.flow(p, end);
    if (c === 39 || c === 34) return this.quoted(p, end);
    let e = p;
    while (e < end && !',[]{}'.includes(t[e]!)) e++;
    let s = t.slice(p, e);
    // eslint-disable-next-line regexp/no-super-linear-move -- one scalar of the operator's policy book
    const trimmed = s.replace(/ +$/, '');
    s = trimmed;
    if (s === '' || PLAIN_FIRST_REFUSED.has(s[0]!) || s.includes(':') || s.includes('#')) out();
    return [{ kind: 'scalar', start: p, end: p + s.length, style: 'plain' }, resolvePlain(s), p + s.length];
  }

  /** `[a, b]` or `{ k: v }` on one line, from the opening bracket at `p`. */
  flow(p: number, end: number): [SubsetNode, unknown, number] {
    const t = this.text;
    const isMap = t[p] === '{';
    const close = isMap ? '}' : ']';
    const skip = (q: number) => {
      while (q < end && t.charCodeAt(q) === 32) q++;
      return q;
    };
    const items: SubsetNode[] = [];
    const values: unknown[] = [];
    const entries = new Map<string, SubsetNode>();
    const obj: Record<string, unknown> = {};
    let q = skip(p + 1);
    if (t[q] === close) q++;
    else
      for (;;) {
        if (q >= end) out();
        if (isMap) {
          const m = FLOW_KEY.exec(t.slice(q, end));
          if (!m) out();
          const key = m![1]!;
          if (NON_STRING_KEYS.has(key) || entries.has(key)) out();
          const [node, v, r] = this.flowNode(skip(q + m![0].length), end);
          entries.set(key, node);
          obj[key] = v;
          q = r;
        } else {
          const [node, v, r] = this.flowNode(q, end);
          items.push(node);
          values.push(v);
          q = r;
        }
        q = skip(q);
        if (t[q] === close) {
          q++;
          break;
        }
        if (t[q] !== ',') out();
        q = skip(q + 1);
        if (t[q] === close || t[q] === ',') out(); // a trailing or empty entry: left to the full parser
      }
    const node: SubsetNode = isMap ? { kind: 'map', start: p, entries } : { kind: 'seq', start: p, items };
    return [node, isMap ? obj : values, q];
  }

  /** `|`, `|-`, `>`, `>-` at `p` on line `i`: lines of one indentation, more than `column`, no blank line between. */
  blockScalar(i: number, p: number, column: number): [SubsetNode, unknown, number] {
    const t = this.text;
    const l = this.lines[i]!;
    const header = t.slice(p, l.end);
    if (header !== '|' && header !== '|-' && header !== '>' && header !== '>-') out();
    const parts: string[] = [];
    let j = i + 1;
    const indent = j < this.lines.length ? this.lines[j]!.indent : 0;
    if (indent <= column) out();
    let last = l.end;
    while (j < this.lines.length) {
      const n = this.lines[j]!;
      if (n.start + n.indent === n.end) {
        // A blank line: the end of the scalar only if what follows is less indented (or nothing). Spaces
        // beyond the scalar's indentation on a blank line are content (a more indented line).
        let k = j;
        for (; k < this.lines.length && this.lines[k]!.start + this.lines[k]!.indent === this.lines[k]!.end; k++) {
          if (this.lines[k]!.indent > indent) out();
        }
        if (k < this.lines.length && this.lines[k]!.indent >= indent) out();
        break;
      }
      if (n.indent < indent) break;
      if (n.indent > indent) out();
      const s = t.slice(n.start + indent, n.end);
      if (s.endsWith(' ')) out();
      parts.push(s);
      last = n.end;
      j++;
    }
    if (parts.length === 0) out();
    // Clipping keeps the last line break only if there is one.
    if (!header.endsWith('-') && last === t.length) out();
    const body = parts.join(header[0] === '|' ? '\n' : ' ');
    return [{ kind: 'scalar', start: p, end: last, style: 'block' }, header.endsWith('-') ? body : `${body}\n`, j];
  }
}

/**
 * Reads `text` if it lies in the subset: the document's value (as `yaml`'s `toJS()`) and its nodes; `undefined`
 * when it does not (then parse it with `yaml`, which also reports any error).
 */
export function parseYamlSubset(text: string): SubsetDocument | undefined {
  // Tabs, CR, BOM, other control characters, Unicode line separators, non-characters, surrogates: outside the subset.
  if (/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udfff]/.test(text)) return undefined;
  try {
    const r = new Reader(text);
    const first = r.next(0);
    if (first >= r.lines.length) return undefined;
    const l = r.lines[first]!;
    const head = text.slice(l.start, l.start + 3);
    if (l.indent !== 0 || r.isSeqItem(l.start, l.end) || head === '---' || head === '...' || head[0] === '%') return undefined;
    // Document markers and directives anywhere are outside the subset too.
    if (/^(?:---|\.\.\.|%)/m.test(text)) return undefined;
    const [root, value, next] = r.map(first, l.start);
    if (r.next(next) < r.lines.length) return undefined;
    return { root, value };
  } catch (e) {
    if (e instanceof OutsideSubset) return undefined;
    throw e;
  }
}

/** The node at `path` (map keys, sequence indexes), as `yaml`'s `doc.getIn(path, true)` finds it. */
export function subsetNodeAt(root: SubsetNode, path: ReadonlyArray<string | number>): SubsetNode | undefined {
  let node: SubsetNode | undefined = root;
  for (const key of path) {
    if (node === undefined) return undefined;
    if (node.kind === 'map') node = typeof key === 'string' ? node.entries.get(key) : undefined;
    else if (node.kind === 'seq') {
      // As yaml's YAMLSeq.get: a non-empty string index is read as a number.
      const idx = typeof key === 'string' && key !== '' ? Number(key) : key;
      node = typeof idx === 'number' && Number.isInteger(idx) && idx >= 0 ? node.items[idx] : undefined;
    } else return undefined;
  }
  return node;
}
