/**
 * `atPath` answers a one-key path without splitting it (src/core/fields.ts): the same value as the walk over the
 * path's dotted parts, for any value and any path, one key or several.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atPath } from '../../src/core/fields.js';

/** The walk as written before the one-key step. */
function walked(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

describe('atPath', () => {
  it('gives the value the dotted walk gives', () => {
    const key = fc.constantFrom('path', 'file_path', '0', '1', '', 'a', 'length', 'constructor', '__proto__', 'toString');
    const path = fc.array(key, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('.'));
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.dictionary(key, fc.jsonValue()), fc.constantFrom(null, undefined, 'text', 3, ['x', { path: 'y' }])), path, (value, p) => {
        expect(atPath(value, p)).toBe(walked(value, p));
      }),
      { numRuns: 3000 },
    );
  });
});
