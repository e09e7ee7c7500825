import * as crypto from 'node:crypto';

/** Nesting deeper than this is cut (hostile payloads must not recurse forever). */
const MAX_DEPTH = 64;

/**
 * Canonical JSON: object keys sorted at every level, no whitespace, `undefined` members dropped, non-finite
 * numbers as `null`, bigints as strings. Two values that are equal as JSON data give the same text, whatever
 * the key order they were built with, so the text can be hashed.
 *
 * `sortArray(key)` may say that the array under a given key is a set (e.g. JSON Schema `required`), in which
 * case its (canonicalised) members are sorted too.
 *
 * @example canonicalJson({ b: 1, a: [2, { d: 0, c: 1 }] }) === '{"a":[2,{"c":1,"d":0}],"b":1}'
 */
export function canonicalJson(value: unknown, sortArray?: (key: string) => boolean): string {
  return encode(value, 0, undefined, sortArray) ?? 'null';
}

function encode(value: unknown, depth: number, key: string | undefined, sortArray?: (key: string) => boolean): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return JSON.stringify(value.toString());
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (depth >= MAX_DEPTH) return '"[depth]"';
  const v = value as { toJSON?: () => unknown };
  if (typeof v.toJSON === 'function') return encode(v.toJSON(), depth + 1, key, sortArray);
  if (Array.isArray(value)) {
    const items = value.map((x) => encode(x, depth + 1, undefined, sortArray) ?? 'null');
    if (key !== undefined && sortArray?.(key)) items.sort();
    return `[${items.join(',')}]`;
  }
  const parts: string[] = [];
  for (const k of Object.keys(value as object).sort()) {
    const enc = encode((value as Record<string, unknown>)[k], depth + 1, k, sortArray);
    if (enc !== undefined) parts.push(`${JSON.stringify(k)}:${enc}`);
  }
  return `{${parts.join(',')}}`;
}

/** Node's one-shot `crypto.hash` (Node ≥ 20.12; about twice as fast on short texts), when this Node has it. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex' | 'base64url') => string }).hash;

/** Lower-case hex SHA-256 of a UTF-8 string (lone surrogates as U+FFFD, as `Buffer.from(text)` encodes them). */
export const sha256Hex: (text: string) => string = oneShot
  ? (text) => oneShot('sha256', text, 'hex')
  : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** `sha256Hex`'s digest in base64url (no padding). */
export const sha256Base64url: (text: string) => string = oneShot
  ? (text) => oneShot('sha256', text, 'base64url')
  : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('base64url');
