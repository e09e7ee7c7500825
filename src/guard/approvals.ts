import { canonicalJson, sha256Hex } from '../core/canonical.js';
import type { ApprovalBinding } from '../store/approvals.js';
import type { GuardStore } from '../store/engine.js';
import { KINDS } from '../core/kinds.js';
import { contentOf, makeDecision, type Decision, type Interaction } from '../core/types.js';

/**
 * The approve path of the pipeline: what a referee HOLD (rules with `effect: approve`) becomes.
 *
 * A held interaction is bound to the agent, the kind, the exact target (server and tool; the URI of a resource
 * request; the prompt and its arguments; the recipient of a message) and the sha256 of the canonical JSON of its arguments (key order does not
 * matter, every value does). If a person has approved that binding and the approval is unexpired and unused,
 * the interaction is allowed and the approval is spent (single use); otherwise it is denied with the id of a
 * pending approval (created, or the one already waiting for the same binding). Results (tool, resource,
 * prompt) cannot be held (the call already ran): a hold there is a plain denial. The lifetime of a request is
 * the pipeline option `approval_ttl_ms` (config `guard.approval_ttl_ms`, default 15 minutes).
 */

/**
 * The binding of an interaction, or undefined for kinds that cannot wait for a person (results: `holdable` is
 * false in core/kinds.ts, the call already ran).
 */
export function approvalBinding(i: Interaction): ApprovalBinding | undefined {
  if (!KINDS[i.kind].holdable) return undefined;
  const base = { agent: i.agent, kind: i.kind };
  switch (i.kind) {
    case 'tool_call':
      return { ...base, server: i.server, tool: i.tool, argsHash: argsHash(i.arguments ?? {}) };
    case 'resource_request':
      return { ...base, server: i.server, tool: i.uri, argsHash: argsHash({ uri: i.uri }) };
    case 'prompt_request':
      return { ...base, server: i.server, tool: i.prompt, argsHash: argsHash({ prompt: i.prompt, arguments: i.arguments ?? {} }) };
    case 'message':
      return { ...base, tool: i.recipient, argsHash: argsHash({ recipient: i.recipient ?? null, content: i.content ?? null }) };
    default:
      return undefined;
  }
}

/** sha256 of the canonical JSON of a value: what an approval binds to. */
export function argsHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** The text a person sees when deciding (masked and capped by the store). */
function previewOf(i: Interaction): string {
  if (i.kind === 'tool_call') return canonicalJson(i.arguments ?? {});
  if (i.kind === 'prompt_request') return `${i.prompt} ${canonicalJson(i.arguments ?? {})}`;
  if (i.kind === 'resource_request' || i.kind === 'resource_result') return i.uri;
  const content = contentOf(i);
  return typeof content === 'string' ? content : canonicalJson(content ?? null);
}

/**
 * Turns the referee's hold into the final decision: a single allow from a matching approval, or a denial that
 * carries `detail.approval = { id, status, expiresAt }` and says how a person approves it.
 */
export async function resolveHold(store: GuardStore, i: Interaction, held: Decision, opts: { ttlMs: number; now: number }): Promise<Decision> {
  const binding = approvalBinding(i);
  if (!binding) {
    return makeDecision({
      ...held,
      source: 'pipeline',
      rationale: `${held.rationale.replace(/^Held for approval by QuadGuard: /, 'Denied by policy: ')} (this rule asks for a person's approval, but a ${KINDS[i.kind].label} cannot be held: it is denied)`,
    });
  }
  const used = await store.approvals.consume(binding, opts.now);
  if (used) {
    return makeDecision({
      decision: 'allow',
      rationale: `Allowed by approval ${used.id} (approved by ${used.decidedBy ?? 'unknown'}): this exact call was held by ${held.rules.map((r) => `\`${r}\``).join(', ')} and a person approved it; the approval is now used.`,
      rules: [],
      flagged: [...held.rules, ...held.flagged],
      witness: held.witness,
      threatLevel: held.threatLevel,
      source: 'approval',
      detail: { ...held.detail, approval: { id: used.id, status: used.status, expiresAt: used.expires } },
    });
  }
  const { approval } = await store.approvals.request({
    ...binding,
    session: i.session,
    rules: held.rules,
    rationale: held.rationale,
    preview: previewOf(i),
    ttlMs: opts.ttlMs,
    now: opts.now,
  });
  const expires = new Date(approval.expires).toISOString();
  // The rationale says why and under which id it waits; how to get it through is said once, in the remediation.
  return makeDecision({
    ...held,
    decision: 'deny',
    rationale: `${held.rationale} The call was not forwarded: it waits under approval id ${approval.id} until ${expires}.`,
    remediation: `${held.remediation ? `${held.remediation} ` : ''}Ask a person to approve ${approval.id} (\`quadguard approve ${approval.id}\` or the live view), then retry exactly the same call (same tool, same arguments) before ${expires}; a changed call needs its own approval.`,
    source: 'approval',
    detail: { ...held.detail, approval: { id: approval.id, status: approval.status, expiresAt: approval.expires } },
  });
}
