/**
 * Cost of the model layer on the real pipeline: the default book over the dev cases whose policy is `default`
 * (BIPIA, AgentDojo injection, AgentHarm), replayed with `runEval` through the eval guard factory, once
 * deterministic and once per model latency against the scripted OpenAI-compatible server on 127.0.0.1 (no
 * network). The scripted model never changes a decision (tracker: no updates; referee: light deny → strong deny;
 * threat watcher in `complement` mode: same level), so the figures isolate cost: model calls and tokens per
 * interaction, the share of interactions that reach a model at all, and added latency vs the deterministic run.
 *
 *   npx tsx bench/llm-pipeline.ts [dataDir] [--latencies 0,50,200] [--limit N]
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipelineGuardFactory } from '../src/eval/guard-factory.js';
import { loadCases } from '../src/eval/load-cases.js';
import { runEval, type EvalRun } from '../src/eval/run.js';
import { createGuardModel } from '../src/guard/model/index.js';
import { LlmClient } from '../src/llm/client.js';
import { REFEREE_SYSTEM } from '../src/llm/prompts/referee.js';
import { STATE_TRACKER_SYSTEM } from '../src/llm/prompts/state-tracker.js';
import { THREAT_WATCHER_SYSTEM } from '../src/llm/prompts/threat-watcher.js';
import { startScriptedLlmServer } from '../test/support/scripted-llm-server.js';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const positional = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
const dir = resolve(positional[0] ?? join(process.cwd(), '../shared/data/eval/dev'));
const latencies = (flag('--latencies') ?? '0,50,200').split(',').map(Number);
const limit = flag('--limit') !== undefined ? Number(flag('--limit')) : undefined;
const FILES = ['bipia.jsonl', 'agentdojo-injection.jsonl', 'agentharm.jsonl'];

const present = FILES.map((f) => join(dir, f)).filter((p) => existsSync(p));
if (present.length === 0) {
  console.log(`no dev cases under ${dir} (${FILES.join(', ')}); skipped`);
  process.exit(0);
}
let cases = [];
for (const p of present) cases.push(...(await loadCases(p)).map((l) => l.case).filter((c) => c.policy === 'default'));
if (limit !== undefined) cases = cases.slice(0, limit);
const policies = join(process.cwd(), 'policies');
const guardFor = pipelineGuardFactory(policies);

/** Per-step figures of one run. */
function summarize(run: EvalRun) {
  const steps = run.cases.flatMap((c) => c.steps);
  const n = steps.length;
  const calls = steps.reduce((s, x) => s + (x.llm?.calls ?? 0), 0);
  const tokens = steps.reduce((s, x) => s + (x.llm ? x.llm.promptTokens + x.llm.completionTokens : 0), 0);
  const reached = steps.filter((x) => (x.llm?.calls ?? 0) > 0).length;
  const ms = steps.map((x) => x.elapsedMs).sort((a, b) => a - b);
  const mean = ms.reduce((s, x) => s + x, 0) / Math.max(1, n);
  const p95 = ms[Math.min(n - 1, Math.floor(n * 0.95))] ?? 0;
  const decisions = run.cases.map((c) => c.actual);
  return { n, calls, tokens, reached, mean, p95, decisions, wall: run.elapsedMs };
}

console.log(`${cases.length} cases (policy default) from ${present.map((p) => p.split('/').pop()).join(', ')}`);
await runEval(cases.slice(0, 5), { guardFor }); // warm-up: book compile, detector init
const t0 = performance.now();
const base = summarize(await runEval(cases, { guardFor }));
console.log(`deterministic: ${base.n} interactions, mean ${base.mean.toFixed(2)} ms, p95 ${base.p95.toFixed(2)} ms per interaction (run ${((performance.now() - t0) / 1000).toFixed(1)} s)`);

const header = ['model ms', 'calls/int', 'tokens/int', 'reach model', 'tracker/referee/threat calls', 'mean ms', 'p95 ms', 'added mean ms', 'same decisions'];
const rows: string[][] = [];
for (const latency of latencies) {
  const llm = await startScriptedLlmServer();
  const usage = { prompt_tokens: 0, completion_tokens: 0 };
  llm.when((b) => b?.messages?.[0]?.content === STATE_TRACKER_SYSTEM, (b) => ({ content: { updates: [] }, usage: { ...usage, prompt_tokens: promptTokens(b), completion_tokens: 8 }, delayMs: latency }));
  llm.when((b) => b?.messages?.[0]?.content === REFEREE_SYSTEM, (b) => ({ content: { verdict: 'deny', confidence: 0.8, reason: 'the witness holds' }, usage: { prompt_tokens: promptTokens(b), completion_tokens: 20 }, delayMs: latency }));
  llm.when((b) => b?.messages?.[0]?.content === THREAT_WATCHER_SYSTEM, (b) => ({
    content: { threat_level: JSON.parse(b.messages[1].content).current_level, reason: 'no change' },
    usage: { prompt_tokens: promptTokens(b), completion_tokens: 12 },
    delayMs: latency,
  }));
  const client = new LlmClient({ base_url: llm.baseUrl, models: { light: 'light', strong: 'strong' }, timeout_ms: 5000, max_retries: 0, cache_size: 0 }, { env: {} });
  const modelGuardFor = pipelineGuardFactory(policies, { settings: { model: { watcher: 'complement' } }, modelFor: () => createGuardModel(client, { watcher: 'complement' }) });
  try {
    const r = summarize(await runEval(cases, { guardFor: modelGuardFor }));
    const same = r.decisions.filter((d, i) => d === base.decisions[i]).length;
    const by = (system: string) => llm.chatRequests.filter((q) => q.body?.messages?.[0]?.content === system).length;
    rows.push([
      String(latency),
      (r.calls / r.n).toFixed(3),
      (r.tokens / r.n).toFixed(1),
      `${((100 * r.reached) / r.n).toFixed(1)}% (${r.reached})`,
      `${by(STATE_TRACKER_SYSTEM)}/${by(REFEREE_SYSTEM)}/${by(THREAT_WATCHER_SYSTEM)}`,
      r.mean.toFixed(2),
      r.p95.toFixed(2),
      (r.mean - base.mean).toFixed(2),
      `${same}/${r.decisions.length}`,
    ]);
  } finally {
    await llm.close();
  }
}
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join('  ');
console.log(line(header));
for (const r of rows) console.log(line(r));

/** A rough prompt token count (the scripted server has no tokenizer): characters / 4. */
function promptTokens(body: any): number {
  return Math.ceil(((body?.messages?.[0]?.content?.length ?? 0) + (body?.messages?.[1]?.content?.length ?? 0)) / 4);
}
