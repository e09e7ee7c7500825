import { z } from 'zod';

/**
 * The one table of interaction kinds: what each kind is, which predicate scopes speak about it, which book names
 * select it in a rule's `applies_to`, and whether it can wait for a person's approval. `predicateApplies`, the
 * dependency graph, the verifier, the referee, the approvals, the book checker and docs/interactions.md all read
 * this table, and so do the data-flow stage, the provenance stage and the `data_flow` and injection detectors (what
 * a kind carries, whether it is a sink, what it brings its receiver, how its text reads); nothing else decides these
 * questions.
 *
 * Adding a kind (e.g. the sampling and elicitation requests a server sends to the client): add it to
 * `INTERACTION_KINDS`, give it a row in `KINDS`, add its member to `InteractionSchema` (core/types.ts; the
 * compiler checks that every kind has one), and fill every column of the row (`KindRowSchema`).
 */

/** Every interaction kind, in the order the docs list them. */
export const INTERACTION_KINDS = [
  'tool_call',
  'tool_result',
  'resource_request',
  'resource_result',
  'prompt_request',
  'prompt_result',
  'message',
  // Server-to-client requests: each has a scope of its own.
  'sampling_request',
  'elicitation_request',
  // ...and what goes back to the server: the user's answer to an elicitation, the client model's sampling reply.
  'elicitation_result',
  'sampling_result',
  // A log message a server sends its client (notifications/message): text that reaches the client, as a result does.
  'log_message',
  // The client's answer to a server's roots/list (each root's URI and name), before it goes to that server.
  'roots_result',
] as const;
export type InteractionKind = (typeof INTERACTION_KINDS)[number];

/** A predicate's `scope`: which side of an exchange it speaks about. */
export type PredicateScope = 'action' | 'result' | 'message' | 'sampling' | 'elicitation' | 'roots' | 'any';

/**
 * What an interaction is, in policy terms: an `action` the agent asks for (it has not happened yet, so it can be
 * denied or held), a `result` coming back from a server (it already happened: it can be denied or redacted, not
 * held), a `message` between agents, or a request a server sends the client: `sampling` (text for the client's
 * model to read, and the model's reply going back to the server) and `elicitation` (a question to the user, and the
 * user's answer going back to the server), each with a scope of its own; and `roots`, the client's roots a server
 * asks for (its directories' URIs and names, going to that server).
 */
export const KindRoleSchema = z.enum(['action', 'result', 'message', 'sampling', 'elicitation', 'roots']);
export type KindRole = z.infer<typeof KindRoleSchema>;

/**
 * One row of the table: every column a kind must fill (strict: `test/core/kinds.test.ts` parses every row with it,
 * so a new kind, or a new column, cannot leave a cell out).
 */
export const KindRowSchema = z.strictObject({
  role: KindRoleSchema,
  /** Human words for rationales and logs ("tool call", "resource result"). */
  label: z.string().min(1),
  /** The MCP method the kind comes from (the proxy's tool `guard_check_message` for messages). */
  method: z.string().min(1),
  /** Whether a rule with `effect: approve` can hold it for a person (actions and messages: they have not happened). */
  holdable: z.boolean(),
  /** Whether `effect: redact` masks it (results only: there is content to mask and it came from a server). */
  redactable: z.boolean(),
  /**
   * Where it travels: to a server (a request, an answer the client gives a server), to the client (a result, what a
   * server asks or tells the client), or between agents. A side field (`meta`) is read with what travels the same way.
   */
  direction: z.enum(['to_server', 'to_client', 'between_agents']),
  /**
   * How the injection detector reads its text: `instructions` when giving the model orders is what the text is for
   * (a message, a call's arguments, the messages of a prompt the user picked), so orders alone weigh less there;
   * `data` otherwise (results, resources, what a server asks of the client), where an order is suspect.
   */
  reads_as: z.enum(['instructions', 'data']),
  /** The field that holds its data: a call's, a prompt request's or an elicitation answer's `arguments`, a resource request's `uri`, else `content`. */
  payload: z.enum(['arguments', 'uri', 'content']),
  /**
   * Whether its data leaves for someone who may not keep it private (the data-flow stage reads it for private data
   * the identity read, the `data_flow` detector asks whether it is a sink), and what makes it one: `labels` (a tool
   * call: its tool's capability labels; the server passes the data on), or the `data_flow` option that opts it in
   * (`messages`; `elicitation`, `sampling`, `requests`: data going back to the server that asked). `none`: it comes
   * to the client.
   */
  sink: z.enum(['labels', 'messages', 'elicitation', 'sampling', 'requests', 'none']),
  /**
   * What it brings its receiver, as the data-flow and provenance stages count reads: `tool` data (a tool result: the
   * tool's capability labels say whether it is private or untrusted), `server` data (a resource or prompt: whatever
   * the server holds), `agent` data (a message: private to its recipient), or `none` (requests, and what a server
   * asks or tells the client).
   */
  read_of: z.enum(['tool', 'server', 'agent', 'none']),
});
export type KindRow = z.infer<typeof KindRowSchema>;

