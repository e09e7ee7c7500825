/**
 * The proxy's `Server` (shape-dispatch.ts: messages routed by their shape, tools/call not parsed again nor its result
 * checked again) against the SDK's own `Server`, given the same raw JSON-RPC messages: ordinary and malformed
 * requests, notifications, answers to the server's own requests. Each must give the same response (error code and
 * text included), the same handler input and the same transport errors. Then the results the proxy builds itself,
 * which the SDK's result check no longer sees, against `CallToolResultSchema`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  EmptyResultSchema,
  ListToolsRequestSchema,
  RootsListChangedNotificationSchema,
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { makeDecision, type Decision } from '../../src/core/types.js';
import { applyToolReplacement, downstreamFailure, toolDenial } from '../../src/proxy/denial.js';
import { messageResult } from '../../src/proxy/message-tool.js';
import { isPlainCallParams, plainKind, plainRequestHandler, ShapeDispatchServer } from '../../src/proxy/shape-dispatch.js';

type Kind = 'sdk' | 'ours';

interface Rig {
  /** Sends raw messages and returns what came back (responses, in order) once the server has settled. */
  send(...messages: unknown[]): Promise<unknown[]>;
  /** Asks the client something (ping) and answers it with `answer(id)`; returns how the server's request ended. */
  ask(answer: (id: unknown) => unknown): Promise<unknown>;
  /** What the handlers saw, and the transport errors the server reported. */
  seen: unknown[];
  errors: string[];
}

const settle = () => new Promise((r) => setTimeout(r, 20));

async function rig(kind: Kind, result: (req: CallToolRequest) => CallToolResult = echo): Promise<Rig> {
  const seen: unknown[] = [];
  const errors: string[] = [];
  const info = { name: 'parity', version: '1.0.0' };
  const opts = { capabilities: { tools: { listChanged: true } } };
  const server = kind === 'sdk' ? new Server(info, opts) : new ShapeDispatchServer(info, opts);
  const handler = (req: CallToolRequest) => {
    seen.push({ name: req.params.name, arguments: req.params.arguments, meta: req.params._meta });
    return result(req);
  };
  server.setRequestHandler(CallToolRequestSchema, handler);
  if (kind === 'ours') plainRequestHandler<CallToolRequest>(server, 'tools/call', isPlainCallParams, handler);
  server.setRequestHandler(ListToolsRequestSchema, (req) => {
    seen.push({ list: req.params ?? null });
    return { tools: [] };
  });
  server.setNotificationHandler(RootsListChangedNotificationSchema, (n) => void seen.push({ notified: n.params ?? null }));
  server.onerror = (e) => errors.push(e.message);
  const [client, end] = InMemoryTransport.createLinkedPair();
  const got: unknown[] = [];
  let asked: ((m: JSONRPCMessage) => void) | undefined;
  client.onmessage = (m) => ('method' in m && asked ? asked(m) : got.push(m));
  await server.connect(end);
  await client.start();
  return {
    seen,
    errors,
    async send(...messages) {
      got.length = 0;
      for (const m of messages) await client.send(m as JSONRPCMessage);
      await settle();
      return [...got];
    },
    async ask(answer) {
      asked = (m) => void client.send(answer((m as { id: unknown }).id) as JSONRPCMessage);
      const outcome = await server.request({ method: 'ping' }, EmptyResultSchema, { timeout: 500 }).then(
        (r) => ({ ok: r }),
        (e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }),
      );
      asked = undefined;
      return outcome;
    },
  };
}

const echo = (): CallToolResult => ({ content: [{ type: 'text', text: 'done' }] });
const call = (id: unknown, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', ...(params === undefined ? {} : { params }) });

/** tools/call requests: ordinary ones, then every way a field can be off (the SDK answers those). */
const CALLS: Array<[string, unknown]> = [
  ['plain', call(1, { name: 'echo', arguments: { text: 'hi', n: [1, { a: null }] } })],
  ['no arguments', call(2, { name: 'echo' })],
  ['string id', call('a-1', { name: 'echo', arguments: {} })],
  ['progress token', call(3, { name: 'echo', arguments: {}, _meta: { progressToken: 'p1' } })],
  ['numeric token and other meta', call(4, { name: 'echo', _meta: { progressToken: 7, 'x.y/z': { deep: true } } })],
  ['extra params key', call(5, { name: 'echo', arguments: {}, extra: 1 })],
  ['a task', call(6, { name: 'echo', arguments: {}, task: { ttl: 1000 } })],
  ['related-task meta', call(7, { name: 'echo', _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } })],
  ['name missing', call(8, { arguments: {} })],
  ['name a number', call(9, { name: 5 })],
  ['arguments an array', call(10, { name: 'echo', arguments: [1] })],
  ['arguments a string', call(11, { name: 'echo', arguments: 'x' })],
  ['arguments null', call(12, { name: 'echo', arguments: null })],
  ['arguments with a constructor key', call(13, { name: 'echo', arguments: { constructor: 'x' } })],
  ['params missing', call(14, undefined)],
  ['params an array', call(15, [1])],
  ['params null', call(16, null)],
  ['token an object', call(17, { name: 'echo', _meta: { progressToken: {} } })],
  ['token a fraction', call(18, { name: 'echo', _meta: { progressToken: 1.5 } })],
  ['meta an array', call(19, { name: 'echo', _meta: [] })],
  ['task not an object', call(20, { name: 'echo', task: 3 })],
  ['id a fraction', call(1.5, { name: 'echo' })],
  ['id null', call(null, { name: 'echo' })],
  ['id unsafe', call(2 ** 60, { name: 'echo' })],
  ['jsonrpc 1.0', { ...call(21, { name: 'echo' }), jsonrpc: '1.0' }],
  ['an extra top-level key', { ...call(22, { name: 'echo' }), extra: true }],
  ['method a number', { jsonrpc: '2.0', id: 23, method: 5, params: { name: 'echo' } }],
];

