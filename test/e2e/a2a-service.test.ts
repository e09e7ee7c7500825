/**
 * The A2A proxy run as a service, end to end against the built CLI (docs/a2a.md, docs/operations.md): a reload
 * swaps the book for A2A too; a held A2A send is approved with `quadguard approve` and its retry passes; A2A
 * decisions show in /metrics and the live view's stream with their kind; rate applies to A2A identities; an agent
 * whose card cannot be read at start-up answers a clear error and is used once it is up.
 */
import { randomUUID } from 'node:crypto';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Message, SendMessageRequest } from '@a2a-js/sdk';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey as JoseKey } from 'jose';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/demos/kit.js';
import { a2aClient, failure, startA2AAgent, type A2AAgentProcess } from '../support/a2a.js';
import { freePort, makeSandbox, ROOT, server, startHttpProxy, waitFor, writeConfig, type HttpProxy } from '../support/proxy-harness.js';
import { openStream } from '../ui/support.js';

const AGENTS = ['ann', 'ben', 'cai', 'dee', 'eve'] as const;
const tokenOf = (name: (typeof AGENTS)[number]) => `${name}-token-0123456789abcdef`;
const UI_TOKEN = 'ui-token-0123456789abcdef';
/** What the rule added by the reload holds for a person's approval. */
const HELD_TEXT = 'The launch plan for Friday is attached; please review it.';
const BURST = 12;
const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'quadguard-a2a-e2e';

