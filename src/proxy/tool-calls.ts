import { CallToolResultSchema, ErrorCode, McpError, type CallToolRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DownstreamError, errorMessage } from '../core/errors.js';
import type { ContentBlock } from '../core/types.js';
import { forwardOptions, stripProgressToken, type ForwardExtra, type ProxyCore, type SessionContext } from './context.js';
import { applyToolReplacement, downstreamFailure, toolDenial, protocolError } from './denial.js';
import { enforceArgumentLimits } from './limits.js';
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
  if (!route || !server) throw protocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Call tools/list for the available tools.`);
  enforceArgumentLimits(args, core.config.limits, name);

  const base = { agent: session.agent, session: session.id, profile: session.profile, server: route.server, tool: route.name };
  const hasOutputSchema = exposed?.tool.outputSchema !== undefined;
  const call = await core.guard.check({ ...base, kind: 'tool_call', arguments: args ?? {} }, extra.signal);
  if (call.decision === 'deny') {
    core.logger.info({ session: session.id, agent: session.agent, server: route.server, tool: route.name, rules: call.rules }, 'tool call denied');
    return toolDenial(call, { what: 'call to tool', name }, { hasOutputSchema });
  }
  // A tool the filter or the onToolsListed hook hides is never forwarded, even if the guard allowed it.
  if (!exposed) throw protocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Call tools/list for the available tools.`);

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

  const res = await core.guard.check({ ...base, kind: 'tool_result', content: result.content as ContentBlock[] }, extra.signal);
  if (res.decision === 'deny') {
    core.logger.info({ session: session.id, agent: session.agent, server: route.server, tool: route.name, rules: res.rules }, 'tool result denied');
    return toolDenial(res, { what: 'result of tool', name }, { hasOutputSchema });
  }
  result = applyToolReplacement(result, res);
  return { ...result, content: rewriteContentUris(result.content, (u) => prefixUri(route.server, u)) ?? [] };
}
