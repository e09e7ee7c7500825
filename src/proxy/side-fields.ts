/**
 * The one reader of a message's side fields, for both directions: whatever travels beside the fields an interaction
 * kind has of its own (a tool call's name and arguments, a result's content…) goes into the interaction's `meta`,
 * which the guard reads with the arguments (to a server) or the content (to the client), and the audit records
 * (core/fields.ts, core/types.ts). A field MCP adds tomorrow is a side field by construction: nothing lists the
 * side fields, only each kind's own.
 */

/** Fields of a request's params the proxy handles itself: the progress token (each hop has its own). */
const PROGRESS_TOKEN = 'progressToken';

/**
 * The side fields of a request the client sends a server (tools/call, resources/read, prompts/get,
 * completion/complete): its `_meta` without the progress token. Undefined when there is none.
 */
export function requestSideFields(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (meta === undefined || meta === null || typeof meta !== 'object') return undefined;
  const { [PROGRESS_TOKEN]: _token, ...rest } = meta;
  return Object.keys(rest).length > 0 ? { _meta: rest } : undefined;
}

/**
 * The side fields of a message (a result, a server's request or notification, a client's answer): every field but
 * `own` (those the interaction carries itself), `_meta` included. Undefined when there is none.
 */
export function messageSideFields(message: object, own: readonly string[]): Record<string, unknown> | undefined {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(message)) {
    if (own.includes(k) || v === undefined) continue;
    if (k === '_meta' && v !== null && typeof v === 'object') {
      const { [PROGRESS_TOKEN]: _token, ...m } = v as Record<string, unknown>;
      if (Object.keys(m).length > 0) rest._meta = m;
      continue;
    }
    rest[k] = v;
  }
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** `{ meta }` to spread into an interaction, or nothing. */
export function withMeta(meta: Record<string, unknown> | undefined): { meta?: Record<string, unknown> } {
  return meta === undefined ? {} : { meta };
}
