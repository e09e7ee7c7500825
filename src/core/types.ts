import { z } from 'zod';
import { FlowFactsSchema, SteeringSchema } from './flow.js';
import { BOOK_KIND_NAMES, INTERACTION_KINDS, type InteractionKind } from './kinds.js';

/**
 * The one seam between the proxy and the guard: the proxy builds an `Interaction` for every tool call and result,
 * resource and prompt request and result, inter-agent message, and every sampling or elicitation request a server
 * sends its client, calls `Guard.check`, and maps the `Decision` to an MCP answer.
 * A denial is a value, never an exception.
 */

export const InteractionKindSchema = z.enum(INTERACTION_KINDS);
export type { InteractionKind } from './kinds.js';

/** What a rule's `applies_to` may name: a kind, or an alias for several (`resource_read`; see core/kinds.ts). */
export const BookKindSchema = z.enum(BOOK_KIND_NAMES);

/** An MCP content block (text, image, audio, resource_link, embedded resource); kept loose on purpose. */
export const ContentBlockSchema = z.looseObject({ type: z.string() });
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

/** Facts bound to the established agent identity (from config or an eval case), never from what a client claims. */
export const ProfileSchema = z.record(z.string(), z.unknown());
export type Profile = z.infer<typeof ProfileSchema>;

/** Content blocks as the server sent them, or a plain text. */
const ContentSchema = z.union([z.string(), z.array(ContentBlockSchema)]);
const ArgumentsSchema = z.record(z.string(), z.unknown());

/** Fields every interaction has. */
const base = {
  /** Identity the proxy established: a verified bearer token, `--agent` on stdio, or the eval case's agent. */
  agent: z.string().min(1),
  /** Upstream session (Γ is kept per session). */
  session: z.string().min(1),
  profile: ProfileSchema.default({}),
  /** Set by the guard's data-flow stage before predicates run (capability labels, leaked private data); never by the proxy. */
  flow: FlowFactsSchema.optional(),
  /**
   * The message's side fields as they travel (core/side-fields.ts): a request's or result's `_meta` (without the
   * progress token), and every other field beside the kind's own. Read with the arguments when the kind goes to a
   * server, with the content when it goes to the client (`KINDS[kind].direction`).
   */
  meta: z.record(z.string(), z.unknown()).optional(),
};

/** tools/call before forwarding: the server's own tool name (un-namespaced) and the arguments as sent. */
export const ToolCallSchema = z.object({
  kind: z.literal('tool_call'),
  ...base,
  /** Downstream server key (un-namespaced). */
  server: z.string().optional(),
  tool: z.string(),
  arguments: ArgumentsSchema.optional(),
  /**
   * Absolute directories the downstream server may resolve a relative path against (its working directory first,
   * then directories it was started with), set by the proxy from the server's config.
   */
  roots: z.array(z.string()).optional(),
  /** Argument names the tool's input schema marks as paths (core/schema-paths.ts), set by the proxy. */
  pathKeys: z.array(z.string()).optional(),
  /**
   * Arguments the tool's input schema marks as credentials (core/credential-fields.ts: `format: password`,
   * `writeOnly`, `x-sensitive`, a description naming a password, token, key or secret), as paths below the arguments
   * (`auth.value`), set by the proxy. Fields named for a credential need no entry.
   */
  credentialKeys: z.array(z.string()).optional(),
});

/** tools/call's answer: the tool that produced it and the content blocks it returned. */
export const ToolResultSchema = z.object({
  kind: z.literal('tool_result'),
  ...base,
  server: z.string().optional(),
  tool: z.string(),
  content: ContentSchema.optional(),
});

/** resources/read before forwarding: the downstream (un-prefixed) URI. */
export const ResourceRequestSchema = z.object({
  kind: z.literal('resource_request'),
  ...base,
  server: z.string().optional(),
  uri: z.string(),
});

/** resources/read's answer: the contents as embedded-resource blocks. */
export const ResourceResultSchema = z.object({
  kind: z.literal('resource_result'),
  ...base,
  server: z.string().optional(),
  uri: z.string(),
  content: ContentSchema.optional(),
});

/** prompts/get before forwarding: the server's own prompt name and its arguments. */
export const PromptRequestSchema = z.object({
  kind: z.literal('prompt_request'),
  ...base,
  server: z.string().optional(),
  prompt: z.string(),
  arguments: ArgumentsSchema.optional(),
});

/** prompts/get's answer: each message's content block. */
export const PromptResultSchema = z.object({
  kind: z.literal('prompt_result'),
  ...base,
  server: z.string().optional(),
  prompt: z.string(),
  content: ContentSchema.optional(),
});

/** An inter-agent message (`guard_check_message`): who sends it, to whom, and its text. */
export const MessageSchema = z.object({
  kind: z.literal('message'),
  ...base,
  sender: z.string().optional(),
  recipient: z.string().optional(),
  content: ContentSchema.optional(),
});

