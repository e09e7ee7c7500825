/**
 * `plainResult` (shape-dispatch.ts) against the SDK `Protocol`'s own `_onresponse`, which it replaces for a result
 * response of plain shape: two SDK clients in the same state (requests waiting for answers, progress handlers, a
 * request queued for a task, timeouts) are given the same responses, one through each, and must end in the same
 * state, having called the same handlers with the same objects and reported the same errors.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { JSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { plainKind, plainResult } from '../../src/proxy/shape-dispatch.js';

interface Internals {
  _onresponse(response: JSONRPCResultResponse): void;
  _requestResolvers: Map<number, (response: unknown) => void>;
  _responseHandlers: Map<number, (response: unknown) => void>;
  _progressHandlers: Map<number, unknown>;
  _taskProgressTokens: Map<string, number>;
  _timeoutInfo: Map<number, unknown>;
  _setupTimeout(messageId: number, timeout: number, maxTotalTimeout: number | undefined, onTimeout: () => void): void;
  _cleanupTimeout(messageId: number): void;
  _onerror(error: Error): void;
}

/** A client waiting for answers to requests 1–6 (a progress handler and a timeout each) and a task-queued request 7. */
function waiting(log: unknown[]): Internals {
  const c = new Client({ name: 't', version: '0' }) as unknown as Internals;
  c._onerror = (e) => log.push(['error', e.message]);
  for (let id = 1; id <= 6; id++) {
    c._responseHandlers.set(id, (r) => log.push(['handler', id, r]));
    c._progressHandlers.set(id, () => {});
    c._setupTimeout(id, 60_000, undefined, () => log.push(['timeout', id]));
  }
  c._requestResolvers.set(7, (r) => log.push(['resolver', 7, r]));
  return c;
}

function state(c: Internals) {
  return {
    handlers: [...c._responseHandlers.keys()],
    progress: [...c._progressHandlers.keys()],
    tokens: [...c._taskProgressTokens],
    resolvers: [...c._requestResolvers.keys()],
    timeouts: [...c._timeoutInfo.keys()],
  };
}

const responses: JSONRPCResultResponse[] = [
  { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } },
  { jsonrpc: '2.0', id: '2', result: {} },
  { jsonrpc: '2.0', id: 3, result: { task: { taskId: 'task-3', status: 'working' } } },
  { jsonrpc: '2.0', id: 4, result: { task: { taskId: 4 } } },
  { jsonrpc: '2.0', id: 5, result: { task: ['taskId'] } },
  { jsonrpc: '2.0', id: 6, result: { task: null, more: 1 } },
  { jsonrpc: '2.0', id: 7, result: { queued: true } },
  { jsonrpc: '2.0', id: 1, result: { again: true } },
  { jsonrpc: '2.0', id: 99, result: {} },
  { jsonrpc: '2.0', id: 'not-a-number', result: {} },
  { jsonrpc: '2.0', id: -0, result: {} },
];

describe('plainResult, the SDK _onresponse for a plain result', () => {
  it('leaves the client as the SDK leaves it, one response after another', () => {
    for (const r of responses) expect(plainKind(r), JSON.stringify(r)).toBe('result');
    const sdkLog: unknown[] = [];
    const oursLog: unknown[] = [];
    const sdk = waiting(sdkLog);
    const ours = waiting(oursLog);
    for (const r of responses) {
      sdk._onresponse(r);
      plainResult(ours as never, r);
      expect(state(ours)).toEqual(state(sdk));
      expect(oursLog).toEqual(sdkLog);
      // The handler is given the response object itself, as the SDK gives it.
      const last = oursLog.at(-1) as unknown[];
      if (last[0] !== 'error') expect(last[2]).toBe(r);
    }
    expect(sdkLog.map((e) => (e as unknown[])[0])).toEqual(['handler', 'handler', 'handler', 'handler', 'handler', 'handler', 'resolver', 'error', 'error', 'error', 'error']);
    expect(state(sdk).tokens).toEqual([['task-3', 3]]);
    for (const c of [sdk, ours]) for (const id of c._timeoutInfo.keys()) c._cleanupTimeout(id);
  });
});