const send = (text: string) => SendMessageRequest.fromJSON({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });
const textOf = (r: unknown) => ((r as Message).parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

describe('e2e: the A2A proxy as a service', () => {
  const sb = makeSandbox();
  const store = join(sb.dir, 'state.db');
  const book = join(sb.dir, 'book');
  const pidFile = join(sb.dir, 'quadguard.pid');
  let agent: A2AAgentProcess;
  let late: A2AAgentProcess | undefined;
  let latePort = 0;
  let proxy: HttpProxy;
  let key: { privateKey: JoseKey; publicKey: JoseKey };
  let otherKey: { privateKey: JoseKey; publicKey: JoseKey };
  const sign = (claims: Record<string, unknown>, opts: { aud?: string; exp?: string | number; k?: JoseKey } = {}) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(ISSUER).setAudience(opts.aud ?? AUDIENCE).setIssuedAt().setExpirationTime(opts.exp ?? '5m').sign(opts.k ?? key.privateKey);
  const at = (name: string) => `${proxy.url}/a2a/${name}`;
  const as = (who: (typeof AGENTS)[number], name = 'helper') => a2aClient(`${at(name)}/`, { token: tokenOf(who) });

  beforeAll(async () => {
    agent = await startA2AAgent();
    latePort = await freePort();
    key = await generateKeyPair('ES256');
    otherKey = await generateKeyPair('ES256');
    writeFileSync(join(sb.dir, 'jwks.json'), JSON.stringify({ keys: [{ ...(await exportJWK(key.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] }));
    cpSync(join(ROOT, 'policies', 'default'), book, { recursive: true });
    const cfg = writeConfig(sb.dir, {
      servers: { mail: server('mail', '--inbox', sb.inbox, '--outbox', sb.outbox) },
      policy: book,
      store,
      agents: Object.fromEntries(AGENTS.map((a) => [a, { token: { value: tokenOf(a) } }])),
      guard: { watcher: { burst_threshold: BURST, burst_window_ms: 5000 } },
      // Callers may also prove themselves with a JWT signed by a key of this JWKS file.
      http: { jwt: { jwks_file: 'jwks.json', issuer: ISSUER, audience: AUDIENCE, algorithms: ['ES256'] } },
      a2a: { agents: { helper: { url: agent.url }, late: { url: `http://127.0.0.1:${latePort}`, timeout_ms: 5000 } } },
    });
    proxy = await startHttpProxy(cfg, { QUADGUARD_UI_TOKEN: UI_TOKEN }, ['--pid-file', pidFile]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([proxy?.stop(), agent?.stop(), late?.stop()]);
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('after `quadguard reload`, A2A sends are judged by the new book; a held send is approved and its retry passes', async () => {
    const ann = await as('ann');
    expect(textOf(await ann.sendMessage(send(HELD_TEXT)))).toBe(`echo: ${HELD_TEXT}`);

    // The new book holds messages that mention the launch plan for a person's approval.
    const file = join(book, 'book.yaml');
    const doc = YAML.parse(readFileSync(file, 'utf8')) as { predicates: unknown[]; rules: unknown[] };
    doc.predicates.push({ name: 'mentions_launch_plan', description: 'The message mentions the launch plan.', scope: 'message', detectors: [{ type: 'keywords', words: ['launch plan'], field: 'content' }] });
    doc.rules.push({ id: 'hold-launch-plan', text: 'Messages about the launch plan need a person\'s approval.', applies_to: ['message'], formula: '!mentions_launch_plan', severity: 'low', effect: 'approve', remediation: 'Wait for a person.' });
    writeFileSync(file, YAML.stringify(doc));
    const reload = await runCli(['reload', '--pid-file', pidFile]);
    expect(reload.code, reload.stderr).toBe(0);
    await waitFor(() => /reloaded: new requests use the new policy book/.test(proxy.stderr()), 20_000, 'reload logged');

    const before = (await agent.received()).length;
    const held = await failure(ann.sendMessage(send(HELD_TEXT)));
    expect(held.message).toContain('Held for approval by QuadGuard: the message to A2A agent helper needs a person\'s approval.');
    const id = /approval id (ap_\S+?) until/.exec(held.message)?.[1];
    expect(id, held.message).toBeDefined();
    expect((await agent.received()).length).toBe(before);

    const approve = await runCli(['approve', id!, '--store', store, '--by', 'e2e']);
    expect(approve.code, approve.stderr).toBe(0);
    // The retry (a new message id, the same content) passes once; the one after is held again.
    expect(textOf(await ann.sendMessage(send(HELD_TEXT)))).toBe(`echo: ${HELD_TEXT}`);
    expect((await failure(ann.sendMessage(send(HELD_TEXT)))).message).toContain('Held for approval by QuadGuard');
  }, 60_000);

  it("the live view's service state shows the store, the servers, the last reload and counters", async () => {
    const res = await fetch(`${proxy.url}/ui/api/ops`, { headers: { Authorization: `Bearer ${UI_TOKEN}` } });
    expect(res.status).toBe(200);
    const ops = (await res.json()) as { store: { ok: boolean }; servers: Array<{ server: string; state: string }>; reload: { ok: boolean; hash: string; at: number } | null; counters: Array<{ name: string; value: number }> };
    expect(ops.store).toEqual({ ok: true });
    expect(ops.servers).toEqual([{ server: 'mail', state: 'ready', required: false }]);
    // The reload of the first test, with the hash of the book now in use.
    expect(ops.reload).toMatchObject({ ok: true });
    expect(ops.reload!.hash).toMatch(/^[0-9a-f]{16,}$/);
    expect(ops.counters.find((c) => c.name === 'decisions denied')!.value).toBeGreaterThan(0);
    expect((await fetch(`${proxy.url}/ui/api/ops`)).status).toBe(401);
  });

  it('`quadguard reload` without a running proxy says so', async () => {
    const missing = await runCli(['reload', '--pid-file', join(sb.dir, 'no-such.pid')]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(`cannot read the pid file ${join(sb.dir, 'no-such.pid')}: it does not exist`);
    const stale = join(sb.dir, 'stale.pid');
    writeFileSync(stale, '2147480000\n');
    const gone = await runCli(['reload', '--pid-file', stale]);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('no process 2147480000 is running');
  });

  it('shows A2A decisions on /metrics and in the live view stream with their kind', async () => {
    const first = Number(((await (await fetch(`${proxy.url}/ui/api/decisions?after=0&limit=1000`, { headers: { Authorization: `Bearer ${UI_TOKEN}` } })).json()) as { decisions: Array<{ id: number }> }).decisions.at(-1)?.id ?? 0);
    const ben = await as('ben');
    const err = await failure(ben.sendMessage(send('inject-answer')));
    expect(err.message).toContain('Blocked by QuadGuard: the answer of A2A agent helper to SendMessage was not allowed');
    const stream = await openStream(`${proxy.url}/ui/api/stream?after=${first}`, { Authorization: `Bearer ${UI_TOKEN}` });
    const decisions = () => stream.events.filter((e) => e.event === 'decision').map((e) => e.data as Record<string, unknown>);
    try {
      await stream.until(() => decisions().some((r) => r.agent === 'ben' && r.kind === 'tool_result'), 10_000);
    } finally {
      stream.close();
    }
    const rows = decisions();
    expect(rows.find((r) => r.agent === 'ben' && r.kind === 'message')).toMatchObject({ decision: 'allow' });
    expect(rows.find((r) => r.agent === 'ben' && r.kind === 'tool_result')).toMatchObject({ decision: 'deny', server: 'a2a:helper', tool: 'SendMessage' });

    const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
    expect(metrics).toMatch(/quadguard_decisions_total\{kind="message",decision="allow",rule="none"\} [1-9]/);
    expect(metrics).toMatch(/quadguard_decisions_total\{kind="tool_result",decision="deny",rule="no-injection-in-results"\} [1-9]/);
    expect(metrics).toMatch(/quadguard_guard_duration_seconds_count\{kind="message"\} [1-9]/);
  }, 30_000);

  it('applies rate to A2A identities: a burst is slowed, and only that identity', async () => {
    const cai = await as('cai');
    const answers = await Promise.allSettled(Array.from({ length: BURST + 4 }, (_, i) => cai.sendMessage(send(`note ${i}`))));
    const slowed = answers.filter((a) => a.status === 'rejected' && /Slowed by QuadGuard/.test(String((a.reason as Error).message)));
    expect(slowed.length, JSON.stringify(answers.map((a) => (a.status === 'rejected' ? (a.reason as Error).message.slice(0, 80) : 'ok')))).toBeGreaterThan(0);
    expect(textOf(await (await as('dee')).sendMessage(send('hello')))).toBe('echo: hello');
  }, 30_000);

  it('accepts a JWT from the JWKS file on A2A and names the agent; refuses expired, wrong-audience, wrong-key and alg:none tokens', async () => {
    const viaJwt = await a2aClient(`${at('helper')}/`, { token: await sign({ sub: 'dee', jti: 'a2a-1' }) });
    expect(textOf(await viaJwt.sendMessage(send('signed hello')))).toBe('echo: signed hello');
    const tail = await runCli(['audit', 'tail', '-n', '20', '--json', '--store', store]);
    const rows = tail.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { agent: string; kind: string; source: string; rationale: string });
    expect(rows.find((r) => r.source === 'auth:jwt'), tail.stdout + tail.stderr).toMatchObject({ agent: 'dee' });
    expect(rows.find((r) => r.source === 'auth:jwt')!.rationale).toContain(ISSUER);

    const refused = {
      expired: await sign({ sub: 'dee' }, { exp: Math.floor(Date.now() / 1000) - 3600 }),
      audience: await sign({ sub: 'dee' }, { aud: 'someone-else' }),
      key: await sign({ sub: 'dee' }, { k: otherKey.privateKey }),
      none: new UnsecuredJWT({ sub: 'dee' }).setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime('5m').encode(),
    };
    for (const [what, token] of Object.entries(refused)) {
      const r = await fetch(at('helper'), {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
      });
      const body = await r.text();
      expect(r.status, `${what}: ${body}`).toBe(401);
      expect(body).not.toMatch(/quadguard-a2a-e2e|idp\.example|k1/);
    }
  }, 30_000);

  it('starts with an agent whose card cannot be read, answers a clear error for it, and uses it once it is up', async () => {
    const card = await fetch(`${at('late')}/.well-known/agent-card.json`, { headers: { Authorization: `Bearer ${tokenOf('eve')}` } });
    expect(card.status).toBe(502);
    expect(((await card.json()) as { error: { message: string } }).error.message).toContain(`A2A agent "late" at http://127.0.0.1:${latePort} could not be reached`);
    const call = await fetch(at('late'), {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokenOf('eve')}`, 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'anyone?' }] } } }),
    });
    expect(((await call.json()) as { error?: { message: string } }).error?.message).toContain('A2A agent "late"');

    late = await startA2AAgent('--port', String(latePort));
    const eve = await as('eve', 'late');
    expect(textOf(await eve.sendMessage(send('you are up')))).toBe('echo: you are up');
  }, 30_000);
});