/**
 * sampling/createMessage from a server: text it wants the client's model to read (the system prompt and every
 * message's content blocks).
 */
export const SamplingRequestSchema = z.object({
  kind: z.literal('sampling_request'),
  ...base,
  /** The server asking. */
  server: z.string().optional(),
  content: ContentSchema.optional(),
});

/**
 * elicitation/create from a server: the message to the user and the requested schema as JSON text (so field
 * names such as "password" are inspectable); in URL mode, the URL the user is sent to.
 */
export const ElicitationRequestSchema = z.object({
  kind: z.literal('elicitation_request'),
  ...base,
  server: z.string().optional(),
  uri: z.string().optional(),
  content: ContentSchema.optional(),
});

/**
 * The user's answer to an elicitation/create (action `accept`), before it goes back to the server that asked: data
 * leaving to that server. `arguments` holds the answer's fields as the client gave them.
 */
export const ElicitationResultSchema = z.object({
  kind: z.literal('elicitation_result'),
  ...base,
  /** The server that asked, and receives the answer. */
  server: z.string().optional(),
  action: z.enum(['accept', 'decline', 'cancel']).optional(),
  arguments: ArgumentsSchema.optional(),
});

/**
 * The client model's reply to a sampling/createMessage (a CreateMessageResult), before it goes back to the server
 * that asked: data leaving to that server (a request with `includeContext` can draw other servers' data into it).
 * `content` holds the reply's content blocks (text, tool use, …); the model name and stop reason are not checked.
 */
export const SamplingResultSchema = z.object({
  kind: z.literal('sampling_result'),
  ...base,
  /** The server that asked, and receives the reply. */
  server: z.string().optional(),
  content: ContentSchema.optional(),
});

/**
 * A log message a server sends its client (notifications/message), before it reaches the session it concerns:
 * `content` is its `data` (a text block, or a block holding the structured data), `logger` the server's logger name.
 */
export const LogMessageSchema = z.object({
  kind: z.literal('log_message'),
  ...base,
  server: z.string().optional(),
  logger: z.string().optional(),
  content: ContentSchema.optional(),
});

/**
 * The client's answer to a server's roots/list, before it goes to that server: `arguments.roots` holds each root as
 * the client gave it (`uri`, `name`, its `_meta`), so names and URIs are read as any value sent to a server is.
 */
export const RootsResultSchema = z.object({
  kind: z.literal('roots_result'),
  ...base,
  /** The server that asked, and receives the roots. */
  server: z.string().optional(),
  arguments: ArgumentsSchema.optional(),
});

/**
 * One interaction, by kind: each kind has exactly its fields (core/kinds.ts says what each kind is). Unknown keys
 * are dropped when parsing, so a `content` given with a request is not seen by any detector.
 */
export const InteractionSchema = z.discriminatedUnion('kind', [
  ToolCallSchema,
  ToolResultSchema,
  ResourceRequestSchema,
  ResourceResultSchema,
  PromptRequestSchema,
  PromptResultSchema,
  MessageSchema,
  SamplingRequestSchema,
  ElicitationRequestSchema,
  ElicitationResultSchema,
  SamplingResultSchema,
  LogMessageSchema,
  RootsResultSchema,
]);
export type Interaction = z.infer<typeof InteractionSchema>;
export type InteractionInput = z.input<typeof InteractionSchema>;
/** The interaction of one kind: `InteractionOf<'tool_call'>`. */
export type InteractionOf<K extends InteractionKind> = Extract<Interaction, { kind: K }>;

/** A compile-time check that every kind of core/kinds.ts has a member above (an error here names the missing one). */
type MissingMember = Exclude<InteractionKind, Interaction['kind']>;
export const EVERY_KIND_HAS_A_MEMBER: [MissingMember] extends [never] ? true : MissingMember = true;

/**
 * Interactions written before the union (eval case files, audit rows recorded by older versions, `policy explain`
 * input): `resource_read` with `phase: request|response` becomes a resource request or result, and one whose URI is
 * `prompt:<name>` (how prompts/get travelled) a prompt request or result. Anything else is returned unchanged.
 */
export function upgradeLegacyInteraction(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object' || (raw as { kind?: unknown }).kind !== 'resource_read') return raw;
  const { phase, uri, ...rest } = raw as Record<string, unknown>;
  const side = phase === 'response' ? 'result' : 'request';
  if (typeof uri === 'string' && uri.startsWith('prompt:')) return { ...rest, kind: `prompt_${side}`, prompt: uri.slice('prompt:'.length) };
  return { ...rest, kind: `resource_${side}`, uri };
}

/** `InteractionSchema` that also accepts the pre-union shapes (see `upgradeLegacyInteraction`). */
export const AnyInteractionSchema = z.preprocess(upgradeLegacyInteraction, InteractionSchema);