/** Other requests and notifications, routed by shape but parsed by their own schema as before. */
const OTHERS: Array<[string, unknown[]]> = [
  ['tools/list', [{ jsonrpc: '2.0', id: 30, method: 'tools/list' }, { jsonrpc: '2.0', id: 31, method: 'tools/list', params: { cursor: 'c' } }]],
  ['tools/list with a bad cursor', [{ jsonrpc: '2.0', id: 32, method: 'tools/list', params: { cursor: 5 } }]],
  ['unknown method', [{ jsonrpc: '2.0', id: 33, method: 'nope/nothing', params: {} }]],
  ['ping', [{ jsonrpc: '2.0', id: 34, method: 'ping' }]],
  ['notifications', [
    { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
    { jsonrpc: '2.0', method: 'notifications/roots/list_changed', params: {} },
    { jsonrpc: '2.0', method: 'notifications/roots/list_changed', params: { _meta: { a: 1 } } },
    { jsonrpc: '2.0', method: 'notifications/roots/list_changed', params: [1] },
    { jsonrpc: '2.0', method: 'notifications/unknown' },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 999 } },
  ]],
  ['not messages', [{ jsonrpc: '2.0' }, { jsonrpc: '2.0', id: 40 }, { id: 41, method: 'ping' }, 'text', [1, 2], null]],
];

/** Answers to the server's ping, good and bad. */
const ANSWERS: Array<[string, (id: unknown) => unknown]> = [
  ['result', (id) => ({ jsonrpc: '2.0', id, result: {} })],
  ['result with meta', (id) => ({ jsonrpc: '2.0', id, result: { _meta: { a: 1 } } })],
  ['result with an extra key', (id) => ({ jsonrpc: '2.0', id, result: {}, extra: 1 })],
  ['result an array', (id) => ({ jsonrpc: '2.0', id, result: [] })],
  ['error', (id) => ({ jsonrpc: '2.0', id, error: { code: -32000, message: 'no' } })],
];

describe('the proxy Server routes by shape as the SDK Server routes', () => {
  it.each(CALLS)('tools/call, %s: the same answer, handler input and errors', async (_name, message) => {
    const [sdk, ours] = [await rig('sdk'), await rig('ours')];
    expect(await ours.send(message)).toEqual(await sdk.send(message));
    expect(ours.seen).toEqual(sdk.seen);
    expect(ours.errors).toEqual(sdk.errors);
  });

  it.each(OTHERS)('%s: the same answers, handler input and errors', async (_name, messages) => {
    const [sdk, ours] = [await rig('sdk'), await rig('ours')];
    expect(await ours.send(...messages)).toEqual(await sdk.send(...messages));
    expect(ours.seen).toEqual(sdk.seen);
    expect(ours.errors).toEqual(sdk.errors);
  });

  it.each(ANSWERS)('an answer to the server (%s) ends its request the same way', async (_name, answer) => {
    const [sdk, ours] = [await rig('sdk'), await rig('ours')];
    expect(await ours.ask(answer)).toEqual(await sdk.ask(answer));
    expect(ours.errors).toEqual(sdk.errors);
  });

  it('the plain shapes are the ones taken without zod (so the comparisons above exercise the fast path)', () => {
    expect(plainKind(CALLS[0]![1])).toBe('request');
    expect(isPlainCallParams((CALLS[0]![1] as { params: unknown }).params)).toBe(true);
    expect(isPlainCallParams((CALLS[3]![1] as { params: unknown }).params)).toBe(true);
    expect(isPlainCallParams((CALLS[6]![1] as { params: unknown }).params)).toBe(false);
    expect(plainKind({ jsonrpc: '2.0', method: 'notifications/x' })).toBe('notification');
    expect(plainKind({ jsonrpc: '2.0', id: 1, result: {} })).toBe('result');
    expect(plainKind({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' } })).toBeUndefined();
  });
});

describe('results the proxy builds pass CallToolResultSchema unchanged (the SDK check it skips)', () => {
  const allow = makeDecision({ decision: 'allow', rationale: 'ok' });
  const deny: Decision = {
    ...makeDecision({ decision: 'deny', rationale: 'Denied by policy: no', rules: ['r1'], remediation: 'ask', source: 'pipeline' }),
    auditId: '12-ab',
    threatLevel: 2,
    witness: [{ rule: 'r1', predicates: { p: 'true' }, confidence: 1 }],
    detail: { retryAfterMs: 50 },
  };
  const wire = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;
  const results: Array<[string, unknown]> = [
    ['a tool denial', toolDenial(deny, { what: 'call to tool', name: 'fs__write' }, { hasOutputSchema: false })],
    ['a tool denial, output schema', toolDenial(deny, { what: 'result of tool', name: 'fs__read' }, { hasOutputSchema: true })],
    ['a downstream failure', downstreamFailure('QuadGuard: server down', 'downstream_unavailable')],
    ['a message verdict, allowed', messageResult(allow, 'bob')],
    ['a message verdict, denied', messageResult(deny, 'bob')],
    ['a replacement', applyToolReplacement({ content: [{ type: 'text', text: 'secret' }], structuredContent: { a: 1 } }, { ...allow, replacement: [{ type: 'text', text: '[redacted]' }] })],
  ];
  it.each(results)('%s', (_name, result) => {
    expect(wire(CallToolResultSchema.parse(result))).toEqual(wire(result));
  });
});
