import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Decision } from '../core/types.js';

/**
 * The one place a `Decision` becomes an MCP answer (DESIGN §4, SDK brief §4).
 */

/** JSON-RPC error code for guard denials of resources/read and prompts/get (avoids −32000/−32001/−32002/−32042). */
export const GUARD_DENIED_CODE = -32010;
/** `_meta` key that carries the machine-readable decision. */
export const DECISION_META_KEY = 'io.github.quadguard/decision';

/** What was blocked, named the way the client sees it. */
export interface DenialSubject {
  /** e.g. `tools/call`, `tool result`, `resources/read`, `prompts/get`. */
  what: string;
  /** Exposed (namespaced) name or URI. */
  name: string;
}

/** The machine-readable form of a decision, as placed in `_meta` or `error.data`. */
export function decisionPayload(d: Decision): Record<string, unknown> {
  return {
    decision: d.decision,
    rationale: d.rationale,
    rules: d.rules,
    flagged: d.flagged,
    witness: d.witness,
    threatLevel: d.threatLevel,
    remediation: d.remediation,
    source: d.source,
    auditId: d.auditId,
    policy: d.policy,
    ...(d.detail.approval !== undefined ? { approval: d.detail.approval } : {}),
    ...(d.detail.retryAfterMs !== undefined ? { retryAfterMs: d.detail.retryAfterMs } : {}),
  };
}

/** What a model is told to do when neither the rule nor the stage that denied says it. */
export const DEFAULT_REMEDIATION = 'do not retry this as is; choose a different action or ask the user.';

/**
 * The one message a model (and a person reading the transcript) sees for a denial, on every surface: tool call,
 * tool result, resource read, prompt and guard_check_message. One line each, nothing said twice:
 *
 *     Blocked by QuadGuard: the call to tool fs__write_file was not allowed.
 *     Rule `no-secret-publish` (high) violated: "…" — witness: sensitive_info, publish_content.
 *     What to do instead: …
 *     Decision id: 42-3fa9c1d2
 *
 * The second line is the decision's rationale (the referee's states rule, policy sentence and witness; a rule id
 * or witness predicate the rationale does not name is added after it). A call held for approval starts "Held for
 * approval by QuadGuard" instead, and its "what to do" says how a person approves it.
 */
export function denialText(d: Decision, s: DenialSubject): string {
  const held = d.detail.approval !== undefined;
  const slowed = d.detail.retryAfterMs !== undefined;
  const subject = [s.what, s.name].filter((x) => x.length > 0).join(' ');
  const lines = [held
    ? `Held for approval by QuadGuard: the ${subject} needs a person's approval.`
    : slowed
      ? `Slowed by QuadGuard: the ${subject} was not carried out; retry after ${d.detail.retryAfterMs} ms.`
      : `Blocked by QuadGuard: the ${subject} was not allowed.`];
  let why = d.rationale.replace(/^(Denied by policy|Held for approval by QuadGuard): /, '').trim();
  why = why.charAt(0).toUpperCase() + why.slice(1);
  const unnamedRules = d.rules.filter((r) => !why.includes(`\`${r}\``));
  const witness = [...new Set(d.witness.flatMap((w) => Object.entries(w.predicates).map(([p, v]) => (v === 'true' ? p : v === 'false' ? `not ${p}` : `${p}=${v}`))))];
  // eslint-disable-next-line regexp/no-super-linear-move -- p is a policy predicate's name and its value a truth value (true / false / unknown): a few characters
  const unnamedWitness = witness.filter((p) => !why.includes(p.replace(/^not /, '').replace(/=.*$/, '')));
  const extra = [
    ...(unnamedRules.length > 0 ? [`Rule${unnamedRules.length > 1 ? 's' : ''}: ${unnamedRules.map((r) => `\`${r}\``).join(', ')}.`] : []),
    ...(unnamedWitness.length > 0 ? [`Witness: ${unnamedWitness.join(', ')}.`] : []),
  ];
  if (why.length > 0 && !/[.!?)]$/.test(why)) why += '.';
  lines.push([why, ...extra].filter((x) => x.length > 0).join(' '));
  lines.push(`What to do instead: ${d.remediation ?? DEFAULT_REMEDIATION}`);
  if (d.auditId) lines.push(`Decision id: ${d.auditId}`);
  return lines.filter((l) => l.length > 0).join('\n');
}

/**
 * A denied tools/call (or denied tool result) as a `CallToolResult` with `isError: true`. `structuredContent`
 * is added only when the exposed tool has no `outputSchema`, because SDK clients validate it even on errors.
 */
export function toolDenial(d: Decision, s: DenialSubject, opts: { hasOutputSchema: boolean }): CallToolResult {
  const payload = decisionPayload(d);
  const result: CallToolResult = {
    content: [{ type: 'text', text: denialText(d, s) }],
    isError: true,
    _meta: { [DECISION_META_KEY]: payload },
  };
  if (!opts.hasOutputSchema) result.structuredContent = { quadguard: payload };
  return result;
}

/**
 * A JSON-RPC error whose wire message is exactly `message`. McpError's constructor prefixes "MCP error <code>: ",
 * the SDK sends `error.message` as is, and the client's McpError prefixes again: without this, clients show the
 * prefix twice (SDK brief §4.3).
 */
export function protocolError(code: number, message: string, data?: unknown): McpError {
  const err = new McpError(code, message, data);
  err.message = message;
  return err;
}

/**
 * A denied resources/read or prompts/get as an `McpError` with a self-contained message and the decision in `data`;
 * a refusal for rate also carries `data.retryAfterMs`.
 */
export function requestDenialError(d: Decision, s: DenialSubject): McpError {
  const retry = d.detail.retryAfterMs !== undefined ? { retryAfterMs: d.detail.retryAfterMs } : {};
  return protocolError(GUARD_DENIED_CODE, denialText(d, s), { [DECISION_META_KEY]: decisionPayload(d), ...retry });
}

/**
 * Applies an allowing decision that carries a `replacement` to a tool result: the content is swapped and
 * `structuredContent` dropped (it would contradict the new content); the note goes in `_meta`.
 */
export function applyToolReplacement(result: CallToolResult, d: Decision): CallToolResult {
  if (d.replacement === undefined) return result;
  const { structuredContent: _dropped, ...rest } = result;
  return {
    ...rest,
    content: d.replacement as CallToolResult['content'],
    _meta: {
      ...(result._meta ?? {}),
      [DECISION_META_KEY]: { ...decisionPayload(d), replaced: true, structuredContentDropped: _dropped !== undefined },
    },
  };
}

/** A tool error for an unavailable / failed / timed-out downstream server (not a guard decision). */
export function downstreamFailure(text: string, code: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true, _meta: { 'io.github.quadguard/error': { code } } };
}
