import { z } from 'zod';
import { CapabilityLabelSchema } from '../core/flow.js';
import { BookKindSchema } from '../core/types.js';
import { DetectorSpecSchema } from '../detectors/types.js';

export { DetectorSpecSchema, type DetectorSpec } from '../detectors/types.js';

/**
 * The policy book: the human-readable, signed source of truth of the guard (DESIGN §2, QuadSentinel §3.2).
 * One zod schema; every type of the policy layer is inferred from it.
 *
 * A rule's `formula` is its safety obligation: the rule is VIOLATED when the formula evaluates to false under the
 * current predicate values Γ, e.g. `!(secret_in_arguments & external_destination)`.
 */


export const PredicateNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'predicate names are snake_case: lower-case letters, digits and _ , starting with a letter');

export const PredicateSchema = z.strictObject({
  name: PredicateNameSchema,
  /** The natural-language definition an LLM would evaluate. */
  description: z.string().min(1),
  keywords: z.array(z.string()).default([]),
  /**
   * Which interactions the predicate speaks about (core/kinds.ts): `action` (tool calls, resource and prompt
   * requests), `result` (their results), `message`, `sampling` (a server's sampling/createMessage request),
   * `elicitation` (a server's elicitation/create request), or `any`.
   */
  scope: z.enum(['action', 'message', 'result', 'sampling', 'elicitation', 'roots', 'any']).default('any'),
  /** `event`: recomputed per interaction, false unless evaluated true; `sticky`: once true, true for the session. */
  persistence: z.enum(['event', 'sticky']).default('event'),
  /** Glob patterns on `<server>__<tool>` that make the predicate must-check for those tools. */
  tools: z.array(z.string()).optional(),
  /** Deterministic detectors. None: the predicate is semantic and stays unknown until a model is configured. */
  detectors: z.array(DetectorSpecSchema).default([]),
  /** How several detectors combine: `any` (three-valued OR, the default) or `all` (three-valued AND). */
  combine: z.enum(['any', 'all']).default('any'),
});
export type Predicate = z.infer<typeof PredicateSchema>;

export const SeveritySchema = z.enum(['low', 'medium', 'high', 'critical']);
export type Severity = z.infer<typeof SeveritySchema>;
export const SEVERITY_RANK: Record<Severity, number> = { low: 1, medium: 2, high: 3, critical: 4 };

export const RuleSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'rule ids use letters, digits, - and _'),
  /** The policy sentence the rule came from. */
  text: z.string().min(1),
  /**
   * Interaction kinds the rule is checked on (the paper's R^act vs R^msg split, refined): kinds of core/kinds.ts,
   * or `resource_read`, the older name that still means every resource and prompt request and result.
   */
  applies_to: z.array(BookKindSchema).min(1),
  formula: z.string().min(1),
  severity: SeveritySchema,
  /** Hard rules always deny and are never overridden by a model. */
  hard: z.boolean().default(false),
  mode: z.enum(['enforce', 'monitor']).default('enforce'),
  /** What an undecided (unknown) outcome does. Default: `deny` for hard rules, `flag` (allow and flag) for soft. */
  on_unknown: z.enum(['deny', 'allow', 'flag']).optional(),
  /** What the agent should do instead; quoted in the denial. */
  remediation: z.string().optional(),
  /**
   * On a violated result-side rule: `deny` replaces the result with a denial, `redact` masks what detectors caught.
   * `approve` (soft rules only) holds the interaction for a person: it is denied with an approval id, and once a
   * person approves that id the agent's retry of the exact same call passes, once.
   */
  effect: z.enum(['deny', 'redact', 'approve']).default('deny'),
});
export type Rule = z.infer<typeof RuleSchema>;

/**
 * Capability labels of tools (docs/data-flow.md): `tools` entries match `<server>__<tool>` globs, the first
 * matching entry wins; a config's per-server `capabilities` override them, and they override MCP annotations.
 * `unlabelled` is what a tool with neither labels nor annotations is treated as.
 */
/** `capabilities.send_words` when a book gives none. */
export const DEFAULT_SEND_WORDS: string[] = [
  'send', 'post', 'publish', 'share', 'upload', 'tweet', 'retweet', 'reply', 'forward', 'invite', 'comment', 'notify', 'broadcast',
  'transfer', 'withdraw', 'pay', 'wire', 'submit', 'email', 'mail', 'message', 'sms', 'webhook',
];

/** `capabilities.read_words` when a book gives none. */
export const DEFAULT_READ_WORDS: string[] = [
  'get', 'list', 'read', 'search', 'find', 'view', 'fetch', 'check', 'lookup', 'query', 'describe', 'show', 'retrieve', 'count', 'download',
];

export const CapabilitiesSchema = z.strictObject({
  tools: z
    .array(z.strictObject({ match: z.array(z.string().min(1)).min(1), labels: z.array(CapabilityLabelSchema).min(1), note: z.string().optional() }))
    .default([]),
  unlabelled: z.array(CapabilityLabelSchema).default(['private_source']),
  /**
   * Words that, in the name of a tool with neither labels nor annotations (split at `_`, `-`, `.` and case changes:
   * `GmailSendEmail` is gmail, send, email), declare that it sends: such a tool is also an `external_send`. Any other
   * unlabelled tool (and any tool whose own annotations say it reads or stays in a closed world) is a sink only for
   * private data read from another server (docs/data-flow.md).
   */
  send_words: z.array(z.string().min(1)).default(DEFAULT_SEND_WORDS),
  /** Words that, in the same name, say the tool reads (`GmailReadEmail`, `get_post`): then no send word counts. */
  read_words: z.array(z.string().min(1)).default(DEFAULT_READ_WORDS),
});
export type Capabilities = z.infer<typeof CapabilitiesSchema>;

export const PolicyBookSchema = z.strictObject({
  name: z.string().min(1),
  version: z.string().min(1),
  description: z.string().optional(),
  /** File (relative to the book) holding the natural-language policy this book was written from. */
  source: z.string().optional(),
  predicates: z.array(PredicateSchema),
  /** Capability labels of tools for data-flow predicates; absent: annotations and the default `unlabelled`. */
  capabilities: CapabilitiesSchema.optional(),
  rules: z.array(RuleSchema),
});
export type PolicyBook = z.infer<typeof PolicyBookSchema>;
export type PolicyBookInput = z.input<typeof PolicyBookSchema>;
