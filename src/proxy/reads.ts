import {
  ErrorCode,
  GetPromptResultSchema,
  ReadResourceResultSchema,
  type GetPromptRequest,
  type GetPromptResult,
  type ReadResourceRequest,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ContentBlock, Decision, Interaction } from '../core/types.js';
import { forwardOptions, stripProgressToken, type ForwardExtra, type ProxyCore, type SessionContext } from './context.js';
import { decide, downstreamRequestError } from './decide.js';
import { requestDenialError, protocolError } from './denial.js';
import { refuseOverLimits, refuseOverLimitsMeta } from './limits.js';
import { auditSuffix, refuse } from './refusals.js';
import { rewriteBlockUris } from './namespacing.js';
import { messageSideFields, requestSideFields, withMeta } from './side-fields.js';

type ResourceContents = ReadResourceResult['contents'][number];

/** Replacement blocks as resource contents: embedded resources keep theirs, text blocks become text contents. */
function replacementContents(d: Decision, uri: string): ResourceContents[] {
  return (d.replacement ?? []).map((b) =>
    b.type === 'resource' && typeof b.resource === 'object' ? (b.resource as ResourceContents) : { uri, mimeType: 'text/plain', text: typeof b.text === 'string' ? b.text : JSON.stringify(b) },
  );
}

/**
 * resources/read: guard(resource_request) → downstream → guard(resource_result, contents as embedded-resource
 * blocks). URIs are un-prefixed on the way down and prefixed on the way back.
 */
export async function handleReadResource(core: ProxyCore, session: SessionContext, request: ReadResourceRequest, extra: ForwardExtra): Promise<ReadResourceResult> {
  const exposedUri = request.params.uri;
  const target = core.pool.resolveUri(exposedUri);
  const server = target ? core.pool.servers.get(target.server) : undefined;
  const base = { agent: session.agent, session: session.id, profile: session.profile, server: target?.server, uri: target?.uri ?? exposedUri };
  const asked = { ...base, kind: 'resource_request' as const, ...withMeta(requestSideFields(request.params._meta)) };
  await refuseOverLimitsMeta(core, asked, `resource ${exposedUri}`);
  if (!target || !server) {
    const d = await refuse(core, asked, { rationale: `there is no resource ${exposedUri} on this proxy.`, rules: ['unknown-resource'], source: 'unknown' });
    throw protocolError(-32002, `Resource not found: ${exposedUri} (URIs look like <server>+<scheme>://…; see resources/list).${auditSuffix(d)}`);
  }
  const hidden = core.pool.hiddenResource(target.server, target.uri);
  if (hidden !== undefined) await refuseHiddenResource(core, asked, exposedUri, hidden);
  const subject = { what: 'read of resource', name: exposedUri };

  const pre = await decide(core, asked, extra.signal);
  if (pre.decision === 'deny') throw requestDenialError(pre, subject);
  let result: ReadResourceResult;
  try {
    const meta = stripProgressToken(request.params._meta);
    result = await server.request({ method: 'resources/read', params: { uri: target.uri, ...(meta ? { _meta: meta } : {}) } }, ReadResourceResultSchema, forwardOptions(request.params._meta?.progressToken, extra, core.logger, session));
  } catch (err) {
    throw downstreamRequestError(err);
  }
  const blocks = result.contents.map((c) => ({ type: 'resource', resource: c }) as ContentBlock);
  const answered = { ...base, kind: 'resource_result' as const, content: blocks, ...withMeta(messageSideFields(result, ['contents'])) };
  const post = await decide(core, answered, extra.signal);
  if (post.decision === 'deny') throw requestDenialError(post, subject);
  const contents = post.replacement ? replacementContents(post, target.uri) : result.contents;
  return { ...result, contents: contents.map((c) => ({ ...c, uri: core.pool.exposedUri(target.server, c.uri) })) };
}

/**
 * Refuses a read of (or a subscription to) a resource the listing screen hid: a refusal recorded as source hidden,
 * naming why, as a call to a hidden tool is.
 */
