import { z } from 'zod';
import { CapabilityLabelSchema, type FlowFacts, type FlowSource, type Steering } from '../core/flow.js';
import { KINDS } from '../core/kinds.js';
import { InteractionKindSchema, type Interaction } from '../core/types.js';
import { defineDetector } from './registry.js';
import { no, unknown } from './common.js';
import type { Detector } from './types.js';

/**
 * Data-flow detectors (docs/data-flow.md). All four read `Interaction.flow` (through `flowFactDetector`), which the guard's data-flow stage sets
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

/**
 * The one shape of a detector over the data-flow facts (`Interaction.flow`): an interaction it does not read is
 * `false`; one without facts (the guard's data-flow stage did not run) is `unknown`, saying what the guard did not
 * do (`missing`); otherwise `fact` gives the evidence of a `true` (without the type, which is put in front) or
 * undefined for `false`.
 */
function flowFactDetector(type: string, missing: string, reads: (i: Interaction) => boolean, fact: (flow: FlowFacts, i: Interaction) => string | undefined): Detector {
  const detector: Detector = (i) => {
    if (!reads(i)) return no();
    if (i.flow === undefined) return unknown(`${type}: no data-flow facts (${missing})`);
    const evidence = fact(i.flow, i);
    return evidence === undefined ? no() : { value: 'true', score: 1, evidence: `${type}: ${evidence}` };
  };
  // Named after its type, so stack traces say which detector ran.
  return Object.defineProperty(detector, 'name', { value: type });
}

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
    return flowFactDetector('capability', 'the guard did not label this tool', (i) => kinds === undefined || kinds.has(i.kind), (flow) => {
      const hit = flow.labels.find((l) => labels.has(l));
      return hit === undefined ? undefined : `${hit} (from ${flow.origin ?? 'unknown'})`;
    });
  },
});

defineDetector({
  type: 'audience',
  summary: "true when a message goes between an agent and its principal (or to an agent allowed its data), as `is` lists",
  options: AudienceOptionsSchema,
  create(opts) {
    const wanted = new Set(opts.is);
    // An audience is who a message between agents goes to (the kinds table's `direction`).
    return flowFactDetector('audience', 'the guard did not check this message', (i) => KINDS[i.kind].direction === 'between_agents', (flow, i) => {
      const a = flow.audience;
      if (a === undefined || !wanted.has(a) || !('recipient' in i)) return undefined;
      const sender = i.sender ?? i.agent;
      return a === 'principal' ? `${i.recipient} is the principal of ${sender}` : a === 'from_principal' ? `${sender} is the principal of ${i.recipient}` : `${i.recipient} may receive ${sender}'s private data (share_private_with)`;
    });
  },
});

defineDetector({
  type: 'data_flow',
  summary: 'true when outgoing data carries fingerprints of private data the identity read, to a sink',
  options: DataFlowOptionsSchema,
  create(opts) {
    const sinks = new Set(opts.sinks);
    // What makes a kind a sink (the kinds table): its tool's labels, or an option. Calls and messages are read by
    // default; the kinds that send data back to the server that asked are read only when their option is on.
    const reads = (i: Interaction): boolean => {
      const { sink } = KINDS[i.kind];
      return sink === 'labels' || sink === 'messages' || (sink !== 'none' && opts[sink]);
    };
    return flowFactDetector('data_flow', 'the guard did not check this interaction', reads, (flow, i) => {
      const { sink } = KINDS[i.kind];
      const isSink = sink === 'labels' ? flow.labels.some((l) => sinks.has(l)) : sink !== 'none' && opts[sink];
      if (!isSink) return undefined;
      // Readings left unchecked (over the budget) might carry the data: a sink fails closed.
      const l = flow.leak;
      if (l === undefined) return flow.cut === undefined ? undefined : `${flow.cut}; not sent unchecked`;
      return `carries ${l.matched} fingerprints of private data read by ${describeSource(l.source)}${l.others > 0 ? ` and ${l.others} other read(s)` : ''}`;
    });
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
      return `untrusted content asked for this action (${s.what})${s.argument !== undefined ? ` and argument \`${s.argument}\` is taken from that request` : ''}: ${from}`;
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
    // Steering is judged on a call whose tool its labels make consequential (the kinds table's `sink: labels`).
    return flowFactDetector('provenance', 'the guard did not check this interaction', (i) => KINDS[i.kind].sink === 'labels', (flow) => {
      const s = flow.steered;
      return s === undefined || !by.has(s.by) ? undefined : describeSteering(s);
    });
  },
});
