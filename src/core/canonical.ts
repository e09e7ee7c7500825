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
  const out = new Pieces();
  return write(out, value, 0, undefined, sortArray) ? out.text() : 'null';
}

/**
 * The first characters of `canonicalJson(value)` (no `sortArray`) without writing the rest: `head` is its first `min`
 * characters and `whole` false when it is longer than `min`; else `head` is all of it and `whole` true. A string is
 * written only as far as needed, so the head of a payload holding a 64 KiB string costs a few KiB of escaping, not the
 * whole text (the audit row's preview masks only its first few hundred characters: audit-interaction.ts).
 */
export function canonicalJsonHead(value: unknown, min: number): { head: string; whole: boolean } {
  const out = new Pieces(min);
  if (!write(out, value, 0, undefined)) out.put('null');
  const text = out.text();
  return out.full ? { head: text.slice(0, min), whole: false } : { head: text, whole: true };
}

/**
 * The text written so far, in pieces joined once at the end: a long string is copied once into the text, not once per
 * level of nesting above it (a 200 KB result was copied three times, each into fresh memory). Past `max` characters
 * (`canonicalJsonHead`) it is `full`: the writers stop, and whatever they still append lies past `max` and is cut.
 */
class Pieces {
  readonly parts: string[] = [];
  length = 0;

  constructor(private readonly max = Number.POSITIVE_INFINITY) {}

  get full(): boolean {
    return this.length > this.max;
  }

  put(s: string): void {
    this.parts.push(s);
    this.length += s.length;
  }

  /**
   * `JSON.stringify(s)`, or only as much of it as takes the text past `max`: each character writes at least one, and
   * the quote one more, so `need` characters do; the last of them (perhaps half of a surrogate pair, escaped alone
   * where the whole string has the pair) starts at or past `max`, outside what is kept.
   */
  putString(s: string): void {
    const need = Math.max(1, this.max - this.length);
    this.put(s.length <= need ? JSON.stringify(s) : JSON.stringify(s.slice(0, need)).slice(0, -1));
  }

  /** Drops what was appended since `parts` held `at` pieces of `length` characters. */
  cut(at: number, length: number): void {
    this.parts.length = at;
    this.length = length;
  }

  text(): string {
    return this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
  }
}

/**
 * Appends the text of `value` to `out`, piece by piece. False, and nothing appended, where the value has no text (an
 * undefined member is dropped, an element is `null`).
 */
function write(out: Pieces, value: unknown, depth: number, key: string | undefined, sortArray?: (key: string) => boolean): boolean {
  if (value === null) {
    out.put('null');
    return true;
  }
  switch (typeof value) {
    case 'string':
      out.putString(value);
      return true;
    case 'number':
      out.put(Number.isFinite(value) ? JSON.stringify(value) : 'null');
      return true;
    case 'boolean':
      out.put(value ? 'true' : 'false');
      return true;
    case 'bigint':
      out.put(JSON.stringify(value.toString()));
      return true;
    case 'undefined':
    case 'function':
    case 'symbol':
      return false;
  }
  if (depth >= CANONICAL_MAX_DEPTH) {
    out.put('"[depth]"');
    return true;
  }
  const v = value as { toJSON?: () => unknown };
  if (typeof v.toJSON === 'function') return write(out, v.toJSON(), depth + 1, key, sortArray);
  if (Array.isArray(value)) {
    if (key !== undefined && sortArray?.(key)) {
      // A set: its members' texts sorted (a hole stays one: sorted last, joined as nothing).
      const items = value.map((x) => {
        const item = new Pieces();
        return write(item, x, depth + 1, undefined, sortArray) ? item.text() : 'null';
      });
      out.put(`[${items.sort().join(',')}]`);
      return true;
    }
    out.put('[');
    for (let i = 0; i < value.length && !out.full; i++) {
      if (i > 0) out.put(',');
      // A hole is joined as nothing, as `Array.prototype.map` then `join` leave it.
      if (i in value && !write(out, value[i], depth + 1, undefined, sortArray)) out.put('null');
    }
    out.put(']');
    return true;
  }
  out.put('{');
  let first = true;
  for (const k of Object.keys(value as object).sort()) {
    if (out.full) break;
    const at = out.parts.length;
    const length = out.length;
    out.put(first ? `${JSON.stringify(k)}:` : `,${JSON.stringify(k)}:`);
    if (write(out, (value as Record<string, unknown>)[k], depth + 1, k, sortArray)) first = false;
    else out.cut(at, length);
  }
  out.put('}');
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
