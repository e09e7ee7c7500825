import { z } from 'zod';

/**
 * Data flow (docs/data-flow.md): what a tool is by capability, and what the guard's data-flow stage found about
 * one interaction. The stage sets `Interaction.flow` before predicates are evaluated; the `capability` and
 * `data_flow` detectors read it. Neither the proxy nor a client ever sets it.
 */

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
