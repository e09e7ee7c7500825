import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { makeDecision, type Guard } from '../../src/core/types.js';
import { silentLogger } from '../../src/core/log.js';
import { buildProxyGuard } from '../../src/proxy/compose.js';
import { enforceArgumentLimits, jsonDepth } from '../../src/proxy/limits.js';
import { exposeName, prefixUri, rewriteContentUris, splitExposedName, unprefixUri } from '../../src/proxy/namespacing.js';
import { screenJsonRpcLines } from '../../src/proxy/stdio-upstream.js';
import { ToolFilter } from '../../src/proxy/tool-filter.js';

describe('namespacing', () => {
  it('round-trips tool names and URIs', () => {
    expect(exposeName('fs', 'read_file')).toBe('fs__read_file');
    expect(splitExposedName('fs__read__file')).toEqual({ server: 'fs', name: 'read__file' });
    expect(prefixUri('fs', 'file:///tmp/a')).toBe('fs+file:///tmp/a');
    expect(unprefixUri('fs+file:///tmp/a')).toEqual({ server: 'fs', uri: 'file:///tmp/a' });
    expect(unprefixUri('file:///tmp/a')).toBeUndefined();
  });
  it('sanitises and hash-truncates long or illegal names, stably', () => {
    const n = exposeName('server', 'a.very.long.tool.name.that.goes.on.and.on.and.on.forever.and.ever');
    expect(n.length).toBeLessThanOrEqual(64);
    expect(n).toMatch(/^server__[A-Za-z0-9_-]+_[0-9a-f]{8}$/);
    expect(exposeName('server', 'a.very.long.tool.name.that.goes.on.and.on.and.on.forever.and.ever')).toBe(n);
  });
  it('rewrites resource_link and embedded resource URIs only', () => {
    const out = rewriteContentUris(
      [{ type: 'text', text: 'x' }, { type: 'resource_link', uri: 'a://1', name: 'n' }, { type: 'resource', resource: { uri: 'b://2', text: 't' } }],
      (u) => `s+${u}`,
    );
    expect(out).toEqual([{ type: 'text', text: 'x' }, { type: 'resource_link', uri: 's+a://1', name: 'n' }, { type: 'resource', resource: { uri: 's+b://2', text: 't' } }]);
  });
});

describe('tool filter', () => {
  const f = new ToolFilter({ fs: { allow: ['read_*', 'list_*'], deny: ['read_secret*'] } });
  it('applies deny before allow', () => {
    expect(f.isVisible('fs', 'read_file')).toBe(true);
    expect(f.isVisible('fs', 'read_secrets')).toBe(false);
    expect(f.isVisible('fs', 'write_file')).toBe(false);
    expect(f.isVisible('other', 'anything')).toBe(true);
  });
  it('denies calls to hidden tools with source filter', async () => {
    const d = await f.check({ kind: 'tool_call', agent: 'a', session: 's', profile: {}, server: 'fs', tool: 'write_file' });
    expect(d).toMatchObject({ decision: 'deny', source: 'filter', rules: ['servers.fs.tools'] });
    expect(d.rationale).toMatch(/not on its allow list/);
  });
});

describe('guard composition', () => {
  const i = { kind: 'tool_call' as const, agent: 'a', session: 's', profile: {}, server: 'fs', tool: 'read_file' };
  it('lets the filter deny before the pipeline runs', async () => {
    let ran = false;
    const pipeline: Guard = { check: async () => ((ran = true), makeDecision({ decision: 'allow', rationale: 'ok' })) };
    const g = buildProxyGuard(new ToolFilter({ fs: { deny: ['*'] } }), pipeline, silentLogger());
    expect((await g.check(i)).decision).toBe('deny');
    expect(ran).toBe(false);
  });
  it('fails closed on a throwing or broken pipeline', async () => {
    const boom: Guard = { check: async () => { throw new Error('boom'); } };
    expect(await buildProxyGuard(new ToolFilter({}), boom, silentLogger()).check(i)).toMatchObject({ decision: 'deny', source: 'error' });
    const broken = { check: async () => undefined } as unknown as Guard;
    expect(await buildProxyGuard(new ToolFilter({}), broken, silentLogger()).check(i)).toMatchObject({ decision: 'deny', source: 'error' });
  });
});

describe('argument limits', () => {
  it('measures depth cheaply and rejects over-limit arguments', () => {
    expect(jsonDepth({ a: { b: [1] } }, 10)).toBe(3);
    expect(() => enforceArgumentLimits({ a: { b: { c: {} } } }, { max_argument_depth: 3, max_argument_bytes: 100 }, 't')).toThrow(/deeper than 3/);
    expect(() => enforceArgumentLimits({ a: 'x'.repeat(200) }, { max_argument_depth: 3, max_argument_bytes: 100 }, 't')).toThrow(/100-byte limit/);
  });
});

describe('stdio JSON-RPC screening', () => {
  it('answers garbage with parse / invalid-request errors and passes valid messages through', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const passed: unknown[] = [];
    screenJsonRpcLines(input, output, silentLogger(), (m) => passed.push(m));
    input.write('not json\n{"id":7,"foo":1}\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","method":"notifications/initialized"}');
    input.end();
    await new Promise((r) => input.on('end', r));
    const replies = output.read()!.toString().trim().split('\n').map((l: string) => JSON.parse(l));
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not valid JSON' } },
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' } },
    ]);
    // Each message as the SDK's stdio transport reads a line (JSONRPCMessageSchema.parse of it), the last one without
    // its newline at the end of the input too.
    expect(passed).toEqual([
      JSONRPCMessageSchema.parse({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      JSONRPCMessageSchema.parse({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    ]);
  });
});
