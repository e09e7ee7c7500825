import {
  CompleteResultSchema,
  EmptyResultSchema,
  ErrorCode,
  type CompleteRequest,
  type CompleteResult,
  type SetLevelRequest,
  type SubscribeRequest,
  type UnsubscribeRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../core/errors.js';
import { forwardOptions, type ForwardExtra, type ProxyCore, type SessionContext } from './context.js';
import { decide, downstreamRequestError } from './decide.js';
import { protocolError, requestDenialError } from './denial.js';
import type { Downstream } from './downstream.js';
import { refuseOverLimits, refuseOverLimitsMeta } from './limits.js';
import { refuseHiddenResource } from './reads.js';
import { requestSideFields, withMeta } from './side-fields.js';

/**
 * The protocol utilities: logging levels (no guard decision: a level carries nothing), completions and resource
 * subscriptions. These two send a client's values to a server (an argument being typed, a URI), so they are checked
 * as the request they prepare: a prompt's completion as a `prompt_request` with the arguments so far, a template's
 * as a `resource_request` for the URI the values fill in, a subscription as a `resource_request` for its URI.
 */

/** Tells every connected server that has logging the most verbose level any session asked for. */
export async function applyLogLevel(core: ProxyCore, only?: Downstream): Promise<void> {
  const level = core.sessions.mostVerboseLevel();
  if (level === undefined) return;
  const targets = only ? [only] : [...core.pool.servers.values()];
  await Promise.all(
    targets
      .filter((d) => d.capabilities()?.logging !== undefined)
      .map((d) => d.request({ method: 'logging/setLevel', params: { level } }, EmptyResultSchema).catch((err: unknown) => core.logger.warn({ server: d.key, err: errorMessage(err) }, 'logging/setLevel failed downstream'))),
  );
}

/**
 * logging/setLevel: the session's level filters what it receives; each server is told the most verbose level of
 * all sessions (servers are shared, levels are per session).
 */
export async function handleSetLevel(core: ProxyCore, session: SessionContext, request: SetLevelRequest): Promise<Record<string, never>> {
  core.sessions.setLogLevel(session, request.params.level);
  await applyLogLevel(core);
  return {};
}

/**
 * A URI template with the values filled in, as the server would read it: each `{name}` (any RFC 6570 operator)
 * takes its value as given; values the template has no place for are appended as a query, so none goes unread.
 */
export function fillTemplate(template: string, values: Record<string, string>): string {
  const used = new Set<string>();
  const uri = template.replace(/\{[+#./;?&]?([^{}]*)\}/g, (_m, names: string) =>
    names
      .split(',')
      .map((n) => n.replace(/\*$|:\d+$/, ''))
      .filter((n) => n in values)
      .map((n) => (used.add(n), values[n]!))
      .join(','),
  );
  const rest = Object.entries(values).filter(([n]) => !used.has(n));
  return rest.length === 0 ? uri : `${uri}${uri.includes('?') ? '&' : '?'}${rest.map(([n, v]) => `${n}=${v}`).join('&')}`;
}

/** completion/complete: a prompt argument goes to the prompt's server, a template argument to the template's server. */
export async function handleComplete(core: ProxyCore, session: SessionContext, request: CompleteRequest, extra: ForwardExtra): Promise<CompleteResult> {
  const ref = request.params.ref;
  let target: { server: string; ref: typeof ref } | undefined;
  if (ref.type === 'ref/prompt') {
    const route = core.pool.prompt(ref.name);
    if (route) target = { server: route.server, ref: { ...ref, name: route.name } };
  } else {
    const r = core.pool.resolveUri(ref.uri);
    if (r) target = { server: r.server, ref: { ...ref, uri: r.uri } };
  }
  // A template the listing screen hid is no reference a client may complete (as a hidden prompt is unknown).
  if (target?.ref.type === 'ref/resource' && core.pool.hiddenResource(target.server, target.ref.uri) !== undefined) target = undefined;
  const d = target ? core.pool.servers.get(target.server) : undefined;
  if (!target || !d) throw protocolError(ErrorCode.InvalidParams, `Unknown completion reference: ${ref.type === 'ref/prompt' ? `prompt ${ref.name}` : `resource ${ref.uri}`}.`);
  if (d.capabilities()?.completions === undefined) return { completion: { values: [], hasMore: false } };
  // The partial value and the arguments already given leave for the server: checked as the request they prepare.
  const values = { ...request.params.context?.arguments, [request.params.argument.name]: request.params.argument.value };
  const who = { agent: session.agent, session: session.id, profile: session.profile, server: target.server, ...withMeta(requestSideFields(request.params._meta)) };
  const asked =
    target.ref.type === 'ref/prompt'
      ? { ...who, kind: 'prompt_request' as const, prompt: target.ref.name, arguments: values }
      : { ...who, kind: 'resource_request' as const, uri: fillTemplate(target.ref.uri, values) };
  const subject = { what: 'completion for', name: ref.type === 'ref/prompt' ? `prompt ${ref.name}` : `resource ${ref.uri}` };
  await refuseOverLimits(core, asked, values, subject.name);
  await refuseOverLimitsMeta(core, asked, subject.name);
  const decision = await decide(core, asked, extra.signal);
  if (decision.decision === 'deny') throw requestDenialError(decision, subject);
  try {
    const result = await d.request({ method: 'completion/complete', params: { ...request.params, ref: target.ref } }, CompleteResultSchema, forwardOptions(undefined, extra, core.logger, session));
    // The suggested values reach the client's model as text: a value carrying injected instructions is dropped.
    const kept = await core.pool.completionValues(target.server, ref.type === 'ref/prompt' ? ref.name : ref.uri, result.completion.values);
    if (kept.length === result.completion.values.length) return result;
    const dropped = result.completion.values.length - kept.length;
    const { total, ...rest } = result.completion;
    return { ...result, completion: { ...rest, values: kept, ...(total !== undefined ? { total: Math.max(kept.length, total - dropped) } : {}) } };
  } catch (err) {
    throw downstreamRequestError(err);
  }
}

/**
 * resources/subscribe and resources/unsubscribe: the exposed URI is mapped to its server, which is subscribed
 * once, while at least one session is; its notifications/resources/updated reach the subscribed sessions.
 */
export async function handleSubscribe(core: ProxyCore, session: SessionContext, request: SubscribeRequest | UnsubscribeRequest, on: boolean, extra: ForwardExtra): Promise<Record<string, never>> {
  const exposed = request.params.uri;
  const target = core.pool.resolveUri(exposed);
  const d = target ? core.pool.servers.get(target.server) : undefined;
  if (!target || !d) throw protocolError(-32002, `Resource not found: ${exposed} (see resources/list).`);
  const asked = { agent: session.agent, session: session.id, profile: session.profile, server: target.server, kind: 'resource_request' as const, uri: target.uri };
  const hidden = core.pool.hiddenResource(target.server, target.uri);
  if (on && hidden !== undefined) await refuseHiddenResource(core, asked, exposed, hidden);
  if (on && d.capabilities()?.resources?.subscribe !== true) {
    throw protocolError(ErrorCode.MethodNotFound, `Server "${target.server}" does not support resource subscriptions.`);
  }
  if (on) {
    // The URI leaves for the server as a read's would: checked as a resource request (an unsubscribe only ever
    // names a URI this check allowed, see below).
    const decision = await decide(core, asked, extra.signal);
    if (decision.decision === 'deny') throw requestDenialError(decision, { what: 'subscription to resource', name: exposed });
  }
  const had = core.sessions.subscribed(exposed);
  core.sessions.subscribe(session, exposed, on);
  const has = core.sessions.subscribed(exposed);
  if (had === has) return {};
  try {
    await d.request({ method: on ? 'resources/subscribe' : 'resources/unsubscribe', params: { uri: target.uri } }, EmptyResultSchema);
  } catch (err) {
    if (on) core.sessions.subscribe(session, exposed, false);
    throw downstreamRequestError(err);
  }
  return {};
}

/** After a server (re)connected: subscribes it again to every URI of its that a live session is subscribed to. */
export async function resubscribe(core: ProxyCore, d: Downstream): Promise<void> {
  if (d.capabilities()?.resources?.subscribe !== true) return;
  for (const exposed of core.sessions.subscriptions()) {
    const t = core.pool.resolveUri(exposed);
    if (t?.server !== d.key) continue;
    await d.request({ method: 'resources/subscribe', params: { uri: t.uri } }, EmptyResultSchema).catch((err: unknown) => core.logger.warn({ server: d.key, uri: t.uri, err: errorMessage(err) }, 're-subscribe failed'));
  }
}

/** After a session left: unsubscribes servers from the URIs no live session is subscribed to any more. */
export async function releaseSubscriptions(core: ProxyCore, exposedUris: Iterable<string>): Promise<void> {
  for (const exposed of exposedUris) {
    if (core.sessions.subscribed(exposed)) continue;
    const t = core.pool.resolveUri(exposed);
    const d = t ? core.pool.servers.get(t.server) : undefined;
    if (!t || !d || d.state !== 'ready') continue;
    await d.request({ method: 'resources/unsubscribe', params: { uri: t.uri } }, EmptyResultSchema).catch((err: unknown) => core.logger.debug({ server: d.key, uri: t.uri, err: errorMessage(err) }, 'unsubscribe after a session left failed'));
  }
}
