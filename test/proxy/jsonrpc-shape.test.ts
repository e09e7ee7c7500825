/**
 * `readMessage` must read every value as the SDK's `JSONRPCMessageSchema.parse` does (accepted or refused, and when
 * accepted the same message), and `isInitialize` as `isInitializeRequest`: a property test over values built near
 * the four message kinds (right and wrong jsonrpc, ids, methods, params, results, errors, `_meta`, extra keys).
 */
import fc from 'fast-check';
import { InitializeRequestSchema, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { isInitialize, isRequestMessage, isResponseMessage, readMessage, tryReadMessage } from '../../src/proxy/jsonrpc-shape.js';

const json = fc.jsonValue({ maxDepth: 2 });
/** Mostly a well-formed message of one kind; now and then one field wrong, missing or extra. */
const often = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary: good, weight: 4 }, { arbitrary: bad, weight: 1 });
const id = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.double(), fc.constant(null), fc.constant(2 ** 60), fc.boolean());
const meta = fc.record({ progressToken: fc.oneof(fc.string(), fc.integer(), fc.double()), 'io.modelcontextprotocol/related-task': fc.record({ taskId: fc.oneof(fc.string(), fc.integer()), extra: json }, { requiredKeys: [] }), other: json }, { requiredKeys: [] });
const body = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 3 }),
  { arbitrary: fc.record({ _meta: meta, x: json }, { requiredKeys: ['_meta'] }), weight: 3 },
  fc.record({ _meta: json }),
  json,
);
const error = fc.oneof(
  { arbitrary: fc.record({ code: often(fc.integer(), fc.oneof(fc.double(), fc.string())), message: often(fc.string(), fc.integer()), data: json, extra: json }, { requiredKeys: ['code', 'message'] }), weight: 4 },
  json,
);
const goodId = fc.oneof(fc.string({ maxLength: 4 }), fc.integer());
const method = fc.oneof(fc.constantFrom('initialize', 'tools/call', 'notifications/initialized'), fc.string({ maxLength: 6 }));
const jsonrpc = often(fc.constant('2.0'), fc.oneof(fc.constant('1.0'), fc.integer()));
const extra = fc.option(fc.record({ extra: json }), { freq: 5, nil: {} });
const message = fc.oneof(
  fc.tuple(fc.record({ jsonrpc, id: often(goodId, id), method: often(method, fc.integer()), params: body }, { requiredKeys: ['jsonrpc', 'id', 'method'] }), extra),
  fc.tuple(fc.record({ jsonrpc, method: often(method, fc.integer()), params: body }, { requiredKeys: ['jsonrpc', 'method'] }), extra),
  fc.tuple(fc.record({ jsonrpc, id: often(goodId, id), result: body }, { requiredKeys: ['jsonrpc', 'result'] }), extra),
  fc.tuple(fc.record({ jsonrpc, id: often(goodId, id), error }, { requiredKeys: ['jsonrpc', 'error'] }), extra),
).map(([m, more]) => ({ ...m, ...more }));
const initialize = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.oneof(fc.integer(), fc.string()),
  method: fc.constant('initialize'),
  params: fc.record({ protocolVersion: fc.oneof(fc.constant('2025-06-18'), fc.integer()), capabilities: fc.oneof(fc.constant({}), json), clientInfo: fc.oneof(fc.constant({ name: 'c', version: '1' }), json) }, { requiredKeys: [] }),
});

function schemaReading(v: unknown): { ok: true; value: unknown } | { ok: false } {
  const r = JSONRPCMessageSchema.safeParse(v);
  return r.success ? { ok: true, value: r.data } : { ok: false };
}

function ourReading(v: unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: readMessage(v) };
  } catch {
    return { ok: false };
  }
}

describe('readMessage', () => {
  it('accepts, refuses and returns exactly what JSONRPCMessageSchema.parse does', () => {
    fc.assert(
      fc.property(fc.oneof(message, initialize, json), (v) => {
        const schema = schemaReading(v);
        expect(ourReading(v)).toEqual(schema);
        // tryReadMessage (the stdio screen's reading): the same, with undefined for a refusal.
        const tried = tryReadMessage(v);
        expect(tried === undefined ? { ok: false } : { ok: true, value: tried }).toEqual(schema);
      }),
      { numRuns: 5_000 },
    );
  });

  it('passes an ordinary message through without copying it, and sends the rest to the schema', () => {
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'read_file', arguments: { path: 'a' } } };
    expect(readMessage(call)).toBe(call);
    const result = { jsonrpc: '2.0', id: 'x', result: { content: [] } };
    expect(readMessage(result)).toBe(result);
    // The schema drops an unknown key inside `_meta`'s related-task: such a message is the schema's copy.
    const withMeta = { jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't', drop: 1 } } } };
    const read = readMessage(withMeta);
    expect(read).not.toBe(withMeta);
    expect(read).toEqual({ jsonrpc: '2.0', id: 1, method: 'm', params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } } });
  });

  it('tells requests from notifications and responses', () => {
    expect(isRequestMessage(readMessage({ jsonrpc: '2.0', id: 0, method: 'ping' }))).toBe(true);
    expect(isRequestMessage(readMessage({ jsonrpc: '2.0', method: 'notifications/x' }))).toBe(false);
    expect(isResponseMessage(readMessage({ jsonrpc: '2.0', id: 0, result: {} }))).toBe(true);
    expect(isResponseMessage(readMessage({ jsonrpc: '2.0', id: 0, error: { code: 1, message: 'm' } }))).toBe(true);
    expect(isResponseMessage(readMessage({ jsonrpc: '2.0', id: 0, method: 'ping' }))).toBe(false);
  });
});

describe('isInitialize', () => {
  it('answers as isInitializeRequest', () => {
    fc.assert(
      fc.property(fc.oneof(initialize, message, json), (v) => {
        expect(isInitialize(v)).toBe(InitializeRequestSchema.safeParse(v).success);
      }),
      { numRuns: 5_000 },
    );
  });
});
