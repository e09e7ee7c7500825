import { z } from 'zod';
import { CapabilityLabelSchema, type FlowSource, type Steering } from '../core/flow.js';
import { KINDS } from '../core/kinds.js';
import { InteractionKindSchema } from '../core/types.js';
import { defineDetector } from './registry.js';
import { no, unknown } from './common.js';

/**
 * Data-flow detectors (docs/data-flow.md). Both read `Interaction.flow`, which the guard's data-flow stage sets
 * before predicates run; without it (e.g. `policy explain` outside the guard) they answer `unknown`.
 *
 * - `audience`: true when a message goes to the sender's principal (`principal`), from the recipient's principal
 *   (`from_principal`), or to an agent the config lets receive the sender's private data (`allowed_agent`).
 * - `capability`: true when the interaction's tool carries one of `labels` (from config, book or annotations).
 * - `data_flow`: true when the outgoing interaction carries enough fingerprints of private data this identity
 *   read (by any earlier read, in any session), and it goes to a sink: a tool with one of `sinks`, with
 *   `messages: true` a message to another agent, with `elicitation: true` a user's answer to a server's
 *   elicitation, with `sampling: true` the client model's reply to a server's sampling request (data read from
 *   another server, going to the one that asked), with `requests: true` a prompt request's arguments or a resource
 *   request's URI (data read from another server, going to the one asked).
 *
 * @example { type: data_flow, sinks: [external_send, public_sink, network_fetch], messages: true }
 */
const CapabilityOptionsSchema = z.strictObject({
  labels: z.array(CapabilityLabelSchema).min(1),
  kinds: z.array(InteractionKindSchema).min(1).optional(),
});

const DataFlowOptionsSchema = z.strictObject({
  sinks: z.array(CapabilityLabelSchema).default([]),
  messages: z.boolean().default(false),
  elicitation: z.boolean().default(false),
  sampling: z.boolean().default(false),
  requests: z.boolean().default(false),
});

const AudienceOptionsSchema = z.strictObject({
  is: z.array(z.enum(['principal', 'from_principal', 'allowed_agent'])).min(1),
});

/** `mail__read_email (audit 12)`: how a source read is named in evidence and remediation. */
export function describeSource(s: FlowSource): string {
  const what = s.tool !== undefined ? `${s.server ?? ''}${s.server ? '__' : ''}${s.tool}` : s.uri !== undefined ? s.uri : s.kind;
  return `${what} (audit ${s.id}, ${new Date(s.at).toISOString()})`;
}

defineDetector({
  type: 'capability',
  summary: "true when the tool's capability labels (config, book, MCP annotations) include one of `labels`",
  options: CapabilityOptionsSchema,
  create(opts) {
    const labels = new Set(opts.labels);
    const kinds = opts.kinds === undefined ? undefined : new Set(opts.kinds);
    return function capability(i) {
      if (kinds !== undefined && !kinds.has(i.kind)) return no();
      if (i.flow === undefined) return unknown('capability: no data-flow facts (the guard did not label this tool)');
      const hit = i.flow.labels.find((l) => labels.has(l));
      if (hit === undefined) return no();
      return { value: 'true', score: 1, evidence: `capability: ${hit} (from ${i.flow.origin ?? 'unknown'})` };
    };
  },
});

defineDetector({
  type: 'audience',
  summary: "true when a message goes between an agent and its principal (or to an agent allowed its data), as `is` lists",
  options: AudienceOptionsSchema,
  create(opts) {
    const wanted = new Set(opts.is);
    return function audience(i) {
      if (i.kind !== 'message') return no();
      if (i.flow === undefined) return unknown('audience: no data-flow facts (the guard did not check this message)');
      const a = i.flow.audience;
      if (a === undefined || !wanted.has(a)) return no();
      return { value: 'true', score: 1, evidence: `audience: ${a === 'principal' ? `${i.recipient} is the principal of ${i.sender ?? i.agent}` : a === 'from_principal' ? `${i.sender ?? i.agent} is the principal of ${i.recipient}` : `${i.recipient} may receive ${i.sender ?? i.agent}'s private data (share_private_with)`}` };
    };
  },
});

defineDetector({
  type: 'data_flow',
  summary: 'true when outgoing data carries fingerprints of private data the identity read, to a sink',
  options: DataFlowOptionsSchema,
  create(opts) {
    const sinks = new Set(opts.sinks);
    return function data_flow(i) {
      // What makes the kind a sink (the kinds table): its tool's labels, or an option. Calls and messages are read
      // by default; the kinds that send data back to the server that asked are read only when their option is on.
      const { sink } = KINDS[i.kind];
      if (sink === 'none') return no();
      if (sink !== 'labels' && sink !== 'messages' && !opts[sink]) return no();
      if (i.flow === undefined) return unknown('data_flow: no data-flow facts (the guard did not check this interaction)');
      const isSink = sink === 'labels' ? i.flow.labels.some((l) => sinks.has(l)) : opts[sink];
      if (!isSink) return no();
      // Readings left unchecked (over the budget) might carry the data: a sink fails closed.
      if (i.flow.leak === undefined) return i.flow.cut === undefined ? no() : { value: 'true', score: 1, evidence: `data_flow: ${i.flow.cut}; not sent unchecked` };
      const l = i.flow.leak;
      return {
        value: 'true',
        score: 1,
        evidence: `data_flow: carries ${l.matched} fingerprints of private data read by ${describeSource(l.source)}${l.others > 0 ? ` and ${l.others} other read(s)` : ''}`,
      };
    };
  },
});

const ProvenanceOptionsSchema = z.strictObject({
  /** Which findings count: a steering value, a requested action, a read too large to keep, the lethal trifecta. */
  by: z.array(z.enum(['value', 'action', 'overflow', 'trifecta'])).min(1).default(['value', 'action', 'overflow']),
});

/** How a steered call is named in evidence: what, from which field of which read. */
export function describeSteering(s: Steering): string {
  const from = `${s.field !== undefined && s.field !== 'session' ? `the \`${s.field}\` field of ` : ''}${describeSource(s.source)}`;
  switch (s.by) {
    case 'value':
      return `argument \`${s.argument ?? '?'}\` carries a value (${s.what}) first seen in untrusted content: ${from}`;
    case 'action':
      return `untrusted content asked for this action (${s.what}): ${from}`;
    case 'overflow':
      return `an untrusted read held more values or tools than are kept, so this call cannot be cleared: ${from}`;
    case 'trifecta':
      return `this session read ${s.what} before this send: ${from}`;
  }
}

defineDetector({
  type: 'provenance',
  summary: 'true when a consequential tool call carries a value, or performs an action, that untrusted content supplied (docs/provenance.md)',
  options: ProvenanceOptionsSchema,
  create(opts) {
    const by = new Set(opts.by);
    return function provenance(i) {
      if (i.kind !== 'tool_call') return no();
      if (i.flow === undefined) return unknown('provenance: no data-flow facts (the guard did not check this interaction)');
      const s = i.flow.steered;
      if (s === undefined || !by.has(s.by)) return no();
      return { value: 'true', score: 1, evidence: `provenance: ${describeSteering(s)}` };
    };
  },
});
