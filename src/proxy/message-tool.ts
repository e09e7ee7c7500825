import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Decision } from '../core/types.js';
import type { ProxyCore, SessionContext } from './context.js';
import { refuseOverLimits } from './limits.js';
import { decide } from './decide.js';
import { auditSuffix, refuse } from './refusals.js';
import { denialText, protocolError } from './denial.js';

/** The listed name of the proxy's own tool (safe for every client). */
export const MESSAGE_TOOL = 'guard_check_message';
/** The dotted alias, always accepted in tools/call and listed when `message_tool_name: dotted`. */
export const MESSAGE_TOOL_DOTTED = 'guard.check_message';

/** Whether a tools/call name addresses the message tool. */
export function isMessageTool(name: string): boolean {
  return name === MESSAGE_TOOL || name === MESSAGE_TOOL_DOTTED;
}

/** The tool definition, with its JSON Schema written out (the low-level Server takes raw schemas). */
export function messageToolDefinition(style: 'strict' | 'dotted'): Tool {
  return {
    name: style === 'dotted' ? MESSAGE_TOOL_DOTTED : MESSAGE_TOOL,
    title: 'Check an inter-agent message',
    description:
      'Checks a message one agent wants to send to another against the QuadGuard policy before delivery. ' +
      'Returns JSON {decision, rationale, violated_rules, witness, threat_level}; deliver the message only when decision is "allow".',
    inputSchema: {
      type: 'object',
      properties: {
        sender: { type: 'string', description: 'The agent sending the message (must be you).' },
        recipient: { type: 'string', description: 'The agent that would receive it.' },
        content: { type: 'string', description: 'The message text.' },
      },
      required: ['sender', 'recipient', 'content'],
      additionalProperties: false,
    },
    annotations: { title: 'Check an inter-agent message', readOnlyHint: true, openWorldHint: false, idempotentHint: true },
  };
}

const ArgsSchema = z.object({ sender: z.string().min(1), recipient: z.string().min(1), content: z.string() });

/** The result shape the tool always returns (a normal result; `isError` when denied). */
export function messageResult(d: Decision, recipient?: string): CallToolResult {
  const body = {
    decision: d.decision,
    rationale: d.rationale,
    violated_rules: d.rules,
    witness: d.witness,
    threat_level: d.threatLevel ?? 0,
    ...(d.detail.retryAfterMs !== undefined ? { retry_after_ms: d.detail.retryAfterMs } : {}),
    // The same one message every other surface shows for a denial (src/proxy/denial.ts).
    ...(d.decision === 'deny' ? { message: denialText(d, { what: 'message', name: recipient ? `to ${recipient}` : '' }) } : {}),
  };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], ...(d.decision === 'deny' ? { isError: true } : {}) };
}

/**
 * Handles guard_check_message: builds a `message` Interaction and runs the same guard as every other call.
 * When the session is authenticated, a `sender` other than the authenticated agent is denied.
 */
export async function handleMessageTool(core: ProxyCore, session: SessionContext, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
  const who = { kind: 'message' as const, agent: session.agent, session: session.id, profile: session.profile };
  await refuseOverLimits(core, who, args, MESSAGE_TOOL);
  const parsed = ArgsSchema.safeParse(args ?? {});
  if (!parsed.success) {
    const message = `${MESSAGE_TOOL} needs string arguments sender, recipient and content: ${z.prettifyError(parsed.error)}`;
    const d = await refuse(core, who, { rationale: message, rules: ['message-arguments'], source: 'invalid' });
    throw protocolError(ErrorCode.InvalidParams, `${message}${auditSuffix(d)}`);
  }
  const { sender, recipient, content } = parsed.data;
  const interaction = { ...who, sender, recipient, content };
  if (session.authenticated && sender !== session.agent) {
    return messageResult(
      await refuse(core, interaction, {
        rationale: `the claimed sender "${sender}" is not the authenticated agent "${session.agent}"; an agent may only check messages it sends itself.`,
        rules: ['sender-must-match-identity'],
        source: 'identity',
      }),
      recipient,
    );
  }
  const unknown = unknownRecipient(core.config.agents, session.agent, recipient);
  if (unknown !== undefined) {
    return messageResult(await refuse(core, interaction, { rationale: unknown, rules: ['recipient-must-be-known'], source: 'identity' }), recipient);
  }
  return messageResult(await decide(core, interaction, signal), recipient);
}

/**
 * Recipients are identities: when the config lists agents (other than the sender), a message goes to one of them or
 * to a principal one of them acts for (the sender's own user); anything else is no one the guard knows, and is
 * refused. Without such a roster every name is taken as given.
 */
export function unknownRecipient(agents: Readonly<Record<string, { principal: string }>>, sender: string, recipient: string): string | undefined {
  const names = Object.keys(agents);
  // A roster of the sender alone (what `wrap` declares) names no recipient: there is nothing to check against.
  if (!names.some((n) => n !== sender) || Object.hasOwn(agents, recipient)) return undefined;
  if (Object.values(agents).some((a) => a.principal === recipient)) return undefined;
  const principal = agents[sender]?.principal;
  return `the recipient "${recipient}" is no agent of this proxy's config (agents: ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', …' : ''}) and no principal one of them acts for${principal ? ` (${sender} acts for "${principal}")` : ''}; add it under agents: in the config, or send the message to a listed agent.`;
}