export const KINDS: Readonly<Record<InteractionKind, KindRow>> = {
  tool_call: { role: 'action', label: 'tool call', method: 'tools/call', holdable: true, redactable: false, direction: 'to_server', reads_as: 'instructions', payload: 'arguments', sink: 'labels', read_of: 'none' },
  tool_result: { role: 'result', label: 'tool result', method: 'tools/call', holdable: false, redactable: true, direction: 'to_client', reads_as: 'data', payload: 'content', sink: 'none', read_of: 'tool' },
  resource_request: { role: 'action', label: 'resource request', method: 'resources/read', holdable: true, redactable: false, direction: 'to_server', reads_as: 'data', payload: 'uri', sink: 'requests', read_of: 'none' },
  resource_result: { role: 'result', label: 'resource result', method: 'resources/read', holdable: false, redactable: true, direction: 'to_client', reads_as: 'data', payload: 'content', sink: 'none', read_of: 'server' },
  prompt_request: { role: 'action', label: 'prompt request', method: 'prompts/get', holdable: true, redactable: false, direction: 'to_server', reads_as: 'data', payload: 'arguments', sink: 'requests', read_of: 'none' },
  prompt_result: { role: 'result', label: 'prompt result', method: 'prompts/get', holdable: false, redactable: true, direction: 'to_client', reads_as: 'instructions', payload: 'content', sink: 'none', read_of: 'server' },
  message: { role: 'message', label: 'message', method: 'tools/call guard_check_message', holdable: true, redactable: false, direction: 'between_agents', reads_as: 'instructions', payload: 'content', sink: 'messages', read_of: 'agent' },
  sampling_request: { role: 'sampling', label: 'sampling request', method: 'sampling/createMessage', holdable: false, redactable: false, direction: 'to_client', reads_as: 'data', payload: 'content', sink: 'none', read_of: 'none' },
  elicitation_request: { role: 'elicitation', label: 'elicitation request', method: 'elicitation/create', holdable: false, redactable: false, direction: 'to_client', reads_as: 'data', payload: 'content', sink: 'none', read_of: 'none' },
  elicitation_result: { role: 'elicitation', label: 'elicitation answer', method: 'elicitation/create', holdable: false, redactable: false, direction: 'to_server', reads_as: 'data', payload: 'arguments', sink: 'elicitation', read_of: 'none' },
  sampling_result: { role: 'sampling', label: 'sampling reply', method: 'sampling/createMessage', holdable: false, redactable: false, direction: 'to_server', reads_as: 'data', payload: 'content', sink: 'sampling', read_of: 'none' },
  log_message: { role: 'result', label: 'log message', method: 'notifications/message', holdable: false, redactable: true, direction: 'to_client', reads_as: 'data', payload: 'content', sink: 'none', read_of: 'none' },
  roots_result: { role: 'roots', label: 'roots answer', method: 'roots/list', holdable: false, redactable: false, direction: 'to_server', reads_as: 'data', payload: 'arguments', sink: 'requests', read_of: 'none' },
};

/** Whether a predicate of this scope speaks about this kind: `any` about all, otherwise the kind's role. */
export function scopeCovers(scope: PredicateScope, kind: InteractionKind): boolean {
  return scope === 'any' || KINDS[kind].role === scope;
}

/** The kinds each predicate scope speaks about (derived from `KINDS`). */
export const SCOPE_KINDS: Readonly<Record<PredicateScope, readonly InteractionKind[]>> = {
  action: INTERACTION_KINDS.filter((k) => scopeCovers('action', k)),
  result: INTERACTION_KINDS.filter((k) => scopeCovers('result', k)),
  message: INTERACTION_KINDS.filter((k) => scopeCovers('message', k)),
  sampling: INTERACTION_KINDS.filter((k) => scopeCovers('sampling', k)),
  elicitation: INTERACTION_KINDS.filter((k) => scopeCovers('elicitation', k)),
  roots: INTERACTION_KINDS.filter((k) => scopeCovers('roots', k)),
  any: INTERACTION_KINDS,
};

/**
 * Names a book may use in a rule's `applies_to` (and the `tool` detector's `kinds`) besides the kinds
 * themselves. `resource_read` is the name from before prompts and resources had kinds of their own, when a
 * prompts/get travelled as a resource read: it keeps meaning every read, request and result, of a resource or a
 * prompt, so a book written for it decides as it did.
 */
export const KIND_ALIASES = {
  resource_read: ['resource_request', 'resource_result', 'prompt_request', 'prompt_result'],
} as const satisfies Record<string, readonly InteractionKind[]>;
export type KindAlias = keyof typeof KIND_ALIASES;

/** Every name `applies_to` accepts: the kinds, then the aliases. */
export const BOOK_KIND_NAMES = [...INTERACTION_KINDS, ...(Object.keys(KIND_ALIASES) as KindAlias[])] as const;
export type BookKindName = InteractionKind | KindAlias;

/** The kinds a list of book names selects (aliases expanded), in table order, without repeats. */
export function expandKinds(names: readonly BookKindName[]): InteractionKind[] {
  const want = new Set<InteractionKind>();
  for (const n of names) {
    if (n in KIND_ALIASES) for (const k of KIND_ALIASES[n as KindAlias]) want.add(k);
    else want.add(n as InteractionKind);
  }
  return INTERACTION_KINDS.filter((k) => want.has(k));
}

/** Whether the kind is a result (a server's answer that already happened). */
export function isResultKind(kind: InteractionKind): boolean {
  return KINDS[kind].role === 'result';
}
