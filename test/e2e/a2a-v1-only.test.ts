/**
 * `a2a.v0_3: false` end to end (docs/a2a.md, "in the caller's version"): the built CLI serves the agent to v1.0
 * callers only. An explicit `A2A-Version: 0.3` card request is refused with -32009 saying how to accept it, a caller
 * without a version gets the v1.0 card (no v0.3 interfaces), a v0.3 `message/send` is not answered, and a v1.0 SDK
 * client still is.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Message, SendMessageRequest } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, startA2AAgent, type A2AAgentProcess } from '../support/a2a.js';
import { makeSandbox, ROOT, server, spawnHttpProxy, writeConfig, type HttpProxy } from '../support/proxy-harness.js';

const TOKEN = 'alice-token-0123456789abcdef';

describe('e2e: the A2A proxy with a2a.v0_3 false', () => {
  const sb = makeSandbox();
  let agent: A2AAgentProcess;
  let proxy: HttpProxy;
  const at = () => `${proxy.url}/a2a/helper`;

  beforeAll(async () => {
    agent = await startA2AAgent();
    const cfg = writeConfig(sb.dir, {
      servers: { ws: server('workspace', '--root', sb.workspace) },
      policy: join(ROOT, 'policies', 'default'),
      store: join(sb.dir, 'state.db'),
      agents: { alice: { token: { value: TOKEN } } },
      a2a: { v0_3: false, agents: { helper: { url: agent.url } } },
    });
    // A longer start-up bound than startHttpProxy's: the default book and an A2A agent on a loaded machine.
    proxy = await spawnHttpProxy(['serve', '--config', cfg, '--http', '0', '--no-ui'], { env: { PATH: process.env.PATH ?? '', QUADGUARD_LOG_LEVEL: 'info' }, timeoutMs: 60_000 });
  }, 90_000);
  afterAll(async () => {
    await Promise.all([proxy?.stop(), agent?.stop()]);
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('refuses a card request that asks for v0.3, saying how to accept it', async () => {
    const res = await fetch(`${at()}/.well-known/agent-card.json`, { headers: { Authorization: `Bearer ${TOKEN}`, 'A2A-Version': '0.3' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('vary')).toMatch(/A2A-Version/);
    const body = (await res.json()) as { error?: { code: number; message: string } };
    expect(body.error?.code).toBe(-32009);
    expect(body.error?.message).toContain('v0.3 callers are refused by this config; set a2a.v0_3: true');
  });

  it('gives a caller without a version the v1.0 card, with no v0.3 interface', async () => {
    const res = await fetch(`${at()}/.well-known/agent-card.json`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    const card = (await res.json()) as Record<string, any>;
    expect(card.url).toBeUndefined();
    expect(card.preferredTransport).toBeUndefined();
    const ifaces = card.supportedInterfaces as Array<{ url: string; protocolBinding: string; protocolVersion: string }>;
    expect(ifaces.map((i) => [i.protocolBinding, i.protocolVersion, i.url])).toEqual([
      ['JSONRPC', '1.0', at()],
      ['HTTP+JSON', '1.0', `${at()}/rest`],
    ]);
  });

  it('does not answer a v0.3 message/send, and answers a v1.0 client', async () => {
    const res = await fetch(at(), {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'message/send', params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'hello from 0.3' }] } } }),
    });
    const raw = await res.text();
    const body = JSON.parse(raw) as { result?: unknown; error?: { code: number; message: string } };
    expect(body.result, raw).toBeUndefined();
    expect(body.error, raw).toBeDefined();
    expect(raw).not.toContain('echo: hello from 0.3');

    const client = await a2aClient(`${at()}/`, { token: TOKEN });
    const r = await client.sendMessage(SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello from 1.0' }] } }));
    expect(JSON.stringify('messageId' in r ? Message.toJSON(r) : r)).toContain('echo: hello from 1.0');
  });
});