export async function refuseHiddenResource(core: ProxyCore, asked: Interaction, exposedUri: string, why: string): Promise<never> {
  const d = await refuse(core, asked, { rationale: `resource ${exposedUri} is hidden by QuadGuard: ${why}.`, rules: ['resource-hidden'], source: 'hidden' });
  throw protocolError(-32002, `Resource ${exposedUri} is hidden by QuadGuard: ${why} (see resources/list).${auditSuffix(d)}`);
}

/**
 * prompts/get: guard(prompt_request, the server's prompt name and its `arguments`) → downstream →
 * guard(prompt_result, each message's content block). A replacement becomes user messages.
 */
export async function handleGetPrompt(core: ProxyCore, session: SessionContext, request: GetPromptRequest, extra: ForwardExtra): Promise<GetPromptResult> {
  const exposed = request.params.name;
  const route = core.pool.prompt(exposed);
  const server = route ? core.pool.servers.get(route.server) : undefined;
  const base = { agent: session.agent, session: session.id, profile: session.profile, server: route?.server, prompt: route?.name ?? exposed };
  const asked = { ...base, kind: 'prompt_request' as const, arguments: request.params.arguments ?? {}, ...withMeta(requestSideFields(request.params._meta)) };
  await refuseOverLimitsMeta(core, asked, `prompt ${exposed}`);
  if (!route || !server) {
    const hidden = core.pool.hiddenPrompt(exposed);
    if (hidden) {
      // Hidden by the listing screen (as a poisoned tool is): one refusal, recorded as source hidden, naming why.
      const why = hidden.why;
      const h = await refuse(core, { ...asked, server: hidden.server, prompt: hidden.name }, { rationale: `prompt ${exposed} is hidden by QuadGuard: ${why}.`, rules: ['prompt-hidden'], source: 'hidden' });
      throw protocolError(ErrorCode.InvalidParams, `Prompt ${exposed} is hidden by QuadGuard: ${why}. Call prompts/list for the available prompts.${auditSuffix(h)}`);
    }
    const d = await refuse(core, asked, { rationale: `there is no prompt ${exposed} on this proxy.`, rules: ['unknown-prompt'], source: 'unknown' });
    throw protocolError(ErrorCode.InvalidParams, `Unknown prompt: ${exposed}. Call prompts/list for the available prompts.${auditSuffix(d)}`);
  }
  await refuseOverLimits(core, asked, request.params.arguments, exposed);
  const subject = { what: 'prompt', name: exposed };

  const pre = await decide(core, asked, extra.signal);
  if (pre.decision === 'deny') throw requestDenialError(pre, subject);
  let result: GetPromptResult;
  try {
    const meta = stripProgressToken(request.params._meta);
    result = await server.request({ method: 'prompts/get', params: { name: route.name, arguments: request.params.arguments, ...(meta ? { _meta: meta } : {}) } }, GetPromptResultSchema, forwardOptions(request.params._meta?.progressToken, extra, core.logger, session));
  } catch (err) {
    throw downstreamRequestError(err);
  }
  // The prompt's description reaches the client too: the guard reads it as one more block (never sent back).
  const blocks = result.messages.map((m) => m.content as ContentBlock);
  if (typeof result.description === 'string') blocks.push({ type: 'prompt_description', description: result.description });
  const answered = { ...base, kind: 'prompt_result' as const, content: blocks, ...withMeta(messageSideFields(result, ['messages', 'description'])) };
  const post = await decide(core, answered, extra.signal);
  if (post.decision === 'deny') throw requestDenialError(post, subject);
  const messages = post.replacement ? post.replacement.filter((b) => b.type !== 'prompt_description').map((b) => ({ role: 'user' as const, content: b as GetPromptResult['messages'][number]['content'] })) : result.messages;
  return { ...result, messages: messages.map((m) => ({ ...m, content: rewriteBlockUris(m.content, (u) => core.pool.exposedUri(route.server, u)) })) };
}
