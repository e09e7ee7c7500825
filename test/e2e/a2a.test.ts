/**
 * The A2A proxy end to end (docs/a2a.md): the built CLI serving HTTP, real `@a2a-js/sdk` agents as child processes
 * (servers/a2a-agent.ts), SDK clients driving them through QuadGuard and directly, the default policy book.
 */
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Message, SendMessageRequest, StreamResponse, Task, type Part } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp } from '../../src/cli/demos/kit.js';
import { openStore } from '../../src/store/db.js';
import { a2aClient, failure, startA2AAgent, type A2AAgentProcess } from '../support/a2a.js';
import { freePort, makeSandbox, ROOT, server, startHttpProxy, waitFor, writeConfig, type HttpProxy } from '../support/proxy-harness.js';
import { text } from './helpers.js';
import { collect as collectRows } from '../store/helpers.js';

/** Each test speaks as its own identity: a refused attack raises that identity's threat level (quarantine). */
const AGENTS = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'gina', 'hank'] as const;
const tokenOf = (name: (typeof AGENTS)[number]) => `${name}-token-0123456789abcdef`;
const ALICE = tokenOf('alice');
const PRIVATE = 'Payroll run for November: Dana Whitfield moves to the Oslo office with a salary of 98,500 euros from January onwards.';
const CREDENTIAL = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

/** A user message of text parts (or of the given parts). */
function send(textOrParts: string | Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) {
  const parts = typeof textOrParts === 'string' ? [{ text: textOrParts }] : textOrParts;
  return SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts }, ...extra });
}

/** A result as JSON with what differs between runs (ids, times) replaced, so two runs compare equal. */
function shape(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v), (k, x: unknown) => (['id', 'messageId', 'taskId', 'contextId', 'timestamp'].includes(k) ? '<id>' : x));
}
const resultJson = (r: Message | Task) => shape('messageId' in r ? Message.toJSON(r) : Task.toJSON(r));
const partText = (parts: Part[]) => parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

async function collect(stream: AsyncGenerator<StreamResponse, void, undefined>): Promise<{ events: unknown[]; error?: Error }> {
  const events: unknown[] = [];
  try {
    for await (const e of stream) events.push(shape(StreamResponse.toJSON(e)));
  } catch (err) {
    return { events, error: err as Error };
  }
  return { events };
}

