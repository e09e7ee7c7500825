import { CANONICAL_MAX_DEPTH } from './canonical.js';

/**
 * The first characters of `canonicalJson(value)` (no `sortArray`) without writing the rest: `head` is its first `min`
 * characters and `whole` false when it is longer than `min`; else `head` is all of it and `whole` true. A string is
 * written only as far as needed, so the head of a payload holding a 64 KiB string costs a few KiB of escaping, not the
 * whole text (the audit row's preview masks only its first few hundred characters: audit-interaction.ts).
 * test/core/canonical-head.test.ts compares it with `canonicalJson`.
 */
export function canonicalJsonHead(value: unknown, min: number): { head: string; whole: boolean } {
  const w = new HeadWriter(min);
  if (!write(w, value, 0)) w.put('null');
  const text = w.parts.join('');
  return w.full ? { head: text.slice(0, min), whole: false } : { head: text, whole: true };
}

/** The text written so far; `full` once it holds more than `min` characters (nothing more is written then). */
class HeadWriter {
  readonly parts: string[] = [];
  length = 0;
  full = false;
  /** An object member's key, written only when its value writes something (`canonicalJson` drops undefined members). */
  pending = '';

  constructor(private readonly min: number) {}

  put(s: string): void {
    if (this.full) return;
    if (this.pending !== '') {
      const key = this.pending;
      this.pending = '';
      this.put(key);
      if (this.full) return;
    }
    this.parts.push(s);
    this.length += s.length;
    if (this.length > this.min) this.full = true;
  }

  /** `JSON.stringify(s)`, or only as much of it as takes the text past `min`. */
  putString(s: string): void {
    // Each character writes at least one, and the quote one more: `need` characters of `s` take the text past `min`,
    // and the last of them (perhaps half of a surrogate pair, escaped alone where the whole string has the pair) is
    // written past the `min` characters kept.
    const need = Math.max(1, this.min - this.length - this.pending.length);
    if (this.full || s.length <= need) return this.put(JSON.stringify(s));
    this.put(JSON.stringify(s.slice(0, need)).slice(0, -1));
  }
}

/** Writes `value` as `canonicalJson`'s `encode` does; false (nothing written) where `encode` gives undefined. */
function write(w: HeadWriter, value: unknown, depth: number): boolean {
  if (value === null) {
    w.put('null');
    return true;
  }
  switch (typeof value) {
    case 'string':
      w.putString(value);
      return true;
    case 'number':
      w.put(Number.isFinite(value) ? JSON.stringify(value) : 'null');
      return true;
    case 'boolean':
      w.put(value ? 'true' : 'false');
      return true;
    case 'bigint':
      w.put(JSON.stringify(value.toString()));
      return true;
    case 'undefined':
    case 'function':
    case 'symbol':
      return false;
  }
  if (depth >= CANONICAL_MAX_DEPTH) {
    w.put('"[depth]"');
    return true;
  }
  const v = value as { toJSON?: () => unknown };
  if (typeof v.toJSON === 'function') return write(w, v.toJSON(), depth + 1);
  if (Array.isArray(value)) {
    w.put('[');
    for (let i = 0; i < value.length && !w.full; i++) {
      if (i > 0) w.put(',');
      // `encode` maps the array: a hole stays a hole, joined as nothing.
      if (i in value && !write(w, value[i], depth + 1)) w.put('null');
    }
    w.put(']');
    return true;
  }
  w.put('{');
  let first = true;
  for (const k of Object.keys(value as object).sort()) {
    if (w.full) break;
    w.pending = `${first ? '' : ','}${JSON.stringify(k)}:`;
    if (write(w, (value as Record<string, unknown>)[k], depth + 1)) first = false;
    w.pending = '';
  }
  w.put('}');
  return true;
}
