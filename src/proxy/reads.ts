import {
  ErrorCode,
  GetPromptResultSchema,
  McpError,
  ReadResourceResultSchema,
  type GetPromptRequest,
  type GetPromptResult,
  type ReadResourceRequest,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { DownstreamError } from '../core/errors.js';
import type { ContentBlock, Decision } from '../core/types.js';
import { forwardOptions, stripProgressToken, type ForwardExtra, type ProxyCore, type SessionContext } from './context.js';
import { requestDenialError, protocolError } from './denial.js';
import { refuseOverLimits } from './limits.js';
import { auditSuffix, ensureRecorded, refuse } from './refusals.js';
import { prefixUri, rewriteBlockUris, unprefixUri } from './namespacing.js';

/** Downstream failures on read methods are JSON-RPC errors (brief §4.3), with the downstream code kept. */
function asMcpError(err: unknown): unknown {
  if (err instanceof DownstreamError) return protocolError(ErrorCode.InternalError, err.message, { code: err.code });
  if (err instanceof McpError) return protocolError(err.code, err.message.replace(/^MCP error -?\d+: /, ''), err.data);
  return err;
}

type ResourceContents = ReadResourceResult['contents'][number];

/** Replacement blocks as resource contents: embedded resources keep theirs, text blocks become text contents. */
function replacementContents(d: Decision, uri: string): ResourceContents[] {
  return (d.replacement ?? []).map((b) =>
    b.type === 'resource' && typeof b.resource === 'object' ? (b.resource as ResourceContents) : { uri, mimeType: 'text/plain', text: typeof b.text === 'string' ? b.text : JSON.stringify(b) },
  );
}

/**
 * resources/read: guard(resource_read, request) → downstream → guard(resource_read, response, contents as
 * embedded-resource blocks). URIs are un-prefixed on the way down and prefixed on the way back.
 */
export async function handleReadResource(core: ProxyCore, session: SessionContext, request: ReadResourceRequest, extra: ForwardExtra): Promise<ReadResourceResult> {
  const exposedUri = request.params.uri;
  const target = unprefixUri(exposedUri);
  const server = target ? core.pool.servers.get(target.server) : undefined;
  const base = { kind: 'resource_read' as const, agent: session.agent, session: session.id, profile: session.profile, server: target?.server, uri: target?.uri ?? exposedUri };
  if (!target || !server) {
    const d = refuse(core, { ...base, phase: 'request' }, { rationale: `there is no resource ${exposedUri} on this proxy.`, rules: ['unknown-resource'], source: 'unknown' });
    throw protocolError(-32002, `Resource not found: ${exposedUri} (URIs look like <server>+<scheme>://…; see resources/list).${auditSuffix(d)}`);
  }
  const subject = { what: 'read of resource', name: exposedUri };

  const pre = ensureRecorded(core, { ...base, phase: 'request' }, await core.guard.check({ ...base, phase: 'request' }, extra.signal));
  if (pre.decision === 'deny') throw requestDenialError(pre, subject);
  let result: ReadResourceResult;
  try {
    const meta = stripProgressToken(request.params._meta);
    result = await server.request({ method: 'resources/read', params: { uri: target.uri, ...(meta ? { _meta: meta } : {}) } }, ReadResourceResultSchema, forwardOptions(request.params._meta?.progressToken, extra, core.logger));
  } catch (err) {
    throw asMcpError(err);
  }
  const blocks = result.contents.map((c) => ({ type: 'resource', resource: c }) as ContentBlock);
  const answered = { ...base, phase: 'response' as const, content: blocks };
  const post = ensureRecorded(core, answered, await core.guard.check(answered, extra.signal));
  if (post.decision === 'deny') throw requestDenialError(post, subject);
  const contents = post.replacement ? replacementContents(post, target.uri) : result.contents;
  return { ...result, contents: contents.map((c) => ({ ...c, uri: prefixUri(target.server, c.uri) })) };
}

/**
 * prompts/get, mapped to Interaction kind `resource_read` with uri `prompt:<name>`: the request carries the
 * prompt `arguments`, the response carries each message's content block. A replacement becomes user messages.
 */
export async function handleGetPrompt(core: ProxyCore, session: SessionContext, request: GetPromptRequest, extra: ForwardExtra): Promise<GetPromptResult> {
  const exposed = request.params.name;
  const route = core.pool.prompt(exposed);
  const server = route ? core.pool.servers.get(route.server) : undefined;
  const base = { kind: 'resource_read' as const, agent: session.agent, session: session.id, profile: session.profile, server: route?.server, uri: `prompt:${route?.name ?? exposed}` };
  const asked = { ...base, phase: 'request' as const, arguments: request.params.arguments ?? {} };
  if (!route || !server) {
    const d = refuse(core, asked, { rationale: `there is no prompt ${exposed} on this proxy.`, rules: ['unknown-prompt'], source: 'unknown' });
    throw protocolError(ErrorCode.InvalidParams, `Unknown prompt: ${exposed}. Call prompts/list for the available prompts.${auditSuffix(d)}`);
  }
  refuseOverLimits(core, asked, request.params.arguments, exposed);
  const subject = { what: 'prompt', name: exposed };

  const pre = ensureRecorded(core, asked, await core.guard.check(asked, extra.signal));
  if (pre.decision === 'deny') throw requestDenialError(pre, subject);
  let result: GetPromptResult;
  try {
    result = await server.request({ method: 'prompts/get', params: { name: route.name, arguments: request.params.arguments } }, GetPromptResultSchema, forwardOptions(request.params._meta?.progressToken, extra, core.logger));
  } catch (err) {
    throw asMcpError(err);
  }
  const answered = { ...base, phase: 'response' as const, content: result.messages.map((m) => m.content as ContentBlock) };
  const post = ensureRecorded(core, answered, await core.guard.check(answered, extra.signal));
  if (post.decision === 'deny') throw requestDenialError(post, subject);
  const messages = post.replacement ? post.replacement.map((b) => ({ role: 'user' as const, content: b as GetPromptResult['messages'][number]['content'] })) : result.messages;
  return { ...result, messages: messages.map((m) => ({ ...m, content: rewriteBlockUris(m.content, (u) => prefixUri(route.server, u)) })) };
}
