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
  };
}

/** The self-contained sentence(s) a model sees: what was blocked, rule, witness, what to do instead. */
export function denialText(d: Decision, s: DenialSubject): string {
  // A held call is not refused: its rationale (from the approvals stage) already starts "Held for approval…".
  const held = d.detail.approval !== undefined;
  const parts = [held ? `${d.rationale} (${s.what} ${s.name})` : `Blocked by QuadGuard: the ${s.what} ${s.name} was not allowed. ${d.rationale}`];
  if (d.rules.length > 0) parts.push(`Rule${d.rules.length > 1 ? 's' : ''}: ${d.rules.map((r) => `\`${r}\``).join(', ')}.`);
  const witness = d.witness.flatMap((w) => Object.entries(w.predicates).map(([p, v]) => (v === 'true' ? p : `${p}=${v}`)));
  if (witness.length > 0) parts.push(`Witness: ${[...new Set(witness)].join(', ')}.`);
  if (!held) parts.push(`What to do instead: ${d.remediation ?? 'do not retry this as is; choose a different action or ask the user.'}`);
  if (d.auditId) parts.push(`Decision id ${d.auditId}.`);
  return parts.join(' ');
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

/** A denied resources/read or prompts/get as an `McpError` with a self-contained message and the decision in `data`. */
export function requestDenialError(d: Decision, s: DenialSubject): McpError {
  return protocolError(GUARD_DENIED_CODE, denialText(d, s), { [DECISION_META_KEY]: decisionPayload(d) });
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
