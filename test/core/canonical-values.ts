import fc from 'fast-check';

/**
 * Values for the canonical JSON tests (canonical-head, canonical-pieces): JSON data with strings from `str`, and what
 * JSON.stringify treats apart: undefined members and elements, holes, `toJSON`, bigints, functions, symbols, dates,
 * non-finite numbers, `__proto__` and the keys written as sets (`required`, `enum`, '').
 */
export function canonicalValues(str: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    str,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.bigInt(),
    fc.constant(() => 1),
    fc.constant(Symbol('s')),
    fc.constant(new Date(0)),
    str.map((s) => ({ toJSON: () => s })),
    fc.constant({ toJSON: () => undefined }),
    fc.constant({ toJSON: () => [3, undefined, { b: 1, a: 2 }] }),
  );
  return fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
    // eslint-disable-next-line no-sparse-arrays
    array: fc.oneof(fc.array(tie('node'), { maxLength: 5 }), fc.constant([1, , 3]), fc.constant(['b', , undefined, 'a'])),
    object: fc.dictionary(fc.oneof(str, fc.constantFrom('__proto__', 'toString', 'required', 'enum', 'a', 'b', '')), tie('node'), { maxKeys: 5 }),
  })).node;
}
