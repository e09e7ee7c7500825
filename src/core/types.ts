import { z } from 'zod';

/**
 * The one seam between the proxy and the guard: the proxy builds an `Interaction` for every tool call, tool
 * result, resource read and inter-agent message, calls `Guard.check`, and maps the `Decision` to an MCP answer.
 * A denial is a value, never an exception.
 */

export const InteractionKindSchema = z.enum(['tool_call', 'tool_result', 'resource_read', 'message']);
export type InteractionKind = z.infer<typeof InteractionKindSchema>;

/** An MCP content block (text, image, audio, resource_link, embedded resource); kept loose on purpose. */
export const ContentBlockSchema = z.looseObject({ type: z.string() });
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

/** Facts bound to the established agent identity (from config or an eval case), never from what a client claims. */
export const ProfileSchema = z.record(z.string(), z.unknown());
export type Profile = z.infer<typeof ProfileSchema>;

export const InteractionSchema = z.object({
  kind: InteractionKindSchema,
  /** Identity the proxy established: a verified bearer token, `--agent` on stdio, or the eval case's agent. */
  agent: z.string().min(1),
  /** Upstream session (Γ is kept per session). */
  session: z.string().min(1),
  profile: ProfileSchema.default({}),
  /** Downstream server key (un-namespaced). Absent for `message`. */
  server: z.string().optional(),
  /** The server's own tool name (un-namespaced); for `tool_result`, the tool that produced the result. */
  tool: z.string().optional(),
  /** `resource_read`: the downstream (un-prefixed) URI. */
  uri: z.string().optional(),
  /** `resource_read`: `request` before forwarding, `response` when the contents come back. */
  phase: z.enum(['request', 'response']).optional(),
  /** `tool_call`: the arguments as sent. */
  arguments: z.record(z.string(), z.unknown()).optional(),
  /** `tool_result` / `resource_read` response: content blocks; `message`: the message text. */
  content: z.union([z.string(), z.array(ContentBlockSchema)]).optional(),
  /** `message`: who sends it and to whom. */
  sender: z.string().optional(),
  recipient: z.string().optional(),
});
export type Interaction = z.infer<typeof InteractionSchema>;
export type InteractionInput = z.input<typeof InteractionSchema>;

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
  return DecisionSchema.parse(input);
}

/** A guard that allows everything; the identity element when guards are composed. */
export const allowAll: Guard = {
  async check() {
    return makeDecision({ decision: 'allow', rationale: 'no guard configured', source: 'none' });
  },
};
