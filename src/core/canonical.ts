import * as crypto from 'node:crypto';

/** Nesting deeper than this is cut (hostile payloads must not recurse forever). */
export const CANONICAL_MAX_DEPTH = 64;

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
  const out: string[] = [];
  if (!write(out, value, 0, undefined, sortArray)) return 'null';
  return out.length === 1 ? out[0]! : out.join('');
}

/**
 * Appends the text of `value` to `out`, piece by piece, joined once by the caller: a long string is copied once into
 * the text, not once per level of nesting above it (a 200 KB result was copied three times, each into fresh memory).
 * False, and nothing appended, where the value has no text (an undefined member is dropped, an element is `null`).
 */
function write(out: string[], value: unknown, depth: number, key: string | undefined, sortArray?: (key: string) => boolean): boolean {
  if (value === null) {
    out.push('null');
    return true;
  }
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return true;
    case 'number':
      out.push(Number.isFinite(value) ? JSON.stringify(value) : 'null');
      return true;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return true;
    case 'bigint':
      out.push(JSON.stringify(value.toString()));
      return true;
    case 'undefined':
    case 'function':
    case 'symbol':
      return false;
  }
  if (depth >= CANONICAL_MAX_DEPTH) {
    out.push('"[depth]"');
    return true;
  }
  const v = value as { toJSON?: () => unknown };
  if (typeof v.toJSON === 'function') return write(out, v.toJSON(), depth + 1, key, sortArray);
  if (Array.isArray(value)) {
    if (key !== undefined && sortArray?.(key)) {
      // A set: its members' texts sorted (a hole stays one: sorted last, joined as nothing).
      const items = value.map((x) => {
        const item: string[] = [];
        return write(item, x, depth + 1, undefined, sortArray) ? item.join('') : 'null';
      });
      out.push(`[${items.sort().join(',')}]`);
      return true;
    }
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      // A hole is joined as nothing, as `Array.prototype.map` then `join` leave it.
      if (i in value && !write(out, value[i], depth + 1, undefined, sortArray)) out.push('null');
    }
    out.push(']');
    return true;
  }
  out.push('{');
  let first = true;
  for (const k of Object.keys(value as object).sort()) {
    const at = out.length;
    out.push(first ? `${JSON.stringify(k)}:` : `,${JSON.stringify(k)}:`);
    if (write(out, (value as Record<string, unknown>)[k], depth + 1, k, sortArray)) first = false;
    else out.length = at;
  }
  out.push('}');
  return true;
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