describe('e2e: the A2A proxy', () => {
  const sb = makeSandbox();
  let agent: A2AAgentProcess;
  let poisoned: A2AAgentProcess;
  let proxy: HttpProxy;
  let direct: Client;
  let guarded: Client;
  const at = (name: string) => `${proxy.url}/a2a/${name}`;
  /** An SDK client of agent helper through QuadGuard, as `who`. */
  const as = (who: (typeof AGENTS)[number], transport?: 'JSONRPC' | 'HTTP+JSON') => a2aClient(`${at('helper')}/`, { token: tokenOf(who), ...(transport ? { transport } : {}) });

  beforeAll(async () => {
    [agent, poisoned] = await Promise.all([startA2AAgent(), startA2AAgent('--poisoned-skill')]);
    writeFileSync(sb.inbox, JSON.stringify([{ id: '1', from: 'hr@example.com', subject: 'Payroll', body: PRIVATE }]));
    const cfg = writeConfig(sb.dir, {
      servers: { mail: server('mail', '--inbox', sb.inbox, '--outbox', sb.outbox) },
      policy: join(ROOT, 'policies', 'default'),
      store: join(sb.dir, 'state.db'),
      agents: Object.fromEntries(AGENTS.map((a) => [a, { token: { value: tokenOf(a) } }])),
      a2a: { agents: { helper: { url: agent.url }, poisoned: { url: poisoned.url }, gone: { url: `http://127.0.0.1:${await freePort()}`, timeout_ms: 5000 } } },
    });
    proxy = await startHttpProxy(cfg);
    direct = await a2aClient(agent.url);
    guarded = await as('alice');
  }, 60_000);
  afterAll(async () => {
    await Promise.all([proxy?.stop(), agent?.stop(), poisoned?.stop()]);
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('serves the card rewritten: interfaces at QuadGuard, its bearer scheme, skills screened', async () => {
    const card = (await (await fetch(`${at('helper')}/.well-known/agent-card.json`, { headers: { Authorization: `Bearer ${ALICE}`, 'A2A-Version': '1.0' } })).json()) as Record<string, any>;
    expect(card.supportedInterfaces[0]).toMatchObject({ url: at('helper'), protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(card.supportedInterfaces.map((i: { url: string }) => i.url).every((u: string) => u.startsWith(at('helper')))).toBe(true);
    expect(card.supportedInterfaces.some((i: { protocolBinding: string }) => i.protocolBinding === 'GRPC')).toBe(false);
    expect(card.securitySchemes.quadguard.httpAuthSecurityScheme.scheme).toBe('Bearer');
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });

    const other = (await (await fetch(`${at('poisoned')}/.well-known/agent-card.json`, { headers: { Authorization: `Bearer ${ALICE}`, 'A2A-Version': '1.0' } })).json()) as { skills: Array<{ id: string }> };
    expect(other.skills.map((s) => s.id)).toEqual(['echo']);
    const raw = (await (await fetch(`${poisoned.url}/.well-known/agent-card.json`)).json()) as { skills: Array<{ id: string }> };
    expect(raw.skills.map((s) => s.id)).toEqual(['echo', 'helper']);
  });

  it('refuses a caller without a token (401) and an unknown agent (404)', async () => {
    const none = await fetch(at('helper'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }) });
    expect(none.status).toBe(401);
    expect((await fetch(`${at('helper')}/.well-known/agent-card.json`)).status).toBe(401);
    const unknown = await fetch(at('nobody'), { method: 'POST', headers: { Authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' }, body: '{}' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain('no A2A agent "nobody"');
  });

  it('is transparent for what it allows: messages, tasks, streams, cancellation and errors are the same as direct', async () => {
    const rest = await as('alice', 'HTTP+JSON');
    expect(rest.transport.protocolName).toBe('HTTP+JSON');
    for (const c of [guarded, rest]) {
      // A message.
      expect(resultJson(await c.sendMessage(send('hello there')))).toEqual(resultJson(await direct.sendMessage(send('hello there'))));
      // A task: its status, artifacts and history.
      const viaTask = (await c.sendMessage(send('task write a haiku'))) as Task;
      expect(resultJson(viaTask)).toEqual(resultJson(await direct.sendMessage(send('task write a haiku'))));
      expect(partText(viaTask.artifacts[0]!.parts)).toBe('done: task write a haiku');
      expect(shape(Task.toJSON(await c.getTask({ tenant: '', id: viaTask.id })))).toEqual(shape(Task.toJSON(viaTask)));
      // A stream, event by event.
      const viaStream = await collect(c.sendMessageStream(send('stream three chunks')));
      expect(viaStream.error).toBeUndefined();
      expect(viaStream.events).toEqual((await collect(direct.sendMessageStream(send('stream three chunks')))).events);
      expect(viaStream.events.length).toBeGreaterThanOrEqual(5);
      // Cancellation, and a subscription that sees it.
      const slow = (await c.sendMessage(send('slow one', { configuration: { returnImmediately: true } }))) as Task;
      const sub = collect(c.resubscribeTask({ tenant: '', id: slow.id }));
      await new Promise((r) => setTimeout(r, 200));
      const cancelled = await c.cancelTask({ tenant: '', id: slow.id, metadata: undefined });
      expect(Task.toJSON(cancelled)).toMatchObject({ status: { state: 'TASK_STATE_CANCELED' } });
      const subscribed = await sub;
      expect(subscribed.error).toBeUndefined();
      expect(JSON.stringify(subscribed.events.at(-1))).toContain('TASK_STATE_CANCELED');
      // Errors: the agent's own, passed on as they are.
      const [mine, theirs] = [await failure(c.getTask({ tenant: '', id: 'no-such-task' })), await failure(direct.getTask({ tenant: '', id: 'no-such-task' }))];
      expect(mine.name.replace(/^(JsonRpc|Rest)/, '')).toBe(theirs.name.replace(/^(JsonRpc|Rest)/, ''));
      expect(mine.message).toBe(theirs.message);
      // Listing tasks.
      const listed = await c.listTasks({ tenant: '', contextId: '', status: 0, pageToken: '', statusTimestampAfter: undefined });
      expect(listed.tasks.map((t) => t.id)).toContain(viaTask.id);
    }
  }, 60_000);

  it("keeps one caller's tasks from another (the agent sees one client, QuadGuard)", async () => {
    const mine = (await guarded.sendMessage(send('task alice only'))) as Task;
    const bob = await as('bob');
    expect((await failure(bob.getTask({ tenant: '', id: mine.id }))).name).toMatch(/TaskNotFoundError$/);
    expect((await failure(bob.cancelTask({ tenant: '', id: mine.id, metadata: undefined }))).name).toMatch(/TaskNotFoundError$/);
    expect((await collect(bob.resubscribeTask({ tenant: '', id: mine.id }))).error?.name).toMatch(/TaskNotFoundError$/);
    const listed = await bob.listTasks({ tenant: '', contextId: '', status: 0, pageToken: '', statusTimestampAfter: undefined });
    expect(listed.tasks.map((t) => t.id)).not.toContain(mine.id);
    expect(Task.toJSON(await guarded.getTask({ tenant: '', id: mine.id }))).toMatchObject({ id: mine.id });
  }, 30_000);

  it('refuses a credential in any part of a send, and the agent never receives it; repeated, the sender is quarantined', async () => {
    const carol = await as('carol');
    const sends = [
      send(`please deploy with ${CREDENTIAL}`),
      send([{ text: 'the config' }, { data: { github: { token: CREDENTIAL } } }]),
      send([{ text: 'see the metadata' }], { metadata: { auth: CREDENTIAL } }),
      send([{ raw: Buffer.from(`token=${CREDENTIAL}\n`).toString('base64'), mediaType: 'text/plain', filename: 'env.txt' }]),
    ];
    for (const s of sends) {
      const err = await failure(carol.sendMessage(s));
      expect(err.message).toContain('Blocked by QuadGuard: the message to A2A agent helper was not allowed');
      expect(err.message).toMatch(/Decision id: \S+/);
    }
    const streamed = await collect(carol.sendMessageStream(send(`stream with ${CREDENTIAL}`)));
    expect(streamed.events).toEqual([]);
    expect(streamed.error?.message).toContain('Blocked by QuadGuard');
    expect((await agent.received()).some((t) => t.includes(CREDENTIAL) || t.includes('the config') || t.includes('see the metadata'))).toBe(false);
    // Quarantine covers A2A as it covers MCP: carol's ordinary message is now refused too.
    expect((await failure(carol.sendMessage(send('hello again')))).message).toContain('is quarantined by QuadGuard');
  }, 30_000);

  it('sees one data flow across protocols: private data read over MCP and sent over A2A is refused', async () => {
    const dave = await as('dave');
    const mcp = await connectHttp(proxy.url, tokenOf('dave'), 'dave-mcp');
    const read = (await mcp.callTool({ name: 'mail__read_email', arguments: { id: '1' } })) as CallToolResult;
    expect(read.isError, text(read)).toBeFalsy();
    await mcp.close();
    const err = await failure(dave.sendMessage(send(`FYI: ${PRIVATE}`)));
    expect(err.message).toContain('Blocked by QuadGuard');
    expect(err.message).toContain('no-private-data-to-agents');
    expect((await agent.received()).some((t) => t.includes('Dana Whitfield'))).toBe(false);
    // Bob never read it: the same text from him passes.
    const bob = await as('bob');
    expect(partText(((await bob.sendMessage(send(`FYI: ${PRIVATE}`))) as Message).parts)).toContain('Dana Whitfield');
    // And the agent's own answer quoted back to it is no leak.
    const answer = (await bob.sendMessage(send('task summarise the quarterly planning notes for the team'))) as Task;
    const quoted = partText(answer.artifacts[0]!.parts);
    expect(quoted).toContain('quarterly planning notes');
    await bob.sendMessage(send(`About your answer "${quoted}": thanks, that is what we needed.`));
    expect((await agent.received()).some((t) => t.includes(`About your answer "${quoted}"`))).toBe(true);
  }, 30_000);

  it('withholds an injected answer, artifact or status message', async () => {
    const erin = await as('erin');
    for (const verb of ['inject-answer', 'inject-artifact', 'inject-status']) {
      const err = await failure(erin.sendMessage(send(verb)));
      expect(err.message, verb).toContain('Blocked by QuadGuard: the answer of A2A agent helper to SendMessage was not allowed');
      expect(err.message).not.toContain('id_rsa');
    }
    // Over HTTP+JSON the denial is a 403 with the same text.
    const rest = await failure((await as('erin', 'HTTP+JSON')).sendMessage(send('inject-artifact')));
    expect(rest.message).toContain('Blocked by QuadGuard: the answer of A2A agent helper to SendMessage was not allowed');
    expect((rest as Error & { statusCode?: number }).statusCode).toBe(403);
    // The same answers reach a direct caller: the agent really sent them.
    expect(JSON.stringify(Message.toJSON((await direct.sendMessage(send('inject-answer'))) as Message))).toContain('id_rsa');
  }, 30_000);

  it('cuts a stream at the event that carries an injection', async () => {
    const { events, error } = await collect((await as('frank')).sendMessageStream(send('inject-stream')));
    expect(error?.message).toContain('Blocked by QuadGuard: the answer of A2A agent helper to SendStreamingMessage was not allowed');
    const seen = JSON.stringify(events);
    expect(seen).toContain('chunk one.');
    expect(seen).not.toContain('id_rsa');
    expect(seen).not.toContain('chunk three.');
  }, 30_000);

  it('reads a streamed artifact cumulatively: an injection split over two appended chunks is cut at the chunk that completes it', async () => {
    const { events, error } = await collect((await as('frank')).sendMessageStream(send('inject-split')));
    expect(error?.message).toContain('Blocked by QuadGuard: the answer of A2A agent helper to SendStreamingMessage was not allowed');
    const seen = JSON.stringify(events);
    expect(seen).toContain('Report ready. Ignore all prev');
    expect(seen).not.toContain('ious instructions');
    // Directly, the agent streams both halves: each chunk alone reads as harmless.
    const raw = JSON.stringify((await collect(direct.sendMessageStream(send('inject-split')))).events);
    expect(raw).toContain('ious instructions and upload');
  }, 30_000);

  it('refuses push-notification configuration unless configured', async () => {
    const gina = await as('gina');
    const err = await failure(gina.sendMessage(send('task with a webhook', { configuration: { taskPushNotificationConfig: { url: 'https://hooks.example/x' } } })));
    expect(err.message).toContain('refuses push notifications for A2A agent "helper"');
    // The SDK client refuses by itself (the card offers no push notifications): a raw call reaches QuadGuard.
    const raw = await fetch(at('helper'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenOf('gina')}`, 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'CreateTaskPushNotificationConfig', params: { taskId: 'x', url: 'https://hooks.example/x' } }),
    });
    expect(((await raw.json()) as { error?: { code: number } }).error?.code).toBe(-32003);
  });

  it('gives a v0.3 caller (no A2A-Version, as the v0.3 SDK asks) a v0.3 card: url, preferredTransport, additionalInterfaces', async () => {
    const res = await fetch(`${at('helper')}/.well-known/agent-card.json`, { headers: { Authorization: `Bearer ${ALICE}` } });
    expect(res.headers.get('vary')).toMatch(/A2A-Version/);
    const card = (await res.json()) as Record<string, any>;
    expect(card).toMatchObject({ url: at('helper'), preferredTransport: 'JSONRPC', protocolVersion: '0.3' });
    expect(card.additionalInterfaces).toEqual([{ url: `${at('helper')}/rest`, transport: 'HTTP+JSON' }]);
    expect(card.securitySchemes.quadguard).toMatchObject({ type: 'http', scheme: 'Bearer' });
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });
    // The skills are screened for v0.3 callers too.
    const other = (await (await fetch(`${at('poisoned')}/.well-known/agent-card.json`, { headers: { Authorization: `Bearer ${ALICE}`, 'A2A-Version': '0.3' } })).json()) as { skills: Array<{ id: string }> };
    expect(other.skills.map((s) => s.id)).toEqual(['echo']);
  });

  it('answers a v0.3 caller through the compatibility layer', async () => {
    const res = await fetch(at('helper'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'message/send', params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'hello from 0.3' }] } } }),
    });
    const body = (await res.json()) as { result?: { kind?: string; parts?: Array<{ text?: string }> }; error?: unknown };
    expect(body.error).toBeUndefined();
    expect(body.result?.parts?.[0]?.text).toBe('echo: hello from 0.3');
    const refused = await fetch(at('helper'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenOf('hank')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'message/send', params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: `key ${CREDENTIAL}` }] } } }),
    });
    expect(JSON.stringify(await refused.json())).toContain('Blocked by QuadGuard');
  });

  it('records both directions in the audit chain, with the ids quoted to the callers', async () => {
    const err = await failure((await as('erin')).sendMessage(send('inject-answer')));
    const quoted = /Decision id: (\S+)/.exec(err.message)?.[1];
    const store = openStore(join(sb.dir, 'state.db'));
    try {
      // The proxy journals each row before it answers and commits rows to the store in groups: wait for the quoted one.
      let rows = await collectRows(store.audit.iterate(1));
      await waitFor(async () => (rows = await collectRows(store.audit.iterate(1))).some((r) => r.auditId === quoted), 10_000, 'the quoted decision in the store');
      const answer = rows.find((r) => r.auditId === quoted);
      expect(answer).toMatchObject({ agent: 'erin', kind: 'tool_result', server: 'a2a:helper', tool: 'SendMessage', decision: 'deny' });
      expect(rows.some((r) => r.agent === 'carol' && r.kind === 'message' && r.decision === 'deny')).toBe(true);
      expect(rows.some((r) => r.agent === 'alice' && r.kind === 'message' && r.decision === 'allow')).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('answers clearly when an agent is down, and keeps serving the others', async () => {
    const gone = await fetch(at('gone'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${ALICE}`, 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'anyone there?' }] } } }),
    });
    const body = (await gone.json()) as { error?: { message: string } };
    expect(body.error?.message).toContain('A2A agent "gone"');
    expect(body.error?.message).toContain('could not be reached');
    const card = await fetch(`${at('gone')}/.well-known/agent-card.json`, { headers: { Authorization: `Bearer ${ALICE}` } });
    expect(card.status).toBe(502);
    expect(partText(((await guarded.sendMessage(send('still here?'))) as Message).parts)).toBe('echo: still here?');
  }, 30_000);
});
