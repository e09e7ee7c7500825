/**
 * `jsonPieces` against `JSON.stringify`: for any JSON-RPC-like value, the pieces joined are exactly its text, each long
 * string goes out in slices of at most the slice length (one shorter where a cut would part a surrogate pair, or a
 * pair whole when the length is 1), and a value without a long string is left to the caller (undefined).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonPieces } from '../../src/proxy/json-pieces.js';

/** Characters that stress a cut: escapes, a surrogate pair, lone halves of one, the marker's own control character. */
const tricky = fc.constantFrom('a', 'é', '"', '\\', '\n', '\u0001', '\u2028', '😀', '\ud83d', '\ude00', '\u0000', '/', '\\u0001"');
const text = fc.array(tricky, { maxLength: 40 }).map((xs) => xs.join(''));

const value = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
})).value;

const joined = (pieces: Iterable<string>): string => [...pieces].join('');

describe('jsonPieces', () => {
  it('joins to exactly JSON.stringify for any value, with every long string cut into slices', () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 9 }), (v, slice) => {
        const pieces = jsonPieces(v, slice);
        if (!containsLong(v, slice)) expect(pieces).toBeUndefined();
        else expect(joined(pieces!)).toBe(JSON.stringify(v));
      }),
      { numRuns: 3000 },
    );
  });

  it('cuts a long string into slices of at most the slice length, never inside a surrogate pair', () => {
    const s = `${'ab😀'.repeat(50)}\ud83d${'"\\\n'.repeat(10)}😀`;
    for (let slice = 1; slice <= 12; slice++) {
      const pieces = [...jsonPieces({ r: [{ t: s }] }, slice)!];
      expect(pieces.join('')).toBe(JSON.stringify({ r: [{ t: s }] }));
      // The slices are the pieces between the opening and closing quote pieces.
      const slices = pieces.slice(1, -2);
      expect(slices.length).toBeGreaterThan(1);
      const decoded = slices.map((p) => JSON.parse(`"${p}"`) as string);
      expect(decoded.join('')).toBe(s);
      for (const [i, d] of decoded.entries()) {
        expect(d.length).toBeLessThanOrEqual(Math.max(slice, 2));
        // A pair is never parted: no slice ends in a high half whose low half begins the next.
        const next = decoded[i + 1];
        if (next !== undefined) expect(/[\ud800-\udbff]$/.test(d) && /^[\udc00-\udfff]/.test(next)).toBe(false);
      }
    }
  });

  it('leaves values with no long string to the caller, and serves equal long strings and deep ones', () => {
    expect(jsonPieces({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'short' }] } }, 10)).toBeUndefined();
    const long = 'x'.repeat(30);
    const twice = { a: long, b: [long, { c: long }], [long]: 1 };
    expect(joined(jsonPieces(twice, 10)!)).toBe(JSON.stringify(twice));
    // Deeper than the search goes: serialised whole, still exact.
    let deep: unknown = long;
    for (let i = 0; i < 80; i++) deep = [deep];
    const mixed = { shallow: long, deep };
    expect(joined(jsonPieces(mixed, 10)!)).toBe(JSON.stringify(mixed));
    expect(jsonPieces(deep, 10)).toBeUndefined();
    // A text that looks like a marker is only a text.
    const lookalike = { a: long, b: `"\\u0001${'0'.repeat(36)}#0\\u0001"`, c: '\u00010#0\u0001' };
    expect(joined(jsonPieces(lookalike, 10)!)).toBe(JSON.stringify(lookalike));
    // The value itself a long string.
    expect(joined(jsonPieces(long, 10)!)).toBe(JSON.stringify(long));
  });
});

function containsLong(v: unknown, slice: number, depth = 0): boolean {
  if (typeof v === 'string') return v.length > slice;
  if (typeof v !== 'object' || v === null || depth >= 64) return false;
  return Object.values(v).some((x) => containsLong(x, slice, depth + 1));
}
