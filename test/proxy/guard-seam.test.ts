import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import { makeDecision, type Guard, type Interaction } from '../../src/core/types.js';
import { silentLogger } from '../../src/core/log.js';
import { createProxy, DECISION_META_KEY, GUARD_DENIED_CODE, type GuardedProxy } from '../../src/proxy/index.js';
import { makeSandbox, server } from '../support/proxy-harness.js';

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

/** A scripted pipeline guard: records every interaction and decides by a few fixed cases. */
function scriptedGuard(seen: Interaction[]): Guard {
  return {
    async check(i) {
      seen.push(i);
      const deny = (why: string, rules = ['test-rule']) => makeDecision({ decision: 'deny', rationale: why, rules, witness: [{ rule: rules[0]!, predicates: { sensitive_info: 'true' }, confidence: 1 }], remediation: 'ask the user' });
      if (i.kind === 'tool_call' && i.tool === 'echo' && i.arguments?.text === 'secret') return deny('the text is a secret.');
      if (i.kind === 'tool_call' && i.tool === 'slow') throw new Error('detector exploded');
      if (i.kind === 'tool_result' && i.tool === 'read_file') return makeDecision({ decision: 'allow', rationale: 'redacted', replacement: [{ type: 'text', text: '[redacted]' }] });
      if (i.kind === 'tool_result' && i.tool === 'structured') return deny('the result leaks data.');
      if (i.kind === 'resource_read' && i.uri === 'workspace://index' && i.phase === 'request') return deny('index is private.');
      if (i.kind === 'resource_read' && i.uri === 'prompt:summarize_file' && i.phase === 'response') return deny('prompt output is private.');
      if (i.kind === 'message' && /password/.test(String(i.content))) return deny('messages may not carry passwords.', ['no-password']);
      return makeDecision({ decision: 'allow', rationale: 'ok' });
    },
  };
}

describe('the guard seam (createProxy with a pipeline guard and the onToolsListed hook; in-memory upstream, real downstream children)', () => {
  const sb = makeSandbox();
  const seen: Interaction[] = [];
  let proxy: GuardedProxy;
  let client: Client;

  beforeAll(async () => {
    const config = validateConfig({
      servers: { ws: server('workspace', '--root', sb.workspace), bad: { ...server('misbehaving'), tools: { deny: ['delete_all'] } } },
      agents: { nurse: { profile: { role: 'nursing', age: 30 } } },
    });
    proxy = createProxy({
      config,
      guard: scriptedGuard(seen),
      logger: silentLogger(),
      onToolsListed: (srv, tools) => (srv === 'ws' ? tools.filter((t) => t.name !== 'list_files') : tools),
    });
    const [ct, st] = InMemoryTransport.createLinkedPair();
    await proxy.serveTransport(st, { id: 'sess-1', agent: 'nurse', profile: { role: 'nursing', age: 30 }, authenticated: false });
    client = new Client({ name: 't', version: '0' });
    await client.connect(ct);
  });
  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('builds interactions with identity, session, profile and un-namespaced server/tool', async () => {
    expect(text(await client.callTool({ name: 'bad__echo', arguments: { text: 'hi' } }))).toBe('hi');
    const call = seen.find((i) => i.kind === 'tool_call' && i.tool === 'echo')!;
    expect(call).toMatchObject({ agent: 'nurse', session: 'sess-1', profile: { role: 'nursing', age: 30 }, server: 'bad', tool: 'echo', arguments: { text: 'hi' } });
    expect(seen.find((i) => i.kind === 'tool_result' && i.tool === 'echo')?.content).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('maps a pipeline denial to the DESIGN §4 shape', async () => {
    const r = (await client.callTool({ name: 'bad__echo', arguments: { text: 'secret' } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(text(r)).toBe('Blocked by QuadGuard: the call to tool bad__echo was not allowed. the text is a secret. Rule: `test-rule`. Witness: sensitive_info. What to do instead: ask the user');
    expect(r._meta?.[DECISION_META_KEY]).toMatchObject({ decision: 'deny', rules: ['test-rule'], source: 'pipeline' });
    expect(seen.some((i) => i.kind === 'tool_result' && i.arguments?.text === 'secret')).toBe(false);
  });

  it('fails closed when the guard throws', async () => {
    const r = (await client.callTool({ name: 'bad__slow', arguments: {} })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(r._meta?.[DECISION_META_KEY]).toMatchObject({ decision: 'deny', source: 'error' });
    expect(text(r)).toMatch(/detector exploded/);
  });

  it('swaps a tool result for the replacement and denies a result without structuredContent when the tool has an outputSchema', async () => {
    const r = (await client.callTool({ name: 'ws__read_file', arguments: { path: 'notes.txt' } })) as CallToolResult;
    expect(r.content).toEqual([{ type: 'text', text: '[redacted]' }]);
    expect(r._meta?.[DECISION_META_KEY]).toMatchObject({ replaced: true });
    const s = (await client.callTool({ name: 'bad__structured', arguments: {} })) as CallToolResult;
    expect(s.isError).toBe(true);
    expect(text(s)).toMatch(/^Blocked by QuadGuard: the result of tool bad__structured/);
    expect(s.structuredContent).toBeUndefined();
  });

  it('denies resources/read and prompts/get with a JSON-RPC error carrying the decision', async () => {
    const err = await client.readResource({ uri: 'ws+workspace://index' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(GUARD_DENIED_CODE);
    expect((err as McpError).message).toMatch(/Blocked by QuadGuard: the read of resource ws\+workspace:\/\/index was not allowed\. index is private/);
    expect(((err as McpError).data as Record<string, unknown>)[DECISION_META_KEY]).toMatchObject({ decision: 'deny' });
    const perr = await client.getPrompt({ name: 'ws__summarize_file', arguments: { path: 'notes.txt' } }).catch((e: unknown) => e);
    expect((perr as McpError).code).toBe(GUARD_DENIED_CODE);
    expect(seen.find((i) => i.uri === 'prompt:summarize_file' && i.phase === 'request')?.arguments).toEqual({ path: 'notes.txt' });
  });

  it('hides tools the onToolsListed hook drops, and they cannot be called', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('ws__list_files');
    await expect(client.callTool({ name: 'ws__list_files', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('checks messages with the same guard', async () => {
    const r = (await client.callTool({ name: 'guard_check_message', arguments: { sender: 'nurse', recipient: 'doctor', content: 'the password is hunter2' } })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(JSON.parse(text(r))).toMatchObject({ decision: 'deny', violated_rules: ['no-password'], witness: [{ rule: 'no-password' }] });
    expect(seen.at(-1)).toMatchObject({ kind: 'message', agent: 'nurse', sender: 'nurse', recipient: 'doctor' });
  });
});
