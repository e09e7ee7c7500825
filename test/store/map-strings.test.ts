import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapStrings, recordInteraction } from '../../src/store/audit-interaction.js';
import type { Interaction } from '../../src/core/types.js';
import { formerMapStrings } from './reference/record-interaction.js';

/** A value's whole shape: for an object its prototype and every own key in order with its descriptor, the values' shapes. */
function shape(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return { v };
  return {
    array: Array.isArray(v),
    proto: Object.getPrototypeOf(v) === Object.prototype ? 'Object' : Object.getPrototypeOf(v) === Array.prototype ? 'Array' : shape(Object.getPrototypeOf(v)),
    keys: Reflect.ownKeys(v).map((k) => {
      const d = Object.getOwnPropertyDescriptor(v, k)!;
      return [k, d.enumerable, d.writable, d.configurable, 'value' in d ? shape(d.value) : 'accessor'];
    }),
  };
}

const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '0', '12', 'path', 'password', 'text', 'type', ''), fc.string({ maxLength: 6 }));
/** JSON texts of nested values with any keys, `__proto__` among them (JSON.parse makes it an own key, as a client's arguments are). */
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null)).map((x) => JSON.stringify(x)), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  object: fc.array(fc.tuple(key, tie('value')), { maxLength: 5 }).map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
})).object as fc.Arbitrary<string>;

/** Key maps: as they are, masked to one name (two keys then land on one), to `__proto__`, to integer-like names. */
const keyMaps: Array<(k: string) => string> = [(k) => k, (k) => (k.length > 3 ? '[REDACTED:x]' : k), (k) => (k === 'path' || k === '' ? '__proto__' : k), (k) => (k.length % 3 === 0 ? String(k.length) : k)];

describe("mapStrings' copies", () => {
  it('have the keys, order, descriptors, prototypes and values the former copies had, with the same calls in the same order', () => {
    fc.assert(
      fc.property(json, fc.nat(keyMaps.length - 1), fc.constantFrom(0, 1, 62, 63), (text, m, depth) => {
        const value = JSON.parse(text) as unknown;
        const run = (fn: typeof mapStrings) => {
          const calls: string[] = [];
          const flags = { truncated: false };
          const out = fn(value, (s) => (calls.push(`f:${s}`), s.length > 4 ? `${s.slice(0, 4)}…` : s), flags, depth, (k) => (calls.push(`k:${k}`), keyMaps[m]!(k)));
          return { out: shape(out), json: JSON.stringify(out), calls, flags };
        };
        expect(run(mapStrings)).toEqual(run(formerMapStrings));
      }),
      { numRuns: 3000 },
    );
  });

  it('keep an argument named __proto__ a key of the recorded body, as before', () => {
    const call = { kind: 'tool_call', agent: 'a', session: 's', profile: {}, server: 'ws', tool: 'read_file', arguments: JSON.parse('{"__proto__":{"path":"/etc/passwd"},"path":"notes.txt"}') as Record<string, unknown> } as Interaction;
    expect(recordInteraction(call).body).toBe('{"kind":"tool_call","agent":"a","session":"s","server":"ws","tool":"read_file","arguments":{"__proto__":{"path":"/etc/passwd"},"path":"notes.txt"}}');
  });
});
