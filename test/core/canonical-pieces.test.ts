import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/canonical.js';
import { canonicalJson as formerCanonicalJson } from './reference/canonical.js';
import { canonicalValues } from './canonical-values.js';

/**
 * `canonicalJson` writes its pieces into one list joined once (a long string copied once, not once per level above
 * it). Compared with the former code (test/core/reference/canonical.ts) on JSON data, undefined members and
 * elements, `toJSON`, holes, bigints, non-finite numbers, nesting past the depth limit, and arrays sorted as sets.
 */

const str = fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.constantFrom('', 'required', 'enum', '__proto__', '"', '\\', '\u{1F600}', '\ud83d'));
const value = canonicalValues(str);
const sets = (key: string): boolean => key === 'required' || key === 'enum' || key === '';

describe('canonicalJson written as one list of pieces', () => {
  it('is the former text for any value, with and without sets', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(formerCanonicalJson(v));
        expect(canonicalJson(v, sets)).toBe(formerCanonicalJson(v, sets));
      }),
      { numRuns: 3000 },
    );
  });

  it('nesting past the depth limit, a long string deep inside, a tool definition', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 80; i++) deep = i % 2 === 0 ? [deep] : { k: deep, u: undefined };
    const long = [{ type: 'text', text: 'line "one"\n'.repeat(20_000) }, { _meta: { id: 7n } }];
    const tool = { name: 't', inputSchema: { type: 'object', required: ['b', 'a'], properties: { a: { enum: [2, 1, { y: 1, x: 2 }] } } } };
    for (const v of [deep, long, tool, undefined, () => 1, [undefined], { a: undefined }]) {
      expect(canonicalJson(v)).toBe(formerCanonicalJson(v));
      expect(canonicalJson(v, sets)).toBe(formerCanonicalJson(v, sets));
    }
  });
});
