import { createHash } from 'node:crypto';

/**
 * Pure, reversible naming between the proxy's merged surface and each downstream server:
 * tools and prompts `<server>__<name>`, resource URIs `<server>+<scheme>://…`.
 */

export const NAME_SEPARATOR = '__';
/** Longest exposed tool/prompt name (Claude Desktop and OpenAI-style clients cap at 64). */
export const MAX_EXPOSED_NAME = 64;

/**
 * The exposed name of a downstream tool or prompt. Illegal characters become `_`; names over the budget are
 * truncated and suffixed with 8 hex chars of sha256 of the original, so they stay stable and unique.
 */
export function exposeName(server: string, name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, '_');
  const full = `${server}${NAME_SEPARATOR}${clean}`;
  if (clean === name && full.length <= MAX_EXPOSED_NAME) return full;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  const room = MAX_EXPOSED_NAME - server.length - NAME_SEPARATOR.length - 9;
  return `${server}${NAME_SEPARATOR}${clean.slice(0, Math.max(1, room))}_${hash}`;
}

/** Splits an exposed name on the first `__` (server keys never contain `__`); undefined when it has none. */
export function splitExposedName(exposed: string): { server: string; name: string } | undefined {
  const i = exposed.indexOf(NAME_SEPARATOR);
  if (i <= 0) return undefined;
  return { server: exposed.slice(0, i), name: exposed.slice(i + NAME_SEPARATOR.length) };
}

/** `file:///a` → `fs+file:///a`. Also works on RFC 6570 templates. */
export function prefixUri(server: string, uri: string): string {
  return `${server}+${uri}`;
}

/** `fs+file:///a` → `{server: 'fs', uri: 'file:///a'}`; undefined when the URI carries no server prefix. */
export function unprefixUri(uri: string): { server: string; uri: string } | undefined {
  const m = /^([a-z][a-z0-9-]{0,31})\+(.+)$/.exec(uri);
  if (!m?.[1] || !m[2]) return undefined;
  return { server: m[1], uri: m[2] };
}

type Json = Record<string, unknown>;

/** Rewrites the URI of one content block (resource_link, embedded resource) with `map`; other blocks unchanged. */
export function rewriteBlockUris<T>(block: T, map: (uri: string) => string): T {
  if (typeof block !== 'object' || block === null) return block;
  const b = block as Json;
  if (b.type === 'resource_link' && typeof b.uri === 'string') return { ...b, uri: map(b.uri) } as T;
  if (b.type === 'resource' && typeof b.resource === 'object' && b.resource !== null) {
    const r = b.resource as Json;
    if (typeof r.uri === 'string') return { ...b, resource: { ...r, uri: map(r.uri) } } as T;
  }
  return block;
}

/** Rewrites every resource URI inside a list of content blocks. */
export function rewriteContentUris<T>(content: T[] | undefined, map: (uri: string) => string): T[] | undefined {
  return content?.map((c) => rewriteBlockUris(c, map));
}
