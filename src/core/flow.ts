import { z } from 'zod';

/**
 * Data flow (docs/data-flow.md): what a tool is by capability, and what the guard's data-flow stage found about
 * one interaction. The stage sets `Interaction.flow` before predicates are evaluated; the `capability` and
 * `data_flow` detectors read it. Neither the proxy nor a client ever sets it.
 */

/**
 * The server key an A2A agent's answers are read under (`a2a:<name>`; docs/a2a.md): apart from every MCP server's
 * (whose keys have no colon), and known to the data-flow stage, for which an agent's own answer sent back to it in
 * a message is no leak.
 */
export function a2aAnswerServer(agent: string): string {
  return `a2a:${agent}`;
}

/** Capability labels of a tool. */
export const CapabilityLabelSchema = z.enum([
  /** Its results are private data (mail, files, records): fingerprinted per identity when read. */
  'private_source',
  /** Its results are public (web pages): not fingerprinted, even if another label says source. */
  'public_source',
  /** Sends to people or systems outside (mail, chat, webhooks, issues). */
  'external_send',
  /** Publishes where anyone can read (a public folder, a gist, a post). */
  'public_sink',
  /** Fetches a URL: the URL itself (host, path, query) leaves. */
  'network_fetch',
  /** Writes files. A sink when the target is a public place. */
  'file_write',
  /** Runs code or commands. */
  'code_execution',
  /** Neither source nor sink (e.g. arithmetic, a clock). */
  'inert',
  /** Its results hold content third parties can write (web pages, search results, received mail and messages, issues, reviews): docs/provenance.md. */
  'untrusted_source',
  /** Pays, transfers or trades money or assets. */
  'payment',
  /** Grants access to something or shares it (a guest, a member, a permission, a shared link). */
  'access_grant',
  /** Changes an account, its credentials or its settings (password, e-mail, address, recovery). */
  'account_change',
  /** Deletes or removes something (a file, a repository, a user, a record). */
  'deletion',
  /** Hands out credentials by design (a vault, a secrets manager, a login tool): what it returns is not masked. */
  'credential_source',
]);
export type CapabilityLabel = z.infer<typeof CapabilityLabelSchema>;

/** Where a tool's labels came from, most specific first. */
export const LabelOriginSchema = z.enum(['config', 'book', 'annotations', 'unlabelled']);
export type LabelOrigin = z.infer<typeof LabelOriginSchema>;

/** The read whose fingerprints an outgoing interaction carries. */
export const FlowSourceSchema = z.object({
  /** Audit id of the decision that let the read through (or a generated id when auditing is off). */
  id: z.string(),
  kind: z.string(),
  server: z.string().optional(),
  tool: z.string().optional(),
  uri: z.string().optional(),
  session: z.string(),
  /** When it was read, ms since the epoch. */
  at: z.number(),
});
export type FlowSource = z.infer<typeof FlowSourceSchema>;

export const FlowLeakSchema = z.object({
  /** Distinct fingerprints of private data the outgoing interaction carries. */
  matched: z.number().int(),
  /** Fingerprints the outgoing interaction has in all (its views). */
  of: z.number().int(),
  /** The read that contributed most of the matched fingerprints. */
  source: FlowSourceSchema,
  /** Other reads that also matched. */
  others: z.number().int().default(0),
});
export type FlowLeak = z.infer<typeof FlowLeakSchema>;

/** The untrusted read a steered call's value or requested action came from (docs/provenance.md). */
export const SteeringSchema = z.object({
  /** `value`: a steering argument carries a value first seen there; `action`: that read asked for this tool's action; `overflow`: a read was too large to keep. */
  by: z.enum(['value', 'action', 'overflow', 'trifecta']),
  /** The argument that carries it (for `value`). */
  argument: z.string().optional(),
  /** The value, masked (for `value`), or the tool whose action was asked for. */
  what: z.string(),
  /** The field of the read it was written in (`body`, `description`, `text`). */
  field: z.string().optional(),
  source: FlowSourceSchema,
});
export type Steering = z.infer<typeof SteeringSchema>;


export const FlowFactsSchema = z.object({
  /** Capability labels of the interaction's tool (empty for messages and resource reads). */
  labels: z.array(CapabilityLabelSchema),
  origin: LabelOriginSchema.optional(),
  /** Set when outgoing data carries enough fingerprints of private data this identity read. */
  leak: FlowLeakSchema.optional(),
  /**
   * Set when no leak was found but part of the outgoing data's readings went unchecked (over the fingerprint
   * budget): why. A sink then fails closed.
   */
  cut: z.string().optional(),
  /** What the call does that matters (payment, access grant, …), when it is a consequential action (docs/provenance.md). */
  consequential: z.array(z.string()).optional(),
  /** Set when a consequential call carries a value or performs an action that untrusted content supplied. */
  steered: SteeringSchema.optional(),
  /**
   * Fields of a tool call that give a credential as a credential (named for one) to a tool that is not a sink, and
   * not to another server than the one it was first used with: the `secrets` detector takes them for what they are.
   */
  credentials: z.array(z.string()).optional(),
  /**
   * A message's recipient as the sender's principal (`principal`), the principal writing to its own agent
   * (`from_principal`), or an agent the config lets receive the sender's private data (`allowed_agent`); absent for
   * any other recipient (src/guard/principals.ts).
   */
  audience: z.enum(['principal', 'from_principal', 'allowed_agent']).optional(),
  /** Set when a credential this identity gave before is misused: in free text, or to another server. */
  credentialMisuse: z.strictObject({ field: z.string(), why: z.string() }).optional(),
});
export type FlowFacts = z.infer<typeof FlowFactsSchema>;

