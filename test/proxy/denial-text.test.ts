import { describe, expect, it } from 'vitest';
import { makeDecision, type Decision } from '../../src/core/types.js';
import { referee, type RuleOutcome } from '../../src/guard/referee.js';
import { RuleSchema } from '../../src/policy/schema.js';
import { denialText } from '../../src/proxy/denial.js';
import { messageResult } from '../../src/proxy/message-tool.js';

/** A denial as the real referee makes it, with the audit id the pipeline adds. */
async function refereeDenial(): Promise<Decision> {
  const def = RuleSchema.parse({
    id: 'no-secret-publish',
    text: 'Never publish a secret.',
    applies_to: ['tool_call'],
    formula: 'G !(sensitive_info & publish_content)',
    severity: 'high',
    hard: true,
    remediation: 'Remove the secret from the content, or ask the user to publish it themselves.',
  });
  const outcome: RuleOutcome = { id: def.id, def, onUnknown: 'deny', status: 'violated', witness: { rule: def.id, predicates: { sensitive_info: 'true', publish_content: 'true' }, confidence: 1 } };
  const { decision } = await referee({ kind: 'tool_call', outcomes: [outcome], threatLevel: 0, denyAtRank: [1] });
  return makeDecision({ ...decision, auditId: '42-3fa9c1d2' });
}

describe('the denial text', () => {
  it('is one message: what was blocked, the rule with its witness, what to do instead, the decision id', async () => {
    const d = await refereeDenial();
    expect(denialText(d, { what: 'call to tool', name: 'notes__publish' })).toMatchInlineSnapshot(`
      "Blocked by QuadGuard: the call to tool notes__publish was not allowed.
      Rule \`no-secret-publish\` (high, hard) violated: "Never publish a secret." — witness: sensitive_info, publish_content.
      What to do instead: Remove the secret from the content, or ask the user to publish it themselves.
      Decision id: 42-3fa9c1d2"
    `);
  });

  it('has the same shape on every surface and says nothing twice', async () => {
    const d = await refereeDenial();
    const surfaces = [
      denialText(d, { what: 'call to tool', name: 'notes__publish' }),
      denialText(d, { what: 'result of tool', name: 'notes__publish' }),
      denialText(d, { what: 'read of resource', name: 'notes+file:///secret' }),
      denialText(d, { what: 'prompt', name: 'notes__summarize' }),
      (JSON.parse((messageResult(d, 'mail-agent').content[0] as { text: string }).text) as { message: string }).message,
    ];
    for (const t of surfaces) {
      const lines = t.split('\n');
      expect(lines).toHaveLength(4);
      expect(lines[0]).toMatch(/^Blocked by QuadGuard: the .+ was not allowed\.$/);
      expect(lines[1]).toBe(surfaces[0]!.split('\n')[1]);
      expect(t.match(/What to do instead/g)).toHaveLength(1);
      expect(t.match(/no-secret-publish/g)).toHaveLength(1);
      expect(t.match(/sensitive_info/g)).toHaveLength(1);
    }
    expect(surfaces[4]!.split('\n')[0]).toBe('Blocked by QuadGuard: the message to mail-agent was not allowed.');
  });

  it('names the rule and witness of a denial whose rationale does not, and falls back to a generic remedy', () => {
    const d = makeDecision({ decision: 'deny', rationale: 'the text is a secret', rules: ['test-rule'], witness: [{ rule: 'test-rule', predicates: { sensitive_info: 'true' }, confidence: 1 }] });
    expect(denialText(d, { what: 'call to tool', name: 'bad__echo' })).toMatchInlineSnapshot(`
      "Blocked by QuadGuard: the call to tool bad__echo was not allowed.
      The text is a secret. Rule: \`test-rule\`. Witness: sensitive_info.
      What to do instead: do not retry this as is; choose a different action or ask the user."
    `);
  });

  it('says how to get a held call through once, in "what to do instead"', () => {
    const d = makeDecision({
      decision: 'deny',
      source: 'approval',
      rationale: 'Held for approval by QuadGuard: rule `pay-needs-ok` (medium) violated: "Payments need a person\'s OK." — witness: payment. The call was not forwarded: it waits under approval id ap_1 until 2026-11-22T18:00:00.000Z.',
      rules: ['pay-needs-ok'],
      witness: [{ rule: 'pay-needs-ok', predicates: { payment: 'true' }, confidence: 1 }],
      remediation: 'Ask a person to approve ap_1 (`quadguard approve ap_1` or the live view), then retry exactly the same call.',
      detail: { approval: { id: 'ap_1', status: 'pending', expiresAt: 0 } },
      auditId: '7-00aa11bb',
    });
    expect(denialText(d, { what: 'call to tool', name: 'bank__pay' })).toMatchInlineSnapshot(`
      "Held for approval by QuadGuard: the call to tool bank__pay needs a person's approval.
      Rule \`pay-needs-ok\` (medium) violated: "Payments need a person's OK." — witness: payment. The call was not forwarded: it waits under approval id ap_1 until 2026-11-22T18:00:00.000Z.
      What to do instead: Ask a person to approve ap_1 (\`quadguard approve ap_1\` or the live view), then retry exactly the same call.
      Decision id: 7-00aa11bb"
    `);
  });
});
