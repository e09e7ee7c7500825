import { CallToolResultSchema, ErrorCode, McpError, type CallToolRequest, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ContentBlock } from '../core/types.js';
import { forwardOptions, stripProgressToken, type ForwardExtra, type ProxyCore, type SessionContext } from './context.js';
import { decide, downstreamToolFailure } from './decide.js';
import { applyToolReplacement, downstreamFailure, toolDenial, protocolError } from './denial.js';
import { refuseOverLimits, refuseOverLimitsMeta } from './limits.js';
import { auditSuffix, refuse } from './refusals.js';
import { relativePathNote, rootsBeforeFirstCall, serverRoots } from './roots.js';
import { schemaCredentialKeys } from '../core/credential-fields.js';
import { resolvePathArguments } from './resolved-paths.js';
import { sharingRealPaths, type RealPathAnswers } from '../detectors/real-paths.js';
import { schemaPathKeys } from '../core/schema-paths.js';
import { handleMessageTool, isMessageTool } from './message-tool.js';
import { rewriteContentUris, splitExposedName } from './namespacing.js';
import { messageSideFields, requestSideFields } from './side-fields.js';
import { answeredCall, askedCall, callIdentity, checkedCall } from './call-interactions.js';

/** The servers that are down now, as a sentence to add to an unknown-tool answer ('' when all are up). */
function downServers(core: ProxyCore): string {
  const notes = [...core.pool.servers.values()].flatMap((d) => d.stateNote() ?? []);
  return notes.length === 0 ? '' : ` Its server may be down: ${notes.join(' ')}`;
}

