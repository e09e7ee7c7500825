import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { runEvalCommand } from '../../src/cli/eval.js';
import { startScriptedLlmServer, type ScriptedLlmServer } from '../support/scripted-llm-server.js';
import { BOOK, is, updates } from './helpers.js';

/** `quadguard eval --config FILE`: the llm: section drives every case guard, and detail.llm reaches the report. */
describe('eval with --config (a model)', () => {
  let llm: ScriptedLlmServer;
  let dir: string;
  beforeAll(async () => {
    llm = await startScriptedLlmServer();
    dir = mkdtempSync(join(tmpdir(), 'qg-evalcfg-'));
    mkdirSync(join(dir, 'policies'));
    cpSync(BOOK, join(dir, 'policies', 'mini'), { recursive: true });
    const step = (memo: string) => ({ kind: 'tool_call', server: 'bank', tool: 'balance', arguments: { account: 'a', memo } });
    const cases = [
      { id: 'c1', suite: 'mini', policy: 'mini', context: { agent: 'assistant' }, steps: [step('launder this')], expect: { decision: 'deny' } },
      { id: 'c2', suite: 'mini', policy: 'mini', context: { agent: 'assistant' }, steps: [step('monthly check')], expect: { decision: 'allow' } },
    ];
    writeFileSync(join(dir, 'cases.jsonl'), cases.map((c) => JSON.stringify(c)).join('\n'));
    writeFileSync(join(dir, 'quadguard.yaml'), YAML.stringify({ llm: { base_url: llm.baseUrl, models: { light: 'light-m', strong: 'strong-m' }, timeout_ms: 2000, max_retries: 0 } }));
  });
  afterAll(async () => {
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('decides the semantic predicate with the model and reports model usage; a later run without --config uses no model (no settings outlive a run)', async () => {
    llm.when(is('tracker', 'light'), (body) => (JSON.stringify(JSON.parse(body.messages[1].content).interaction).includes('launder') ? updates(['fraud_request', true, 0.9]) : updates()));
    const quiet = { write: () => true };
    const report = await runEvalCommand({ cases: join(dir, 'cases.jsonl'), policies: join(dir, 'policies'), config: join(dir, 'quadguard.yaml'), quiet: true }, { stdout: quiet, stderr: quiet as never });
    expect(JSON.stringify(report)).toContain('"promptTokens"');
    expect(llm.chatRequests).toHaveLength(2);
    expect(report.overall.accuracy).toBe(1);

    // without --config the semantic predicate stays unknown: c2 is denied on no-fraud's on_unknown, no request
    llm.reset();
    const det = await runEvalCommand({ cases: join(dir, 'cases.jsonl'), policies: join(dir, 'policies'), quiet: true }, { stdout: quiet, stderr: quiet as never });
    expect(det.overall.accuracy).toBe(0.5);
    expect(llm.requests).toHaveLength(0);
  });
});
