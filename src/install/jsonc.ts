import { InstallError } from './errors.js';

/**
 * A small JSON / JSONC parser that keeps source spans, so registration can edit one entry's value in place and
 * leave every other byte (comments, key order, formatting, unknown keys) exactly as it was. JSONC adds `//` and
 * `/* *\/` comments and trailing commas (VS Code and Cursor accept both); plain JSON mode rejects them.
 */

/** A parsed value with its `[start, end)` offsets in the text. */
export type JsonNode =
  | { kind: 'object'; start: number; end: number; members: JsonMember[]; value: Record<string, unknown> }
  | { kind: 'array'; start: number; end: number; items: JsonNode[]; value: unknown[] }
  | { kind: 'scalar'; start: number; end: number; value: string | number | boolean | null };

/** One `"key": value` pair of an object. */
export interface JsonMember {
  key: string;
  keyStart: number;
  node: JsonNode;
}

/** The parse result: the tree, the plain value and where the first comment is (if any). */
export interface ParsedJson {
  root: JsonNode;
  value: unknown;
  firstComment: { line: number; column: number } | undefined;
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Parses `text`. Throws `InstallError('install_parse_error')` located at file:line:column with what was expected.
 *
 * @example
 * const { value, root } = parseJson('{ "a": 1, // note\n }', { file: 'mcp.json', jsonc: true });
 */
export function parseJson(text: string, opts: { file: string; jsonc: boolean }): ParsedJson {
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let firstComment: ParsedJson['firstComment'];

  const fail = (at: number, what: string): never => {
    const { line, column } = lineColumn(text, at);
    const found = at >= text.length ? 'end of file' : JSON.stringify(text.slice(at, at + 12));
    throw new InstallError('install_parse_error', `${what}, found ${found}`, { location: { file: opts.file, line, column } });
  };

  const skip = (): void => {
    for (;;) {
      const c = text[pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') pos++;
      else if (c === '/' && (text[pos + 1] === '/' || text[pos + 1] === '*')) {
        if (!opts.jsonc) fail(pos, 'comments are not allowed in this file (the client reads plain JSON); remove the comment');
        firstComment ??= lineColumn(text, pos);
        if (text[pos + 1] === '/') {
          while (pos < text.length && text[pos] !== '\n') pos++;
        } else {
          const close = text.indexOf('*/', pos + 2);
          if (close < 0) fail(pos, 'unterminated /* comment');
          pos = close + 2;
        }
      } else return;
    }
  };

  const string = (): { value: string; start: number } => {
    const start = pos;
    pos++;
    for (;;) {
      if (pos >= text.length) fail(start, 'unterminated string');
      const c = text.charCodeAt(pos);
      if (c === 0x22) break;
      if (c < 0x20) fail(pos, 'control character (e.g. a raw line break) inside a string; escape it');
      pos += c === 0x5c ? 2 : 1;
    }
    pos++;
    try {
      return { value: JSON.parse(text.slice(start, pos)) as string, start };
    } catch {
      return fail(start, 'invalid escape sequence in string');
    }
  };

  const value = (): JsonNode => {
    skip();
    const start = pos;
    const c = text[pos];
    if (c === '{') {
      pos++;
      const members: JsonMember[] = [];
      const obj: Record<string, unknown> = {};
      for (;;) {
        skip();
        if (text[pos] === '}') {
          if (members.length > 0 && !opts.jsonc) fail(pos, 'trailing comma before "}" is not allowed in plain JSON');
          break;
        }
        if (text[pos] !== '"') fail(pos, members.length === 0 ? 'expected a "key" or "}"' : 'expected a "key" after ","');
        const key = string();
        skip();
        if (text[pos] !== ':') fail(pos, `expected ":" after key ${JSON.stringify(key.value)}`);
        pos++;
        const node = value();
        members.push({ key: key.value, keyStart: key.start, node });
        Object.defineProperty(obj, key.value, { value: node.value, enumerable: true, writable: true, configurable: true });
        skip();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] !== '}') fail(pos, 'expected "," or "}" after an object member');
        break;
      }
      pos++;
      return { kind: 'object', start, end: pos, members, value: obj };
    }
    if (c === '[') {
      pos++;
      const items: JsonNode[] = [];
      for (;;) {
        skip();
        if (text[pos] === ']') {
          if (items.length > 0 && !opts.jsonc) fail(pos, 'trailing comma before "]" is not allowed in plain JSON');
          break;
        }
        items.push(value());
        skip();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] !== ']') fail(pos, 'expected "," or "]" after an array item');
        break;
      }
      pos++;
      return { kind: 'array', start, end: pos, items, value: items.map((i) => i.value) };
    }
    if (c === '"') {
      const s = string();
      return { kind: 'scalar', start, end: pos, value: s.value };
    }
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return { kind: 'scalar', start, end: pos, value: v };
      }
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (m) {
      pos += m[0].length;
      return { kind: 'scalar', start, end: pos, value: Number(m[0]) };
    }
    return fail(pos, 'expected a value (object, array, string, number, true, false or null)');
  };

  const root = value();
  skip();
  if (pos < text.length) fail(pos, 'unexpected text after the end of the document');
  return { root, value: root.value, firstComment };
}

/** The last member named `key` of an object node (JSON.parse semantics for duplicates). */
export function member(node: JsonNode, key: string): JsonMember | undefined {
  if (node.kind !== 'object') return undefined;
  for (let i = node.members.length - 1; i >= 0; i--) if (node.members[i]!.key === key) return node.members[i];
  return undefined;
}