/** The server an interaction goes to or comes from (absent for messages). */
export function serverOf(i: Interaction): string | undefined {
  return 'server' in i ? i.server : undefined;
}

/** The tool of a tool call or result. */
export function toolOf(i: Interaction): string | undefined {
  return 'tool' in i ? i.tool : undefined;
}

/** The arguments of a tool call or prompt request (or the fields of an elicitation answer). */
export function argumentsOf(i: Interaction): Record<string, unknown> | undefined {
  return 'arguments' in i ? i.arguments : undefined;
}

/** The side fields of an interaction (see `meta` above), if any. */
export function metaOf(i: Interaction): Record<string, unknown> | undefined {
  return i.meta !== undefined && Object.keys(i.meta).length > 0 ? i.meta : undefined;
}

/** The content of a result or message (or a sampling request or reply). */
export function contentOf(i: Interaction): string | ContentBlock[] | undefined {
  return 'content' in i ? i.content : undefined;
}

/** What an interaction is about: the tool, the resource URI, the prompt name, or the message's recipient. */
export function targetOf(i: Interaction): string | undefined {
  switch (i.kind) {
    case 'tool_call':
    case 'tool_result':
      return i.tool;
    case 'resource_request':
    case 'resource_result':
      return i.uri;
    case 'prompt_request':
    case 'prompt_result':
      return i.prompt;
    case 'message':
      return i.recipient;
    case 'sampling_request':
      return undefined;
    case 'elicitation_request':
      return i.uri;
    case 'elicitation_result':
    case 'sampling_result':
      return undefined;
    case 'log_message':
      return i.logger;
    case 'roots_result':
      return undefined;
  }
}

/** Three-valued truth used by predicates and rules. */
export const TruthSchema = z.enum(['true', 'false', 'unknown']);
export type Truth = z.infer<typeof TruthSchema>;

/** The smallest set of predicate values that forces a rule's violation. */
export const WitnessSchema = z.object({
  rule: z.string(),
  predicates: z.record(z.string(), TruthSchema),
  /** 1 when every witness predicate is decided; lower when the violation rests on unknown or low-confidence values. */
  confidence: z.number().min(0).max(1),
});
export type Witness = z.infer<typeof WitnessSchema>;

/** Model accounting of one interaction (every model call, failed ones included), as in `Decision.detail.llm`. */
export const ModelUsageSchema = z.object({
  calls: z.number().int().nonnegative(),
  promptTokens: z.number().nonnegative(),
  completionTokens: z.number().nonnegative(),
  /** Wall-clock time of the calls; guards other than the pipeline may leave it out. */
  ms: z.number().nonnegative().optional(),
});
export type ModelUsage = z.infer<typeof ModelUsageSchema>;

/** Life cycle of an approval request (store/approvals.ts keeps them). */
export const ApprovalStatusSchema = z.enum(['pending', 'approved', 'denied', 'used', 'expired']);
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>;

/**
 * The machine-readable extras of a decision. Every writer (the pipeline's stages, the referee, the approvals) and
 * reader (the audit row, the denial text, the eval harness, the live view) goes through this one schema.
 */
export const DecisionDetailSchema = z.strictObject({
  /** How many predicates the state tracker evaluated (C = TopK ∪ MustCheck). */
  candidates: z.number().int().nonnegative().optional(),
  /** The threat watcher after this interaction: τ, level, whether the request rate was a burst, the rate. */
  threat: z.object({ tau: z.number(), level: z.number().int().min(0).max(4), burst: z.boolean(), rate: z.number() }).optional(),
  /** Model accounting of every model call of this interaction. */
  llm: ModelUsageSchema.optional(),
  /** Semantic predicates re-decided by the strong model (state expansion). */
  expanded: z.array(z.string()).optional(),
  /** The model's threat step (watcher complement). */
  modelThreat: z.object({ delta: z.number().int().min(-1).max(1), reason: z.string() }).optional(),
  /** The model review of a soft denial: its ruling, or the error that made the denial stand. */
  review: z
    .union([z.strictObject({ ruling: z.enum(['allow', 'deny']), rationale: z.string().optional() }), z.strictObject({ error: z.string() })])
    .optional(),
  /** The approval a held interaction waits under, or the approval that let it through. */
  approval: z.object({ id: z.string(), status: ApprovalStatusSchema, expiresAt: z.number() }).optional(),
  /** Data-flow source of the decision (shape owned by the data-flow work). */
  flow: z.unknown().optional(),
  /** The untrusted read a held or denied call was steered by (docs/provenance.md). */
  provenance: SteeringSchema.optional(),
  /** A refusal for rate (source `rate`): how long to wait before the same request may pass. */
  retryAfterMs: z.number().int().positive().optional(),
});
export type DecisionDetail = z.infer<typeof DecisionDetailSchema>;

