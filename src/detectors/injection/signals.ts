import { actionCommand } from './action-command.js';
import { ADDRESSED_TO_AI } from './addressed-to-ai.js';
import { answerDirective } from './answer-directive.js';
import { codePayload } from './code-payload.js';
import { controlSequence } from './control-sequence.js';
import { directive } from './directive.js';
import { embeddedTask } from './embedded-task.js';
import { encodedPayload } from './encoded-payload.js';
import type { Finding } from './finding.js';
import type { HoldsLiteral } from './gate-literals.js';
import { hiddenUnicode } from './hidden-unicode.js';
import { OVERRIDE } from './override.js';
import { matchFamily } from './phrase-family.js';
import type { HintHits } from './phrase-regions.js';
import { ROLE_MARKER } from './role-marker.js';
import { toolHijack } from './tool-hijack.js';
import type { RunQuery } from '../../core/text/runs.js';

/**
 * The injection signals, one row each: a new signal is one row here and one file named after it. The rows are read
 * in this order (the order of the findings), and say where each signal applies:
 *
 * - `contextual`: weighed down inside a text that is itself instructions (a how-to, a tool description, a message);
 * - `descriptions`: read in what a server writes to the model by design (its instructions; tool, prompt and resource
 *   descriptions; completion values). Those read what works against the user (overriding the user or earlier
 *   instructions, secrecy from the user, fake system markers, hidden or encoded text, exfiltration and
 *   credential-file actions, tool hijacking), never that the text speaks to the model, which is what such text is for;
 * - `content`: read in results and messages by default (`tool_hijack` models what a tool description asks of the
 *   model and is read in content only when a book names it);
 * - `hidden`: read on what the text hides (its decoded readings, scored again), after the context weighing.
 */
export interface SignalRow {
  readonly name: string;
  readonly contextual: boolean;
  readonly descriptions: boolean;
  readonly content: boolean;
  readonly hidden?: true;
  read(text: SignalText): Finding | readonly Finding[] | undefined;
}

/** What a row reads: one text (a window of a long one) in the forms the signals need. */
export interface SignalText {
  /** The text as received, invisible characters and all. */
  readonly raw: string;
  /** The text as a reader takes it (visible.ts): what the phrase and sentence signals read. */
  readonly visible: string;
  /** The hint literals `visible` holds (phrase-family.ts): one pass for every phrase family. */
  hints(): Uint8Array;
  /** Where the hints occur in `visible`, from the scan made once (detectors/scan.ts), when there is one. */
  hits?(): HintHits;
  /** The run questions answered for `visible` by a scan made once (detectors/scan.ts), when there is one. */
  readonly runs?: RunQuery;
  /** Whether `visible` (then the same as `raw`) holds one of a gate's literals (gate-literals.ts), from that scan, when there is one. */
  readonly holds?: HoldsLiteral;
  /** The score of a text this one hides, with the same signals and channel, one level down. */
  rescore(hidden: string): { score: number; findings: readonly Finding[] };
}

export const SIGNAL_ROWS = [
  { name: 'hidden_unicode', contextual: false, descriptions: true, content: true, read: (t) => hiddenUnicode(t.raw) },
  { name: 'control_sequence', contextual: false, descriptions: true, content: true, read: (t) => controlSequence(t.raw, t.holds) },
  { name: 'override', contextual: false, descriptions: true, content: true, read: (t) => matchFamily('override', OVERRIDE, t.visible, t.hints(), t.hits?.()) },
  { name: 'role_marker', contextual: false, descriptions: true, content: true, read: (t) => matchFamily('role_marker', ROLE_MARKER, t.visible, t.hints(), t.hits?.()) },
  { name: 'addressed_to_ai', contextual: false, descriptions: false, content: true, read: (t) => matchFamily('addressed_to_ai', ADDRESSED_TO_AI, t.visible, t.hints(), t.hits?.()) },
  { name: 'action_command', contextual: false, descriptions: true, content: true, read: (t) => actionCommand(t.visible, t.hints(), t.hits?.()) },
  { name: 'answer_directive', contextual: true, descriptions: false, content: true, read: (t) => answerDirective(t.visible, t.runs) },
  { name: 'code_payload', contextual: false, descriptions: false, content: true, read: (t) => codePayload(t.visible, t.holds) },
  { name: 'embedded_task', contextual: true, descriptions: false, content: true, read: (t) => embeddedTask(t.visible) },
  { name: 'tool_hijack', contextual: false, descriptions: true, content: false, read: (t) => toolHijack(t.visible) },
  { name: 'directive', contextual: true, descriptions: false, content: true, read: (t) => directive(t.visible, t.runs) },
  { name: 'encoded_payload', contextual: false, descriptions: true, content: true, hidden: true, read: (t) => encodedPayload(t.visible, t.rescore, t.runs) },
] as const satisfies readonly SignalRow[];

export type InjectionSignal = (typeof SIGNAL_ROWS)[number]['name'];
const names = (rows: readonly SignalRow[]): InjectionSignal[] => rows.map((r) => r.name as InjectionSignal);

/** Every signal, in reading order. */
export const INJECTION_SIGNALS = names(SIGNAL_ROWS) as [InjectionSignal, ...InjectionSignal[]];
/** Signals for what a server writes to the model by design (see `descriptions` above). */
export const TOOL_DESCRIPTION_SIGNALS: readonly InjectionSignal[] = names(SIGNAL_ROWS.filter((r) => r.descriptions));
/** Signals for content (results, messages): every row but `tool_hijack`. */
export const CONTENT_SIGNALS: readonly InjectionSignal[] = names(SIGNAL_ROWS.filter((r) => r.content));
/** Signals weighed down inside a text that is itself instructions. */
export const CONTEXTUAL: ReadonlySet<string> = new Set(names(SIGNAL_ROWS.filter((r) => r.contextual)));
