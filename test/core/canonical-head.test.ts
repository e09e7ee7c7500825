import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonHead } from '../../src/core/canonical.js';
import { canonicalValues } from './canonical-values.js';

/**
 * `canonicalJsonHead(value, min)` writes only the first characters of `canonicalJson(value)`: compared with the whole
 * text on JSON data, strings with surrogate pairs and lone halves cut anywhere, undefined members and elements,
 * `toJSON`, holes, bigints, non-finite numbers and nesting past the depth limit.
 */

/** What the head must be: the whole text's first `min` characters, or all of it. */
function expectHead(value: unknown, min: number): void {
  const text = canonicalJson(value);
  const got = canonicalJsonHead(value, min);
  expect(got).toEqual(text.length > min ? { head: text.slice(0, min), whole: false } : { head: text, whole: true });
}

const PAIR = '\u{1F600}';
/** Strings whose escapes are longer than their characters and whose surrogates may be cut anywhere. */
const str = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.array(fc.constantFrom('a', ' ', '"', '\\', '\n', '\u0001', PAIR, '\ud83d', '\ude00', 'é', '</'), { maxLength: 60 }).map((p) => p.join('')),
  fc.integer({ min: 1, max: 3000 }).map((n) => `${'ab\n"'.repeat(n)}${PAIR}`),
);
const value = canonicalValues(str);

describe('canonicalJsonHead', () => {
  it('is the first characters of canonicalJson, or all of it, for any value and length', () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 400 }), (v, min) => expectHead(v, min)),
      { numRuns: 2000 },
    );
  });

  it('cuts a long string at every length around a surrogate pair and an escape', () => {
    const s = `${'x'.repeat(30)}${PAIR}\n"${PAIR}\ud83d${'y'.repeat(10)}`;
    const v = { b: [s, 1], a: { text: s, n: undefined } };
    for (let min = 0; min <= canonicalJson(v).length + 2; min++) expectHead(v, min);
  });

  it('nesting past the depth limit, as canonicalJson writes it', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 80; i++) deep = i % 2 === 0 ? [deep] : { k: deep };
    for (const min of [0, 10, 100, 200, 1000]) expectHead(deep, min);
  });

  it('a result with a 64 KiB string: the head of the preview, without the whole text', () => {
    const text = 'Meeting notes: the vendor confirmed the delivery window.\n'.repeat(1200);
    const v = { content: [{ type: 'text', text }], _meta: { id: 7 } };
    for (const min of [0, 1, 30, 8192, text.length]) expectHead(v, min);
    expect(canonicalJsonHead(v, 8192).head).toHaveLength(8192);
  });
});
