/**
 * Overhead of the model layer: the same scripted answer fetched with a bare `fetch` and through `LlmClient`
 * (slot, timeout, retry bookkeeping, JSON-mode request, structured parse) and through the evaluator
 * (neutralisation, prompt building). Everything runs against the scripted server on 127.0.0.1; prints medians and
 * the ratios. Run: `npx tsx bench/llm-latency.ts [iterations]`.
 */
import { LlmClient } from '../src/llm/client.js';
import { evaluateSemanticPredicates } from '../src/llm/evaluators/predicates.js';
import { StateTrackerAnswerSchema } from '../src/llm/prompts/state-tracker.js';
import { startScriptedLlmServer } from '../test/support/scripted-llm-server.js';

const N = Number(process.argv[2] ?? 200);
const llm = await startScriptedLlmServer();
llm.when(() => true, { content: { updates: [{ name: 'p0', value: true, confidence: 0.9 }] } });
const client = new LlmClient({ base_url: llm.baseUrl, models: { light: 'l', strong: 's' }, cache_size: 0 }, { env: {} });
const interaction = { kind: 'tool_call' as const, agent: 'a', session: 's', profile: {}, server: 'mail', tool: 'send', arguments: { to: 'x@example.com', body: 'hello '.repeat(50) } };
const predicates = Array.from({ length: 8 }, (_, i) => ({ name: `p${i}`, description: `predicate number ${i}`, keywords: ['k'] }));

async function time(label: string, f: (i: number) => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await f(i);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const median = ms[Math.floor(ms.length / 2)]!;
  console.log(`${label.padEnd(28)} median ${median.toFixed(3)} ms  p95 ${ms[Math.floor(ms.length * 0.95)]!.toFixed(3)} ms`);
  return median;
}

const raw = await time('bare fetch', () =>
  fetch(`${llm.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'l', messages: [] }) }).then((r) => r.json()),
);
const viaClient = await time('LlmClient.chatJson', (i) =>
  client.chatJson({ tier: 'light', system: 's', user: `u${i}`, schemaTag: 'bench' }, StateTrackerAnswerSchema),
);
const viaEval = await time('evaluateSemanticPredicates', (i) =>
  evaluateSemanticPredicates(client, { predicates, interaction: { ...interaction, session: `s${i}` }, observations: ['earlier'] }),
);
console.log(`client / bare fetch: ${(viaClient / raw).toFixed(2)}x; evaluator / bare fetch: ${(viaEval / raw).toFixed(2)}x`);
await llm.close();
