import { describe, expect, it } from 'vitest';
import { InstallError } from '../../src/install/errors.js';
import { parseJson } from '../../src/install/jsonc.js';

function parseError(text: string, jsonc: boolean): InstallError {
  try {
    parseJson(text, { file: 'f.json', jsonc });
  } catch (err) {
    if (err instanceof InstallError) return err;
    throw err;
  }
  throw new Error('expected a parse error');
}

describe('parseJson', () => {
  it('parses what JSON.parse parses, with spans of each value', () => {
    const text = '{ "a": [1, -2.5e3, true, null], "b": { "c": "x\\"y\\u00e9" } }';
    const p = parseJson(text, { file: 'f', jsonc: false });
    expect(p.value).toEqual(JSON.parse(text));
    expect(p.root.kind).toBe('object');
    if (p.root.kind !== 'object') return;
    const b = p.root.members[1]!;
    expect(text.slice(b.node.start, b.node.end)).toBe('{ "c": "x\\"y\\u00e9" }');
    expect(p.firstComment).toBeUndefined();
  });

  it('JSONC: comments and trailing commas, but not inside strings', () => {
    const text = '{\n  "url": "http://x//y", /* block */\n  // line\n  "s": "/* no */",\n  "arr": [1, 2,],\n}\n';
    const p = parseJson(text, { file: 'f', jsonc: true });
    expect(p.value).toEqual({ url: 'http://x//y', s: '/* no */', arr: [1, 2] });
    expect(p.firstComment).toEqual({ line: 2, column: 25 });
  });

  it('plain JSON mode rejects comments and trailing commas at line:column', () => {
    const c = parseError('{\n  "a": 1 // hi\n}', false);
    expect(c.code).toBe('install_parse_error');
    expect(c.location).toMatchObject({ file: 'f.json', line: 2, column: 10 });
    expect(c.message).toMatch(/comments are not allowed/);
    expect(parseError('{"a": [1,]}', false).message).toMatch(/trailing comma before "]"/);
  });

  it('names what is wrong and where', () => {
    expect(parseError('{\n  "a": 1\n  "b": 2\n}', true).format()).toBe('f.json:3:3: install_parse_error: expected "," or "}" after an object member, found "\\"b\\": 2\\n}"');
    expect(parseError('{"a": tru}', true).location).toMatchObject({ line: 1, column: 7 });
    expect(parseError('{"a": "x\ny"}', true).message).toMatch(/control character/);
    expect(parseError('{"a": 1} x', true).message).toMatch(/unexpected text after the end/);
    expect(parseError('{"a": 1 /* open', true).message).toMatch(/unterminated \/\* comment/);
    expect(parseError('', true).message).toMatch(/expected a value.*end of file/);
  });

  it('does not let "__proto__" keys reach the prototype', () => {
    const p = parseJson('{"__proto__": {"polluted": true}}', { file: 'f', jsonc: false });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(p.value as object)).toEqual(['__proto__']);
  });
});
