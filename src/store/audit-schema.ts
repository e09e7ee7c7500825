import { z } from 'zod';
import { argumentsOf, contentOf, InteractionKindSchema, metaOf, serverOf, stringListCopy, WitnessSchema, type Decision, type Interaction } from '../core/types.js';

/**
 * What an audit row records: the interaction kinds (core/kinds.ts), plus `admin` (release, quarantine, pin
 * approval). `resource_read` is read back from rows written before resources and prompts had kinds of their own.
 */
export const AuditKindSchema = z.enum([...InteractionKindSchema.options, 'admin', 'resource_read']);
export type AuditKind = z.infer<typeof AuditKindSchema>;

/** Model accounting stored with a decision (a subset of the LLM layer's usage record). */
export const LlmUsageColumnSchema = z.looseObject({
  calls: z.number().nonnegative(),
  promptTokens: z.number().nonnegative().optional(),
  completionTokens: z.number().nonnegative().optional(),
  ms: z.number().nonnegative().optional(),
});

/**
 * One decision to record. `payload` (arguments or content) is never stored in the chained row: only its digest and a
 * masked preview; `interaction`, when given, is stored masked and capped beside it (see audit-interaction.ts).
 */
export const AuditEntrySchema = z.object({
  /** Milliseconds since the epoch; default now. */
  ts: z.number().int().nonnegative().optional(),
  agent: z.string().min(1),
  session: z.string().min(1).default('-'),
  kind: AuditKindSchema,
  server: z.string().optional(),
  /** The tool, or for `admin` rows the action (`release`, `quarantine`, `approve_pin`). */
  tool: z.string().optional(),
  uri: z.string().optional(),
  recipient: z.string().optional(),
  payload: z.unknown().optional(),
  /** The interaction decided (guard rows): kept masked and capped in `audit_interaction` for `quadguard replay`. */
  interaction: z.custom<Interaction>((v) => typeof v === 'object' && v !== null).optional(),
  decision: z.enum(['allow', 'deny']),
  rationale: z.string().default(''),
  rules: z.array(z.string()).default([]),
  flagged: z.array(z.string()).default([]),
  witness: z.array(WitnessSchema).default([]),
  threatLevel: z.number().int().min(0).max(4).optional(),
  elapsedMs: z.number().nonnegative().optional(),
  policyHash: z.string().optional(),
  source: z.string().default('pipeline'),
  /** Model accounting of this decision, when a model was consulted. */
  llm: LlmUsageColumnSchema.optional(),
});
export type AuditEntry = z.input<typeof AuditEntrySchema>;
export type ParsedAuditEntry = z.output<typeof AuditEntrySchema>;

/** The members of AuditEntrySchema that `quickAuditEntry` knows; any other member turns the quick path off. */
const QUICK_MEMBERS = ['ts', 'agent', 'session', 'kind', 'server', 'tool', 'uri', 'recipient', 'payload', 'interaction', 'decision', 'rationale', 'rules', 'flagged', 'witness', 'threatLevel', 'elapsedMs', 'policyHash', 'source', 'llm'];
const QUICK_ON = Object.keys(AuditEntrySchema.shape).join() === QUICK_MEMBERS.join();
const AUDIT_KINDS: ReadonlySet<unknown> = new Set(AuditKindSchema.options);

const optString = (v: unknown): boolean => v === undefined || typeof v === 'string';

/**
 * `AuditEntrySchema.parse(entry)` for the entries of the allow path, without zod (a sixth of the row's own cost):
 * undefined whenever the entry is not plainly valid — a field of another type, witnesses, model accounting, an
 * object that is not a plain one — and the caller then parses with the schema, which gives the error or the value.
 * So every entry the schema rejects is still rejected by it, and an entry taken here has the schema's value in every
 * member (defaults included; test/store/audit-shortcuts.test.ts compares both on generated valid and invalid entries).
 * Each member is read once.
 */
