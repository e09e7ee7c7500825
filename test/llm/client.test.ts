import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, LlmError } from '../../src/core/errors.js';
import { LlmClient, LOCAL_DUMMY_API_KEY, resolveApiKey } from '../../src/llm/client.js';
import { UsageMeter } from '../../src/llm/usage.js';
import { useScriptedLlmServer, startScriptedLlmServer } from '../support/scripted-llm-server.js';
import { clientFor } from './helpers.js';

const Answer = z.object({ ok: z.boolean() });
const req = (user = 'u', tier: 'light' | 'strong' = 'light') => ({ tier, system: 'sys', user, schemaTag: 'test/v1' });

async function rejection(p: Promise<unknown>): Promise<LlmError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LlmError);
  return err as LlmError;
}

describe('LlmClient', () => {
  const llm = useScriptedLlmServer({ per: 'test' });

  it('sends a deterministic, tool-less JSON-mode request per tier and accounts usage', async () => {
    llm.script({ content: { ok: true }, usage: { prompt_tokens: 30, completion_tokens: 4 } }, { content: { ok: false } });
    const client = clientFor(llm);
    const meter = new UsageMeter();
    const a = await client.chatJson(req('one'), Answer, { meter });
    const b = await client.chatJson(req('two', 'strong'), Answer, { meter });
    expect(a.value).toEqual({ ok: true });
    expect(b.value).toEqual({ ok: false });
    expect(a.usage).toMatchObject({ calls: 1, promptTokens: 30, completionTokens: 4, retries: 0, failures: 0, cacheHits: 0 });
    const [r1, r2] = llm.chatRequests;
    expect(r1!.body).toMatchObject({ model: 'light-m', temperature: 0, max_tokens: 400, response_format: { type: 'json_object' } });
    expect(r1!.body.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'one' },
    ]);
    expect(r2!.body.model).toBe('strong-m');
    for (const r of llm.chatRequests) {
      expect(r.body.tools).toBeUndefined();
      expect(r.body.tool_choice).toBeUndefined();
      expect(r.body.functions).toBeUndefined();
      expect(r.headers.authorization).toBe(`Bearer ${LOCAL_DUMMY_API_KEY}`);
    }
    expect(meter.total).toMatchObject({ calls: 2, promptTokens: 41, completionTokens: 11 });
    expect(client.totals.calls).toBe(2);
  });

  it('retries 500 and 429 (honouring retry-after) up to max_retries, counting requests', async () => {
    llm.script({ status: 500 }, { status: 429, retryAfter: 0 }, { content: { ok: true } });
    const client = clientFor(llm, { max_retries: 2 });
    const r = await client.chatJson(req(), Answer);
    expect(r.value.ok).toBe(true);
    expect(llm.chatRequests).toHaveLength(3);
    expect(r.usage).toMatchObject({ calls: 3, retries: 2, failures: 0 });
  });

  it('gives up after max_retries with llm_unavailable', async () => {
    llm.script({ status: 503 }, { status: 502 }, { status: 500 }, { content: { ok: true } });
    const client = clientFor(llm, { max_retries: 2 });
    const meter = new UsageMeter();
    const err = await rejection(client.chatJson(req(), Answer, { meter }));
    expect(err.code).toBe('llm_unavailable');
    expect(llm.chatRequests).toHaveLength(3);
    expect(meter.total).toMatchObject({ calls: 3, retries: 2, failures: 1 });
  });

  it('waits for a 429 retry-after (capped by retryMaxMs)', async () => {
    llm.script({ status: 429, retryAfter: 3 }, { content: { ok: true } });
    const client = clientFor(llm, {}, { retryMaxMs: 300 });
    const t0 = Date.now();
    await client.chatJson(req(), Answer);
    const dt = Date.now() - t0;
    expect(dt).toBeGreaterThanOrEqual(280); // 3 s requested, capped at 300 ms
    expect(dt).toBeLessThan(2500);
  });

  it('does not retry a 400: llm_refused after exactly one request', async () => {
    llm.script({ status: 400, message: 'content policy violation' }, { content: { ok: true } });
    const err = await rejection(clientFor(llm).chatJson(req(), Answer));
    expect(err.code).toBe('llm_refused');
    expect(llm.chatRequests).toHaveLength(1);
  });

  it('a refusal field is llm_refused, and is not retried', async () => {
    llm.script({ refusal: "I can't help with that." });
    const err = await rejection(clientFor(llm).chatJson(req(), Answer));
    expect(err.code).toBe('llm_refused');
    expect(llm.chatRequests).toHaveLength(1);
  });

  it('non-JSON bodies and answers, and schema mismatches, are llm_malformed_output', async () => {
    const client = clientFor(llm);
    llm.script({ garbage: '<html>oops' });
    expect((await rejection(client.chatJson(req('a'), Answer))).code).toBe('llm_malformed_output');
    llm.script({ content: 'Sure! The answer is {"ok": true}' });
    expect((await rejection(client.chatJson(req('b'), Answer))).code).toBe('llm_malformed_output');
    llm.script({ content: { ok: 'yes' } });
    expect((await rejection(client.chatJson(req('c'), Answer))).code).toBe('llm_malformed_output');
    expect(llm.chatRequests).toHaveLength(3);
  });

  it('times out a slow answer per attempt, retries, and never hangs past the bound', async () => {
    llm.script({ content: { ok: true }, delayMs: 1500 }, { hang: true });
    const client = clientFor(llm, { timeout_ms: 150, max_retries: 1 });
    const t0 = Date.now();
    const err = await rejection(client.chatJson(req(), Answer));
    expect(err.code).toBe('llm_timeout');
    expect(llm.chatRequests).toHaveLength(2);
    expect(Date.now() - t0).toBeLessThan(1400); // 2 × 150 ms, far below the 1.5 s answer and the hang
    await new Promise((r) => setTimeout(r, 50));
    expect(llm.inFlight).toBe(0); // both requests were really aborted
  });

  it("the caller's signal aborts at once with llm_aborted, without retrying", async () => {
    llm.script({ hang: true }, { content: { ok: true } });
    const client = clientFor(llm, { timeout_ms: 5000 });
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(new Error('guard deadline')), 100);
    const t0 = Date.now();
    const err = await rejection(client.chatJson(req(), Answer, { signal: ctrl.signal }));
    expect(err.code).toBe('llm_aborted');
    expect(Date.now() - t0).toBeLessThan(2500); // the attempt timeout is 5 s
    expect(llm.chatRequests).toHaveLength(1);
  });

  it('an unreachable endpoint is llm_unavailable after the retries', async () => {
    const gone = await startScriptedLlmServer();
    const url = gone.baseUrl;
    await gone.close();
    const client = new LlmClient({ base_url: url, models: { light: 'l', strong: 's' }, max_retries: 1, timeout_ms: 1000 }, { env: {}, retryBaseMs: 1 });
    const meter = new UsageMeter();
    const err = await rejection(client.chatJson(req(), Answer, { meter }));
    expect(err.code).toBe('llm_unavailable');
    expect(meter.total.calls).toBe(2);
  });

  it('caches identical evaluations: the second call sends no request', async () => {
    llm.script({ content: { ok: true } }, { content: { ok: false } }, { content: { ok: false } });
    const client = clientFor(llm);
    const a = await client.chatJson(req('same'), Answer);
    const b = await client.chatJson(req('same'), Answer);
    expect(b.value).toEqual(a.value);
    expect(b.cached).toBe(true);
    expect(b.usage).toMatchObject({ calls: 0, cacheHits: 1 });
    expect(llm.chatRequests).toHaveLength(1);
    // Another tier, prompt or schema tag is another entry.
    await client.chatJson(req('same', 'strong'), Answer);
    await client.chatJson({ ...req('same'), schemaTag: 'other/v1' }, Answer);
    expect(llm.chatRequests).toHaveLength(3);
  });

  it('does not cache failed evaluations, and cache_size 0 disables the cache', async () => {
    llm.script({ content: 'nope' }, { content: { ok: true } });
    const client = clientFor(llm);
    await rejection(client.chatJson(req('x'), Answer));
    expect((await client.chatJson(req('x'), Answer)).value.ok).toBe(true);
    const uncached = clientFor(llm, { cache_size: 0 });
    llm.script({ content: { ok: true } }, { content: { ok: true } });
    await uncached.chatJson(req('y'), Answer);
    await uncached.chatJson(req('y'), Answer);
    expect(llm.chatRequests).toHaveLength(4);
  });

  it('keeps at most `concurrency` requests in flight, measured at the server', async () => {
    llm.when(() => true, { content: { ok: true }, delayMs: 80 });
    const client = clientFor(llm, { concurrency: 3, cache_size: 0 });
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => client.chatJson(req(`q${i}`), Answer)));
    expect(all).toHaveLength(10);
    expect(llm.chatRequests).toHaveLength(10);
    expect(llm.maxInFlight).toBe(3);
  });

  it('a queued call gives up with llm_timeout when no slot frees in time', async () => {
    llm.script({ hang: true });
    const client = clientFor(llm, { concurrency: 1, timeout_ms: 200, max_retries: 0 });
    const first = client.chatJson(req('a'), Answer);
    const second = client.chatJson(req('b'), Answer);
    const [e1, e2] = await Promise.all([rejection(first), rejection(second)]);
    expect(e1.code).toBe('llm_timeout');
    expect(e2.code).toBe('llm_timeout');
    expect(llm.chatRequests).toHaveLength(1);
  });

  it('falls back once without response_format when the endpoint rejects JSON mode, and remembers it', async () => {
    llm.script({ status: 400, message: "Unsupported parameter: 'response_format'" }, { content: { ok: true } }, { content: { ok: true } });
    const client = clientFor(llm);
    expect((await client.chatJson(req('a'), Answer)).value.ok).toBe(true);
    await client.chatJson(req('b'), Answer);
    const bodies = llm.chatRequests.map((r) => r.body);
    expect(bodies[0].response_format).toEqual({ type: 'json_object' });
    expect(bodies[1].response_format).toBeUndefined();
    expect(bodies[2].response_format).toBeUndefined();
  });

  it('uses the key from api_key_env; a dummy key only for loopback endpoints', async () => {
    llm.script({ content: { ok: true } });
    const client = clientFor(llm, { api_key_env: 'QG_TEST_KEY' }, { env: { QG_TEST_KEY: 'sk-from-env' } });
    await client.chatJson(req(), Answer);
    expect(llm.chatRequests[0]!.headers.authorization).toBe('Bearer sk-from-env');
    expect(resolveApiKey({ base_url: 'http://localhost:8080/v1', api_key_env: 'X' }, {})).toBe(LOCAL_DUMMY_API_KEY);
    expect(resolveApiKey({ base_url: 'http://[::1]:8080/v1', api_key_env: 'X' }, {})).toBe(LOCAL_DUMMY_API_KEY);
    expect(() => resolveApiKey({ base_url: 'https://api.openai.com/v1', api_key_env: 'X' }, {})).toThrow(ConfigError);
    expect(() => new LlmClient({ base_url: 'https://example.com/v1', models: { light: 'a', strong: 'b' } }, { env: {} })).toThrow(/OPENAI_API_KEY/);
  });

  it('rejects an invalid config with ConfigError', () => {
    expect(() => new LlmClient({ models: { light: 'a', strong: 'b' }, concurrency: 0 } as never, { env: {} })).toThrow(ConfigError);
    expect(() => new LlmClient({ models: { light: 'a', strong: 'b' }, api_key_env: 'sk-123 secret' }, { env: {} })).toThrow(/NAME of an environment variable/);
    expect(() => new LlmClient({ models: { light: 'a', strong: 'b' }, base_url: 'file:///etc/passwd' }, { env: {} })).toThrow(/http\(s\) URL/);
  });
});
