import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeDecision, type Witness } from '../../../src/core/types.js';
import type { RuleOutcome } from '../../../src/guard/referee.js';
import { newContext, redaction } from '../../../src/guard/stages/index.js';
import type { TrackResult } from '../../../src/guard/tracker.js';
import { envFor, interaction } from './support.js';

const text = 'your key is AKIAIOSFODNN7EXAMPLE, keep it safe';
const result = interaction({ kind: 'tool_result', server: 'files', tool: 'read_file', content: [{ type: 'text', text }] });
const witness: Witness = { rule: 'mask-keys', predicates: { secret_in_result: 'true' }, confidence: 1 };
const outcome = { id: 'mask-keys', status: 'violated', witness } as unknown as RuleOutcome;

function ctxWith(spans: Array<{ field: string; start: number; end: number }>, decision = makeDecision({ decision: 'allow', rationale: 'Allowed. redacted per mask-keys', rules: ['mask-keys'] })) {
  const ctx = newContext(result);
  ctx.track = { values: new Map([['secret_in_result', { value: 'true', spans }]]) } as unknown as TrackResult;
  ctx.verdict = { decision, redact: [outcome], hold: [] };
  ctx.decision = decision;
  return ctx;
}

describe('stage redaction (effect: redact)', () => {
  let env: Awaited<ReturnType<typeof envFor>>;
  beforeEach(async () => {
    env = await envFor();
  });
  afterEach(() => env.close());

  it('masks the matched text of an allowed result', async () => {
    const start = text.indexOf('AKIA');
    const ctx = ctxWith([{ field: 'content', start, end: start + 20 }]);
    await redaction.run(ctx, env);
    expect(ctx.decision?.decision).toBe('allow');
    const shown = JSON.stringify(ctx.decision?.replacement);
    expect(shown).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(shown).toContain('keep it safe');
  });

  it('withholds the result when the matched text cannot be located (fail closed)', async () => {
    const ctx = ctxWith([]);
    await redaction.run(ctx, env);
    expect(ctx.final).toBe(true);
    expect(ctx.decision).toMatchObject({ decision: 'deny', rules: ['mask-keys'] });
    expect(ctx.decision?.rationale).toMatch(/could not be located, so the result is withheld/);
  });

  it('does nothing to a denial', async () => {
    const denied = makeDecision({ decision: 'deny', rationale: 'no', rules: ['other'] });
    const ctx = ctxWith([{ field: 'content', start: 0, end: 4 }], denied);
    await redaction.run(ctx, env);
    expect(ctx.decision).toBe(denied);
  });
});