export function quickAuditEntry(entry: unknown): ParsedAuditEntry | undefined {
  if (!QUICK_ON || typeof entry !== 'object' || entry === null) return undefined;
  const proto: unknown = Object.getPrototypeOf(entry);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const { ts, agent, session, kind, server, tool, uri, recipient, payload, interaction, decision, rationale, rules, flagged, witness, threatLevel, elapsedMs, policyHash, source, llm } =
    entry as Record<string, unknown>;
  if (llm !== undefined || !(witness === undefined || (Array.isArray(witness) && witness.length === 0))) return undefined;
  if (ts !== undefined && !(typeof ts === 'number' && Number.isSafeInteger(ts) && ts >= 0)) return undefined;
  if (typeof agent !== 'string' || agent.length === 0 || !(session === undefined || (typeof session === 'string' && session.length > 0))) return undefined;
  if (!AUDIT_KINDS.has(kind) || (decision !== 'allow' && decision !== 'deny')) return undefined;
  if (!optString(server) || !optString(tool) || !optString(uri) || !optString(recipient) || !optString(rationale) || !optString(policyHash) || !optString(source)) return undefined;
  if (interaction !== undefined && (typeof interaction !== 'object' || interaction === null)) return undefined;
  const ruleList = stringListCopy(rules);
  const flaggedList = stringListCopy(flagged);
  if (!ruleList || !flaggedList) return undefined;
  if (threatLevel !== undefined && !(typeof threatLevel === 'number' && Number.isInteger(threatLevel) && threatLevel >= 0 && threatLevel <= 4)) return undefined;
  if (elapsedMs !== undefined && !(typeof elapsedMs === 'number' && Number.isFinite(elapsedMs) && elapsedMs >= 0)) return undefined;
  return {
    ...(ts !== undefined ? { ts } : {}),
    agent,
    session: (session as string | undefined) ?? '-',
    kind: kind as AuditKind,
    ...(server !== undefined ? { server: server as string } : {}),
    ...(tool !== undefined ? { tool: tool as string } : {}),
    ...(uri !== undefined ? { uri: uri as string } : {}),
    ...(recipient !== undefined ? { recipient: recipient as string } : {}),
    ...(payload !== undefined ? { payload } : {}),
    ...(interaction !== undefined ? { interaction: interaction as Interaction } : {}),
    decision,
    rationale: (rationale as string | undefined) ?? '',
    rules: ruleList,
    flagged: flaggedList,
    witness: [],
    ...(threatLevel !== undefined ? { threatLevel } : {}),
    ...(elapsedMs !== undefined ? { elapsedMs } : {}),
    ...(policyHash !== undefined ? { policyHash: policyHash as string } : {}),
    source: (source as string | undefined) ?? 'pipeline',
  };
}

/** A JSON text column parsed with `schema`; a column that is not JSON fails the parse (a corrupt row). */
export const jsonText = <T extends z.ZodType>(schema: T) =>
  z.string().transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not JSON' });
      return z.NEVER;
    }
  }).pipe(schema);

/** A row as stored (snake_case columns), the exact input of the hash chain. */
export const RawAuditRowSchema = z.object({
  id: z.number().int().positive(),
  ts: z.number().int(),
  agent: z.string(),
  session: z.string(),
  kind: z.string(),
  server: z.string().nullable(),
  tool: z.string().nullable(),
  uri: z.string().nullable(),
  recipient: z.string().nullable(),
  digest: z.string().nullable(),
  preview: z.string().nullable(),
  size: z.number().int().nullable(),
  decision: z.string(),
  rules: z.string(),
  flagged: z.string(),
  witness: z.string(),
  threat: z.number().int().nullable(),
  rationale: z.string(),
  elapsed_ms: z.number().nullable(),
  policy_hash: z.string().nullable(),
  source: z.string(),
  /** Added by migration 4: null on older rows and on decisions that consulted no model. */
  llm: z.string().nullable().default(null),
  prev_hash: z.string(),
  hash: z.string(),
  /** Added by migration 5: HMAC of `hash` with the audit key kept outside the database (audit-key.ts). */
  mac: z.string().nullable().default(null),
  /** The audit id a journaled decision was answered with (`formatRef`), fixed before its place in the chain. */
  ref: z.string().nullable().default(null),
});
export type RawAuditRow = z.infer<typeof RawAuditRowSchema>;