export const DecisionSchema = z.object({
  decision: z.enum(['allow', 'deny']),
  /** Self-contained explanation the agent can act on (rule text, witness, what to do instead). */
  rationale: z.string(),
  /** Ids of the rules that caused a denial (enforced) or were only flagged (monitor, on_unknown: flag). */
  rules: z.array(z.string()).default([]),
  flagged: z.array(z.string()).default([]),
  witness: z.array(WitnessSchema).default([]),
  /** Threat level of the agent after this interaction, 0–4. */
  threatLevel: z.number().int().min(0).max(4).optional(),
  remediation: z.string().optional(),
  /** Results only: allowed, but the client sees this content instead (redaction / sanitising). */
  replacement: z.array(ContentBlockSchema).optional(),
  /** Which stage decided: `filter` (server allow/deny lists), `pipeline`, `quarantine`, `error` (fail-closed). */
  source: z.string().default('pipeline'),
  /** Audit row id, once recorded. */
  auditId: z.string().optional(),
  policy: z.object({ name: z.string(), version: z.string(), hash: z.string() }).optional(),
  elapsedMs: z.number().optional(),
  /** Machine-readable extras (see DecisionDetailSchema). */
  detail: DecisionDetailSchema.default({}),
});
export type Decision = z.infer<typeof DecisionSchema>;
export type DecisionInput = z.input<typeof DecisionSchema>;

/** Anything that decides. The proxy knows only this interface. */
export interface Guard {
  check(interaction: Interaction, signal?: AbortSignal): Promise<Decision>;
}

/** Builds a complete `Decision` from the fields that matter, filling defaults. */
export function makeDecision(input: DecisionInput): Decision {
  return plainDecision(input) ?? DecisionSchema.parse(input);
}

const PLAIN_DECISION_KEYS: ReadonlySet<string> = new Set(['decision', 'rationale', 'rules', 'flagged', 'witness', 'threatLevel', 'remediation', 'source', 'detail']);

/**
 * `DecisionSchema.parse(input)` without zod for the common shape (the referee's allow and most denials): only the
 * keys above, every one defined, string lists, no witness, an empty detail. Anything else is undefined and goes
 * through the schema, so this never accepts what the schema refuses; the output is the schema's, key for key and
 * in its order (test/core/decision-fast.test.ts compares both on generated inputs). Exported for that test.
 */
export function plainDecision(input: DecisionInput): Decision | undefined {
  if (typeof input !== 'object' || input === null || Object.getPrototypeOf(input) !== Object.prototype) return undefined;
  for (const key of Object.keys(input)) {
    if (!PLAIN_DECISION_KEYS.has(key) || (input as Record<string, unknown>)[key] === undefined) return undefined;
  }
  const { decision, rationale, threatLevel, remediation, source, detail, witness } = input;
  if ((decision !== 'allow' && decision !== 'deny') || typeof rationale !== 'string') return undefined;
  const rules = stringListCopy(input.rules);
  const flagged = stringListCopy(input.flagged);
  if (!rules || !flagged) return undefined;
  if (witness !== undefined && !(Array.isArray(witness) && witness.length === 0)) return undefined;
  if (threatLevel !== undefined && !(typeof threatLevel === 'number' && Number.isInteger(threatLevel) && threatLevel >= 0 && threatLevel <= 4)) return undefined;
  if (remediation !== undefined && typeof remediation !== 'string') return undefined;
  if (source !== undefined && typeof source !== 'string') return undefined;
  if (detail !== undefined && !(typeof detail === 'object' && detail !== null && Object.getPrototypeOf(detail) === Object.prototype && Object.keys(detail).length === 0)) return undefined;
  // Built in the schema's key order (insertion order is what JSON and the audit row see).
  const out = { decision, rationale, rules, flagged, witness: [] } as unknown as Decision;
  if (threatLevel !== undefined) out.threatLevel = threatLevel;
  if (remediation !== undefined) out.remediation = remediation;
  out.source = source ?? 'pipeline';
  out.detail = {};
  return out;
}

/**
 * A copy of a list of strings (a missing list is empty), or undefined when it is anything else (a hole counts as
 * a non-string): what `z.array(z.string()).default([])` gives, for the schemas' fast paths.
 */
export function stringListCopy(v: unknown): string[] | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return undefined;
  const out = new Array<string>(v.length);
  for (let k = 0; k < v.length; k++) {
    const x: unknown = v[k];
    if (typeof x !== 'string') return undefined;
    out[k] = x;
  }
  return out;
}

/** A guard that allows everything; the identity element when guards are composed. */
export const allowAll: Guard = {
  async check() {
    return makeDecision({ decision: 'allow', rationale: 'no guard configured', source: 'none' });
  },
};