/** Type of the block that carries a result's `structuredContent` to the guard (never sent to a client). */
export const STRUCTURED_BLOCK = 'structured_content';

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
  const who = callIdentity(session, route, name);
  const asked = askedCall(who, isRecord(args) ? args : {}, requestSideFields(_meta));
  // Refusals the proxy makes itself come first, so the guard never records an allow for a call that is refused.
  await refuseOverLimitsMeta(core, asked, `tool ${name}`);
  if (!route || !server) {
    const d = await refuse(core, asked, { rationale: `there is no tool ${name} on this proxy.`, rules: ['unknown-tool'], source: 'unknown' });
    throw protocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Call tools/list for the available tools.${downServers(core)}${auditSuffix(d)}`);
  }
  if (!exposed) {
    // Hidden by the tool filter (servers.<key>.tools): a denial the client sees as one, recorded as source filter.
    const filtered = await decide({ ...core, guard: core.pool.filter }, { ...asked, server: route.server, tool: route.name });
    if (filtered.decision === 'deny') return toolDenial(filtered, { what: 'call to tool', name }, { hasOutputSchema: false });
    const hidden = core.pool.hasDownstreamTool(route.server, route.name);
    const down = server.stateNote();
    if (!hidden && down !== undefined) {
      // Its server is down, so its tools are missing: the answer is the server's state, not "Unknown tool".
      const d = await refuse(core, asked, { rationale: down, rules: ['server-down'], source: 'unknown' });
      return downstreamFailure(`QuadGuard: ${down}${auditSuffix(d)}`, 'downstream_unavailable');
    }
    const unscreened = hidden && core.pool.toolScreenFailed(route.server);
    const d = await refuse(core, asked, {
      rationale: unscreened
        ? `tool ${name} is new or changed and could not be checked against its pin: QuadGuard's store did not answer. It is held back until the store answers again; retry shortly.`
        : hidden
        ? `tool ${name} is hidden by QuadGuard: its definition changed since it was pinned, or its description carries injected instructions; it cannot be called until an operator approves it (\`quadguard tools list\`).`
        : `server "${route.server}" has no tool ${route.name}.`,
      rules: [unscreened ? 'tool-unscreened' : hidden ? 'tool-hidden' : 'unknown-tool'],
      source: hidden ? 'hidden' : 'unknown',
    });
    throw protocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Call tools/list for the available tools.${auditSuffix(d)}`);
  }
  await refuseOverLimits(core, asked, args, name);

  const hasOutputSchema = exposed.tool.outputSchema !== undefined;
  await rootsBeforeFirstCall(core, route.server, session, extra);
  // Relative paths in the arguments resolve against the server's directories (its cwd, its start directories, the
  // roots its client gave it): every one is a candidate.
  const roots = serverRoots(core.config.servers[route.server], core.clientRoots.candidates(route.server));
  // Arguments the tool's input schema says are paths are checked as paths, whatever their value looks like; those it
  // says are credentials are credentials, whatever their name.
  const { pathKeys, credentialKeys } = schemaKeysOf(exposed.tool);
  // Paths through symbolic links are resolved once: checked, recorded and forwarded as resolved (resolved-paths.ts);
  // the guard's path detectors read these answers rather than resolving each path again (real-paths.ts).
  const answers: RealPathAnswers = new Map();
  const pinned = resolvePathArguments(core.config.servers[route.server], asked.arguments, pathKeys, roots, answers);
  if (pinned.resolved.length > 0) core.logger.debug({ session: session.id, server: route.server, tool: route.name, resolved: pinned.resolved.map((r) => r.field) }, 'path arguments resolved through links');
  const sent = pinned.resolved.length > 0 ? pinned.args : args;
  const checked = checkedCall(asked, pinned.args ?? asked.arguments, roots, pathKeys, credentialKeys);
  const call = await sharingRealPaths(checked, answers, () => decide(core, checked, extra.signal));
  if (call.decision === 'deny') {
    core.logger.info({ session: session.id, agent: session.agent, server: route.server, tool: route.name, rules: call.rules }, 'tool call denied');
    const denied = toolDenial(call, { what: 'call to tool', name }, { hasOutputSchema });
    const note = relativePathNote(route.server, args, pathKeys, roots);
    return note ? { ...denied, content: [...denied.content, { type: 'text', text: note }] } : denied;
  }

  let result: CallToolResult;
  try {
    const options = forwardOptions(_meta?.progressToken, extra, core.logger, session);
    options.asTask = requiresTask(server.catalog.tools.find((t) => t.name === route.name));
    result = await server.request({ method: 'tools/call', params: { name: route.name, arguments: sent, ...(stripProgressToken(_meta) ? { _meta: stripProgressToken(_meta) } : {}) } }, CallToolResultSchema, options);
  } catch (err) {
    return downstreamToolFailure(err, { server: route.server, tool: route.name, exposed: name }, core.logger);
  }

  // The guard reads everything the client gets: the content blocks and the structured result (as one more block of
  // its own type, which a replacement never carries back: applyToolReplacement drops structuredContent).
  const inspected = result.structuredContent === undefined ? (result.content as ContentBlock[]) : [...(result.content as ContentBlock[]), { type: STRUCTURED_BLOCK, structuredContent: result.structuredContent }];
  const answered = answeredCall(who, inspected, messageSideFields(result, TOOL_RESULT_OWN));
  let res = await decide(core, answered, extra.signal);
  if (res.replacement) res = { ...res, replacement: res.replacement.filter((b) => b.type !== STRUCTURED_BLOCK) };
  if (res.decision === 'deny') {
    core.logger.info({ session: session.id, agent: session.agent, server: route.server, tool: route.name, rules: res.rules }, 'tool result denied');
    return toolDenial(res, { what: 'result of tool', name }, { hasOutputSchema });
  }
  // A replacement is the guard's copy of the content, not the downstream result the client's schema read: it gets the
  // check the SDK's Server made of every result (the proxy's tools/call handler skips it: shape-dispatch.ts).
  result = res.replacement ? checkedResult(applyToolReplacement(result, res)) : result;
  return { ...result, content: rewriteContentUris(result.content, (u) => core.pool.exposedUri(route.server, u)) ?? [] };
}

/** The SDK `Server`'s check of a tools/call result (server/index.js, `setRequestHandler`), with its error. */
function checkedResult(result: CallToolResult): CallToolResult {
  const read = CallToolResultSchema.safeParse(result);
  if (!read.success) throw new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${read.error.message}`);
  return read.data;
}

/** The fields of a tool result the `tool_result` interaction carries itself; the rest are side fields. */
const TOOL_RESULT_OWN = ['content', 'structuredContent', 'isError'];

/** Whether the server says its tool can only be called as an MCP task (the proxy then runs it as one downstream). */
function requiresTask(tool: Tool | undefined): boolean {
  return tool?.execution?.taskSupport === 'required';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The path and credential arguments of a tool's input schema, read once per tool definition. */
const schemaKeysCache = new WeakMap<object, { pathKeys: string[]; credentialKeys: string[] }>();
function schemaKeysOf(tool: { inputSchema?: unknown }): { pathKeys: string[]; credentialKeys: string[] } {
  const schema = tool.inputSchema;
  if (schema === null || typeof schema !== 'object') return { pathKeys: [], credentialKeys: [] };
  let keys = schemaKeysCache.get(schema);
  if (!keys) {
    keys = { pathKeys: schemaPathKeys(schema), credentialKeys: schemaCredentialKeys(schema) };
    schemaKeysCache.set(schema, keys);
  }
  return keys;
}
