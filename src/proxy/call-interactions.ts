import type { ContentBlock, Interaction, Profile } from '../core/types.js';
import type { SessionContext } from './session.js';

/**
 * The two interactions of a tools/call the guard checks, built key by key: the same keys, in the same order, with
 * the same values as the object spreads they replace (`{ ...base, kind, arguments, ...withMeta(meta) }` and kin).
 * They are built on every call, and on Node 20 (V8 11) each key a literal defines after a spread, and each key added
 * to a spread's copy, goes through the runtime: ~0.4 µs a key in a loop, several times that in the busy proxy;
 * a literal's own keys, and keys added to an object a literal made, do not.
 */

type ToolCall = Extract<Interaction, { kind: 'tool_call' }>;
type ToolResult = Extract<Interaction, { kind: 'tool_result' }>;

/** Who makes a call and to which tool: the fields both interactions of a call begin with. */
export interface CallIdentity {
  agent: string;
  session: string;
  profile: Profile;
  server: string | undefined;
  tool: string;
}

export function callIdentity(session: SessionContext, route: { server: string; name: string } | undefined, name: string): CallIdentity {
  return { agent: session.agent, session: session.id, profile: session.profile, server: route?.server, tool: route?.name ?? name };
}

/** The call as the client asked it: its arguments (an object), then its side fields when it has any. */
export function askedCall(who: CallIdentity, args: Record<string, unknown>, meta: Record<string, unknown> | undefined): ToolCall {
  const asked: ToolCall = { agent: who.agent, session: who.session, profile: who.profile, server: who.server, tool: who.tool, kind: 'tool_call', arguments: args };
  if (meta !== undefined) asked.meta = meta;
  return asked;
}

/** The call the guard checks: `asked` with the arguments as forwarded and the server's roots, path and credential keys. */
export function checkedCall(asked: ToolCall, args: Record<string, unknown> | undefined, roots: string[] | undefined, pathKeys: string[], credentialKeys: string[]): ToolCall {
  const checked: ToolCall = { agent: asked.agent, session: asked.session, profile: asked.profile, server: asked.server, tool: asked.tool, kind: 'tool_call', arguments: args };
  if (asked.meta !== undefined) checked.meta = asked.meta;
  if (roots) checked.roots = roots;
  if (pathKeys.length > 0) checked.pathKeys = pathKeys;
  if (credentialKeys.length > 0) checked.credentialKeys = credentialKeys;
  return checked;
}

/** The result the guard checks: its content blocks, then its side fields when it has any. */
export function answeredCall(who: CallIdentity, content: ContentBlock[], meta: Record<string, unknown> | undefined): ToolResult {
  const answered: ToolResult = { agent: who.agent, session: who.session, profile: who.profile, server: who.server, tool: who.tool, kind: 'tool_result', content };
  if (meta !== undefined) answered.meta = meta;
  return answered;
}
