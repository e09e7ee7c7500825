import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deterministicEmbedding, startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('scripted OpenAI-compatible server', () => {
  let llm: ScriptedLlmServer;
  beforeEach(async () => {
    llm = await startScriptedLlmServer();
  });
  afterEach(async () => {
    await llm.close();
  });

  it('answers scripted replies in order in the chat wire format and records bodies', async () => {
    llm.script({ content: { a: 1 } }, { status: 429, retryAfter: 3 }, { garbage: 'not json' }, { refusal: 'no' });
    const r1 = await post(`${llm.baseUrl}/chat/completions`, { model: 'm', messages: [] });
    const j1: any = await r1.json();
    expect(j1.choices[0].message.content).toBe('{"a":1}');
    expect(j1.usage.total_tokens).toBe(18);
    const r2 = await post(`${llm.baseUrl}/chat/completions`, { model: 'm' });
    expect(r2.status).toBe(429);
    expect(r2.headers.get('retry-after')).toBe('3');
    expect(await (await post(`${llm.baseUrl}/chat/completions`, {})).text()).toBe('not json');
    const j4: any = await (await post(`${llm.baseUrl}/chat/completions`, {})).json();
    expect(j4.choices[0].message).toMatchObject({ content: null, refusal: 'no' });
    expect(llm.chatRequests.map((r) => r.body?.model)).toEqual(['m', 'm', undefined, undefined]);
    // Nothing scripted any more: a 500 that says so.
    expect((await post(`${llm.baseUrl}/chat/completions`, {})).status).toBe(500);
  });

  it('uses matchers after the queue, and deterministic embeddings when none are scripted', async () => {
    llm.when((b) => b?.model === 'x', (b) => ({ content: `echo ${b.model}` }));
    const j: any = await (await post(`${llm.baseUrl}/chat/completions`, { model: 'x' })).json();
    expect(j.choices[0].message.content).toBe('echo x');
    const e: any = await (await post(`${llm.baseUrl}/embeddings`, { model: 'e', input: ['a', 'b'] })).json();
    expect(e.data).toHaveLength(2);
    expect(e.data[0].embedding).toEqual(deterministicEmbedding('a'));
    expect(deterministicEmbedding('a')).toEqual(deterministicEmbedding('a'));
    expect(deterministicEmbedding('a')).not.toEqual(deterministicEmbedding('b'));
    expect(Math.hypot(...deterministicEmbedding('a', 40))).toBeCloseTo(1, 6);
  });

  it('hangs until the client gives up, and counts requests in flight', async () => {
    llm.script({ hang: true }, { hang: true });
    const ctrl = new AbortController();
    const a = post(`${llm.baseUrl}/chat/completions`, {}).catch(() => 'aborted');
    const b = fetch(`${llm.baseUrl}/chat/completions`, { method: 'POST', body: '{}', signal: ctrl.signal }).catch(() => 'aborted');
    await new Promise((r) => setTimeout(r, 100));
    expect(llm.inFlight).toBe(2);
    ctrl.abort();
    expect(await b).toBe('aborted');
    await llm.close(); // closing ends the other hanging request too
    expect(await a).toBe('aborted');
    expect(llm.maxInFlight).toBe(2);
    llm = await startScriptedLlmServer(); // for afterEach
  });
});