/** A row read back, typed (JSON columns parsed); `auditId` is the stable string form `<id>-<hash prefix>`. */
export const AuditRowSchema = RawAuditRowSchema.extend({
  kind: AuditKindSchema,
  decision: z.enum(['allow', 'deny']),
  rules: jsonText(z.array(z.string())),
  flagged: jsonText(z.array(z.string())),
  witness: jsonText(z.array(WitnessSchema)),
  llm: jsonText(LlmUsageColumnSchema).nullable().default(null),
}).transform((r) => ({
  id: r.id,
  auditId: r.ref ?? formatAuditId(r.id, r.hash),
  ts: r.ts,
  agent: r.agent,
  session: r.session,
  kind: r.kind,
  server: r.server,
  tool: r.tool,
  uri: r.uri,
  recipient: r.recipient,
  digest: r.digest,
  preview: r.preview,
  size: r.size,
  decision: r.decision,
  rules: r.rules,
  flagged: r.flagged,
  witness: r.witness,
  threatLevel: r.threat,
  rationale: r.rationale,
  elapsedMs: r.elapsed_ms,
  policyHash: r.policy_hash,
  source: r.source,
  llm: r.llm,
  prevHash: r.prev_hash,
  hash: r.hash,
  mac: r.mac,
}));
export type AuditRow = z.output<typeof AuditRowSchema>;

/** `42-3fa9c1d2`: the row id plus the first 8 hex digits of its hash, so ids from two stores never collide silently. */
export function formatAuditId(id: number, hash: string): string {
  return `${id}-${hash.slice(0, 8)}`;
}

/**
 * The audit id of a journaled decision: this process's random tag and a counter (`j7f3a9c2e1b40.2a`). It is
 * fixed when the decision is answered, before the row has an id and a place in the chain, and stored in the row
 * (`ref`, hashed): unique per store, it names the same row whatever other processes commit meanwhile.
 */
export function formatRef(tag: string, n: number): string {
  return `j${tag}.${n.toString(36)}`;
}

const REF_RE = /^j[0-9a-f]{12}\.[0-9a-z]{1,11}$/;

/** Parses `42`, `42-3fa9c1d2` or a journaled decision's `j7f3a9c2e1b40.2a`; undefined when it is none of them. */
export function parseAuditId(text: string): { id: number; hashPrefix?: string } | { ref: string } | undefined {
  const t = text.trim().toLowerCase();
  if (REF_RE.test(t)) return { ref: t };
  const m = /^#?(\d{1,15})(?:-([0-9a-f]{1,64}))?$/i.exec(t);
  if (!m) return undefined;
  return m[2] ? { id: Number(m[1]), hashPrefix: m[2].toLowerCase() } : { id: Number(m[1]) };
}

/** The payload of an interaction's audit entry: its arguments or content, with its side fields if it has any. */
export function auditPayloadOf(interaction: Interaction): unknown {
  // Side fields (a request's or result's `_meta`) are recorded beside what they travelled with.
  return metaOf(interaction) === undefined ? (argumentsOf(interaction) ?? contentOf(interaction)) : { ...(argumentsOf(interaction) ?? { content: contentOf(interaction) }), _meta: interaction.meta };
}

/**
 * The audit entry of one guard decision: the interaction's identity and target, its arguments (tool calls,
 * prompt requests) or content (results, messages) as the payload, and the decision's verdict, rules, witness and timing.
 */
export function auditEntryFor(interaction: Interaction, decision: Decision): AuditEntry {
  return {
    agent: interaction.agent,
    session: interaction.session,
    kind: interaction.kind,
    server: serverOf(interaction),
    // The target column: the tool, or the prompt's name; resources go in `uri`, a message's recipient in `recipient`.
    tool: interaction.kind === 'tool_call' || interaction.kind === 'tool_result' ? interaction.tool : interaction.kind === 'prompt_request' || interaction.kind === 'prompt_result' ? interaction.prompt : interaction.kind === 'log_message' ? interaction.logger : undefined,
    uri: interaction.kind === 'resource_request' || interaction.kind === 'resource_result' ? interaction.uri : undefined,
    recipient: interaction.kind === 'message' ? interaction.recipient : undefined,
    payload: auditPayloadOf(interaction),
    interaction,
    decision: decision.decision,
    rationale: decision.rationale,
    rules: decision.rules,
    flagged: decision.flagged,
    witness: decision.witness,
    threatLevel: decision.threatLevel,
    elapsedMs: decision.elapsedMs,
    policyHash: decision.policy?.hash,
    source: decision.source,
    ...(decision.detail.llm !== undefined ? { llm: decision.detail.llm } : {}),
  };
}
