import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { DownstreamError } from '../../src/core/errors.js';
import { makeDecision, type Decision, type Interaction } from '../../src/core/types.js';
import { decide, downstreamRequestError, downstreamToolFailure } from '../../src/proxy/decide.js';

const logger = pino({ level: 'silent' });
const call: Interaction = { kind: 'tool_call', agent: 'a', session: 's', profile: {}, server: 'fs', tool: 'read' };

describe('decide: the one seam between a proxy site and the guard', () => {
  it('records a denial the guard did not record, and only a denial', async () => {
    const recorded: Decision[] = [];
    const record = async (_i: Interaction, d: Decision) => void recorded.push(d);
    const deny = makeDecision({ decision: 'deny', rationale: 'no', source: 'filter' });
    const allow = makeDecision({ decision: 'allow', rationale: 'ok', source: 'filter' });
    expect(await decide({ guard: { check: async () => deny }, logger, record }, call)).toBe(deny);
    expect(await decide({ guard: { check: async () => allow }, logger, record }, call)).toBe(allow);
    // A denial the pipeline recorded already (it carries its audit id) is not recorded twice.
    await decide({ guard: { check: async () => ({ ...deny, auditId: '1-ab' }) }, logger, record }, call);
    expect(recorded).toEqual([deny]);
  });

  it('passes the signal on to the guard', async () => {
    const signal = new AbortController().signal;
    let seen: AbortSignal | undefined;
    await decide({ guard: { check: async (_i, s) => ((seen = s), makeDecision({ decision: 'allow', rationale: '', source: 'none' })) }, logger }, call, signal);
    expect(seen).toBe(signal);
  });
});

describe('one reading of a downstream failure', () => {
  const timeout = new DownstreamError('downstream_timeout', 'server "fs" did not answer tools/call within 5 ms.');
  const server = new McpError(-32002, 'no such file');

  it('is a JSON-RPC error for the request methods, the downstream code kept', () => {
    const t = downstreamRequestError(timeout) as McpError;
    expect([t.code, t.message, t.data]).toEqual([ErrorCode.InternalError, timeout.message, { code: 'downstream_timeout' }]);
    const s = downstreamRequestError(server) as McpError;
    expect([s.code, s.message]).toEqual([-32002, 'no such file']);
    const other = new Error('boom');
    expect(downstreamRequestError(other)).toBe(other);
  });

  it('is a tool error for tools/call, and a fault inside the proxy says nothing of itself', () => {
    const at = { server: 'fs', tool: 'read', exposed: 'fs__read' };
    expect(downstreamToolFailure(timeout, at, logger)).toEqual({ isError: true, content: [{ type: 'text', text: `QuadGuard: ${timeout.message}` }], _meta: { 'io.github.quadguard/error': { code: 'downstream_timeout' } } });
    expect(downstreamToolFailure(server, at, logger).content).toEqual([{ type: 'text', text: 'Server "fs" returned an error for read: no such file' }]);
    const internal = downstreamToolFailure(new Error('secret detail'), at, logger);
    expect(internal.content).toEqual([{ type: 'text', text: 'QuadGuard: the call to fs__read failed inside the proxy.' }]);
    expect(internal._meta).toEqual({ 'io.github.quadguard/error': { code: 'proxy_internal' } });
  });
});
