import { CallToolResultSchema, ErrorCode, McpError, type CallToolRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DownstreamError, errorMessage } from '../core/errors.js';
import type { ContentBlock } from '../core/types.js';
import { forwardOptions, stripProgressToken, type ForwardExtra, type ProxyCore, type SessionContext } from './context.js';
import { applyToolReplacement, downstreamFailure, toolDenial, protocolError } from './denial.js';
import { refuseOverLimits } from './limits.js';
import { auditSuffix, ensureRecorded, refuse } from './refusals.js';
import { handleMessageTool, isMessageTool } from './message-tool.js';
import { prefixUri, rewriteContentUris, splitExposedName } from './namespacing.js';

/**
 * tools/call: limits → guard(tool_call) → downstream → guard(tool_result) → URI rewriting. Denials are
 * `isError` results; nothing denied reaches the downstream server.
 */
export async function handleToolCall(core: ProxyCore, session: SessionContext, request: CallToolRequest, extra: ForwardExtra): Promise<CallToolResult> {
  const { name, arguments: args, _meta } = request.params;
  if (isMessageTool(name)) return handleMessageTool(core, session, args, extra.signal);

  const exposed = core.pool.tool(name);
  const route = exposed?.route ?? splitExposedName(name);
  const server = route ? core.pool.servers.get(route.server) : undefined;
  const base = { agent: session.agent, session: session.id, profile: session.profile, server: route?.server, tool: route?.name ?? name };
  const asked = { ...base, kind: 'tool_call' as const, arguments: isRecord(args) ? args : {} };
  // Refusals the proxy makes itself come first, so the guard never records an allow for a call that is refused.
  if (!route || !server) {
    const d = refuse(core, asked, { rationale: `there is no tool ${name} on this proxy.`, rules: ['unknown-tool'], source: 'unknown' });
    throw protocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Call tools/list for the available tools.${auditSuffix(d)}`);
  }
  if (!exposed) {
    // Hidden by the tool filter (servers.<key>.tools): a denial the client sees as one, recorded as source filter.
    const filtered = await core.pool.filter.check({ ...asked, server: route.server, tool: route.name });
    if (filtered.decision === 'deny') return toolDenial(ensureRecorded(core, asked, filtered), { what: 'call to tool', name }, { hasOutputSchema: false });
    const hidden = core.pool.hasDownstreamTool(route.server, route.name);
    const d = refuse(core, asked, {
      rationale: hidden
        ? `tool ${name} is hidden by QuadGuard: its definition changed since it was pinned, or its description carries injected instructions; it cannot be called until an operator approves it (\`quadguard tools list\`).`
        : `server "${route.server}" has no tool ${route.name}.`,
      rules: [hidden ? 'tool-hidden' : 'unknown-tool'],
      source: hidden ? 'hidden' : 'unknown',
    });
    throw protocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Call tools/list for the available tools.${auditSuffix(d)}`);
  }
  refuseOverLimits(core, asked, args, name);

  const hasOutputSchema = exposed.tool.outputSchema !== undefined;
  const call = ensureRecorded(core, asked, await core.guard.check(asked, extra.signal));
  if (call.decision === 'deny') {
    core.logger.info({ session: session.id, agent: session.agent, server: route.server, tool: route.name, rules: call.rules }, 'tool call denied');
    return toolDenial(call, { what: 'call to tool', name }, { hasOutputSchema });
  }

  let result: CallToolResult;
  try {
    result = await server.request(
      { method: 'tools/call', params: { name: route.name, arguments: args, ...(stripProgressToken(_meta) ? { _meta: stripProgressToken(_meta) } : {}) } },
      CallToolResultSchema,
      forwardOptions(_meta?.progressToken, extra, core.logger),
    );
  } catch (err) {
    if (err instanceof DownstreamError) return downstreamFailure(`QuadGuard: ${err.message}`, err.code);
    if (err instanceof McpError) return downstreamFailure(`Server "${route.server}" returned an error for ${route.name}: ${err.message.replace(/^MCP error -?\d+: /, '')}`, 'downstream_error');
    core.logger.error({ err: errorMessage(err), server: route.server }, 'tool call failed');
    return downstreamFailure(`QuadGuard: the call to ${name} failed inside the proxy.`, 'proxy_internal');
  }

  const answered = { ...base, kind: 'tool_result' as const, content: result.content as ContentBlock[] };
  const res = ensureRecorded(core, answered, await core.guard.check(answered, extra.signal));
  if (res.decision === 'deny') {
    core.logger.info({ session: session.id, agent: session.agent, server: route.server, tool: route.name, rules: res.rules }, 'tool result denied');
    return toolDenial(res, { what: 'result of tool', name }, { hasOutputSchema });
  }
  result = applyToolReplacement(result, res);
  return { ...result, content: rewriteContentUris(result.content, (u) => prefixUri(route.server, u)) ?? [] };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
