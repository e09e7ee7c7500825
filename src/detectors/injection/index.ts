import { z } from 'zod';
import { DetectorConfigError } from '../../core/errors.js';
import { isValidSelector } from '../../core/fields.js';
import { inspectedFields } from '../common.js';
import { isInstructional } from './directive.js';
import type { Finding } from './finding.js';
import { findHintHits, findHints } from './phrase-family.js';
import type { HintHits } from './phrase-regions.js';
import { recordReadings } from './records.js';
import { CONTENT_SIGNALS, CONTEXTUAL, INJECTION_SIGNALS, SIGNAL_ROWS, type InjectionSignal, type SignalText } from './signals.js';
import { visibleText } from './visible.js';
import { SCAN_MIN_CHARS, scanOf, type TextScan } from '../scan.js';
import { defineDetector } from '../registry.js';
import type { DetectorResult } from '../types.js';
import type { Interaction } from '../../core/types.js';
import { isResultKind, KINDS } from '../../core/kinds.js';

export { CONTENT_SIGNALS, INJECTION_SIGNALS, TOOL_DESCRIPTION_SIGNALS, type InjectionSignal } from './signals.js';
export type { Finding } from './finding.js';

/**
 * `injection`: prompt-injection heuristics for messages, tool results, resource contents and tool descriptions.
 *
 * Each signal family contributes its strongest weight w ∈ (0, 1); the score is the noisy-OR 1 − Π(1 − w) over
 * the families that fired, and the detector is true when score ≥ threshold. Encoded runs are decoded (bounded) and
 * rescanned; whatever they hide counts as `encoded_payload`. Evidence names the signals, never quotes the text.
 *
 * `directive` models the shape of an injected order (an imperative aimed at the AI, at "the user" or at the
 * reader's output, with override, target or content cues; see directive.ts). Context-dependent signals
 * weigh less inside a text that is itself instructions. Each signal is one row of signals.ts and one file named
 * after it. Attack phrases quoted in a sentence that talks *about*
 * them ("attackers write 'ignore previous instructions'") are not read as orders. A sentence ends at `.`, `!` or `?`
 * before a capital of any script or a letter of a script without case, and at the full stops of other scripts
 * (。！？ ｡ । ॥ ؟ ۔ ። ፧ ։ ။ ། ។ ᠃), so an order inside a long paragraph of Hindi, Russian or Chinese is read on its
 * own.
 *
 * @example
 * ```yaml
 * detectors:
 *   - { type: injection, field: content, threshold: 0.5 }
 *   - { type: injection, signals: [override, role_marker, hidden_unicode] }   # only the loud ones
 * ```
 */

const INSTRUCTIONAL_FACTOR = 0.55;

export const InjectionOptionsSchema = z.strictObject({
  field: z.string().default('any'),
  threshold: z.number().min(0).max(1).default(0.5),
  /** Signal families to use (default: all but `tool_hijack`, which is for tool descriptions). */
  signals: z.array(z.enum(INJECTION_SIGNALS)).min(1).optional(),
  /**
   * Also read the end of the session's previous result with the start of this one (an order split over two
   * results). Off by default: a mail asking for a reply, then the reply's own result, read as one text, looked like
   * an order; an action such a split asks for is held by provenance (docs/provenance.md) whatever its wording.
   */
  across_results: z.boolean().default(false),
});
export type InjectionOptions = z.infer<typeof InjectionOptionsSchema>;

/** The score of one text and the findings behind it. */
export interface InjectionScore {
  score: number;
  findings: Finding[];
}

/**
 * Long inputs are scored window by window (windows of `WINDOW` characters overlapping by `OVERLAP`, so a sentence
 * cut at a border is whole in one of them), and the strongest window counts: work is linear in the input and the
 * middle of a 140 KB text is read like its ends.
 */
export const WINDOW = 32_000;
const OVERLAP = 2_000;

/**
 * What a text is to the reader: `data` (tool results, resources, fetched pages: orders in it are suspect),
 * `instructions` (messages and call arguments: a request is what they carry, so context-dependent signals weigh
 * less there, as in a how-to), or `description` (a tool's or a server's own description, read by the tool screen: it
 * tells the model how to use the tool, and weighs the same as instructions). Who wrote the text decides, never how it
 * looks: a result holding a `"description"` field, or saying "this tool", is data (both once made it weigh less, so an
 * order in a product's or an issue's description passed).
 */
export type InjectionChannel = 'data' | 'instructions' | 'description';

/** Scores one text against the enabled signal families. Pure; exported for the tool-description scan and benches. */
export function scoreInjection(raw: string, enabled: ReadonlySet<InjectionSignal> = ALL, depth = 0, channel: InjectionChannel = 'data'): InjectionScore {
  // One pass over the whole text (detectors/scan.ts) answers each window's hints and reading starts.
  const scan = depth === 0 ? scanOf(raw) : undefined;
  if (raw.length <= WINDOW) return scoreWindow(raw, enabled, depth, channel, scan && { scan, from: 0 });
  let best: InjectionScore = { score: 0, findings: [] };
  for (let start = 0; start < raw.length; start += WINDOW - OVERLAP) {
    const s = scoreWindow(raw.slice(start, start + WINDOW), enabled, depth, channel, scan && { scan, from: start });
    if (s.score > best.score) best = s;
    if (start + WINDOW >= raw.length) break;
  }
  return best;
}

/** Where a window sits in a text scanned once: the scan answers for the window while it reads as it was received. */
interface ScannedAt {
  scan: TextScan;
  from: number;
}

function scoreWindow(raw: string, enabled: ReadonlySet<InjectionSignal>, depth: number, channel: InjectionChannel, at?: ScannedAt): InjectionScore {
  const findings: Finding[] = [];
  const visible = visibleText(raw);
  // The scan read the received text: it answers for `visible` only when the reader's view changed nothing.
  const scanned = at !== undefined && visible === raw ? at : undefined;
  let hints: Uint8Array | undefined;
  let hits: HintHits | undefined;
  // A long window the scan does not answer for finds its hints and where they occur in one pass of its own.
  let own: { hints: Uint8Array; hits: HintHits } | undefined;
  const ownHits = (): { hints: Uint8Array; hits: HintHits } => (own ??= findHintHits(visible));
  const located = scanned !== undefined || visible.length >= SCAN_MIN_CHARS;
  const text: SignalText = {
    raw,
    visible,
    hints: () => (hints ??= scanned ? scanned.scan.hintsIn(scanned.from, scanned.from + raw.length) : located ? ownHits().hints : findHints(visible)),
    ...(located ? { hits: () => (hits ??= scanned ? scanned.scan.hintHitsIn(scanned.from, scanned.from + raw.length) : ownHits().hits) } : {}),
    ...(scanned ? { runs: scanned.scan.runsIn(scanned.from, scanned.from + raw.length), holds: (g) => scanned.scan.holdsIn(g, scanned.from, scanned.from + raw.length) } : {}),
    rescore: (hidden) => scoreInjection(hidden, enabled, depth + 1, channel),
  };
  const read = (row: (typeof SIGNAL_ROWS)[number]): void => {
    if (!enabled.has(row.name)) return;
    const found = row.read(text);
    if (Array.isArray(found)) findings.push(...(found as Finding[]));
    else if (found) findings.push(found as Finding);
  };
  for (const row of SIGNAL_ROWS) if (!('hidden' in row)) read(row);
  // An order aimed at an AI stands out even in a how-to; other context-dependent findings are weighed down there.
  if (findings.some((f) => CONTEXTUAL.has(f.signal)) && (channel !== 'data' || (!findings.some((f) => f.aimedAtAi) && isInstructional(visible, suspectSentence(findings))))) {
    damp(findings);
  }
  // What the text hides is read one level down (the readings nest, core/text/readings.ts, so a decoded text is
  // scored without being decoded again); what the readings leave unread fails closed.
  if (depth < 1) for (const row of SIGNAL_ROWS) if ('hidden' in row) read(row);
  // A record's fields read together (a mail's subject and body): what its pieces carry only as one order counts.
  if (depth === 0) {
    const records = recordReadings(visible, text.holds);
    if (records !== '') {
      const together = scoreInjection(records, enabled, depth + 1, channel);
      if (together.score > combine(findings)) for (const f of together.findings) findings.push({ ...f, detail: `${f.detail} (fields of one record read together)` });
    }
  }
  // Sentences stay inside: callers get signals and details, never the text that carried them.
  return { score: combine(findings), findings: strongestPerSignal(findings).map(({ sentence: _s, aimedAtAi: _a, ...f }) => f) };
}

/** The sentence under suspicion: that of the last context-dependent finding that has one (the directive's first). */
function suspectSentence(findings: readonly Finding[]): string | undefined {
  for (let i = findings.length - 1; i >= 0; i--) {
    const f = findings[i] as Finding;
    if (CONTEXTUAL.has(f.signal) && f.sentence !== undefined) return f.sentence;
  }
  return undefined;
}

const ALL: ReadonlySet<InjectionSignal> = new Set(CONTENT_SIGNALS);

/**
 * Inside a text that is itself instructions, the context-dependent signals read the same sentences: only the
 * strongest of them is kept, weighed down, so they cannot add up to an alarm on their own.
 */
function damp(findings: Finding[]): void {
  let top: Finding | undefined;
  for (const f of findings) if (CONTEXTUAL.has(f.signal) && (!top || f.weight > top.weight)) top = f;
  for (let i = findings.length - 1; i >= 0; i--) {
    const f = findings[i] as Finding;
    if (CONTEXTUAL.has(f.signal) && f !== top) findings.splice(i, 1);
  }
  if (top) top.weight = Math.round(top.weight * INSTRUCTIONAL_FACTOR * 1000) / 1000;
}

/** Noisy-OR over signal families, each family counted once with its strongest weight. */
function combine(findings: Finding[]): number {
  let keep = 1;
  for (const f of strongestPerSignal(findings)) keep *= 1 - f.weight;
  return Math.round((1 - keep) * 1000) / 1000;
}

function strongestPerSignal(findings: Finding[]): Finding[] {
  const best = new Map<string, Finding>();
  for (const f of findings) {
    const b = best.get(f.signal);
    if (!b || f.weight > b.weight) best.set(f.signal, f);
  }
  return [...best.values()].sort((a, b) => b.weight - a.weight);
}

/**
 * The last text scored, per signal set and channel. Books often ask twice about the same result (an enforcing
 * predicate at 0.5 and a sticky "untrusted content seen" at 0.3): the second asks for the same score, so it is
 * computed once. One entry only, so nothing accumulates; scores are never mutated after they are returned. A long
 * text is let go once the current turn of the event loop is over (the predicates of one check are evaluated in one
 * turn), so a 10 MB result is not kept alive until the next check.
 */
let lastScored: { text: string; key: string; channel: InjectionChannel; result: InjectionScore } | undefined;
const KEEP_UNTIL_NEXT_CHECK = 64 * 1024;

/** The cache key of a signal set. */
export function signalsKeyOf(enabled: ReadonlySet<InjectionSignal>): string {
  return [...enabled].sort().join(',');
}

/** Who gives orders in an interaction's text (the kinds table's `reads_as`). */
export function channelOf(kind: Interaction['kind']): InjectionChannel {
  return KINDS[kind].reads_as;
}

function scoreOnce(text: string, enabled: ReadonlySet<InjectionSignal>, key: string, channel: InjectionChannel): InjectionScore {
  if (lastScored && lastScored.text === text && lastScored.key === key && lastScored.channel === channel) return lastScored.result;
  const result = scoreInjection(text, enabled, 0, channel);
  const entry = { text, key, channel, result };
  lastScored = entry;
  if (text.length > KEEP_UNTIL_NEXT_CHECK) {
    setImmediate(() => {
      if (lastScored === entry) lastScored = undefined;
    });
  }
  return result;
}

const weightOf = (s: InjectionScore, signal: string): number => s.findings.find((f) => f.signal === signal)?.weight ?? 0;
const noisyOr = (findings: readonly Finding[]): number => Math.round((1 - findings.reduce((keep, f) => keep * (1 - f.weight), 1)) * 1000) / 1000;

/** A text without its leading header block ("Key: value" lines up to a blank line), when it has one. */
function withoutHeaders(text: string): string {
  const m = /^(?:[ \t]*[A-Za-z][\w-]{0,30}[ \t]*:[^\n]{0,300}\n){2,20}[ \t]*\n/.exec(text);
  return m ? text.slice(m[0].length) : text;
}

/** How much of the previous result (its end) and of this one (its start) are read together. */
const ACROSS_RESULTS = 2_000;
const SESSIONS_KEPT = 4_096;

/**
 * The end of the last result each session (agent and session) was given, so an injection split over two results
 * is read as one text. Per detector and per process (replicas each keep their own); bounded: the oldest session is
 * let go past `SESSIONS_KEPT`.
 */
class PreviousResults {
  private readonly tails = new Map<string, { tail: string; weights: Map<string, number> }>();
  private key(i: Interaction): string {
    return `${i.agent}\u0000${i.session ?? ''}`;
  }
  /** The session's last result: its end, and the weight of each signal it gave alone. */
  get(i: Interaction): { tail: string; weights: Map<string, number> } | undefined {
    return this.tails.get(this.key(i));
  }
  remember(i: Interaction, text: string, score: InjectionScore): void {
    const key = this.key(i);
    this.tails.delete(key);
    if (this.tails.size >= SESSIONS_KEPT) this.tails.delete(this.tails.keys().next().value as string);
    this.tails.set(key, { tail: text.slice(-ACROSS_RESULTS), weights: new Map(score.findings.map((f) => [f.signal, f.weight])) });
  }
}

export const injectionDetector = defineDetector({
  type: 'injection',
  summary: 'prompt-injection heuristics (overrides, role markers, hidden text, encoded payloads, task hijacking); true when score ≥ threshold',
  options: InjectionOptionsSchema,
  create(options, ctx) {
    if (!isValidSelector(options.field)) {
      throw new DetectorConfigError('detector_invalid_options', `${ctx.path}: injection: unknown field selector "${options.field}"`, {
        location: { path: ctx.path },
      });
    }
    const enabled: ReadonlySet<InjectionSignal> = new Set(options.signals ?? CONTENT_SIGNALS);
    const signalsKey = signalsKeyOf(enabled);
    const previous = new PreviousResults();
    return function injection(interaction): DetectorResult {
      const fields = inspectedFields(interaction, options.field);
      // Nothing to read: no injection can be carried, which is a decided "false" (not "unknown").
      if (fields.length === 0 && fields.cut === undefined) return { value: 'false', score: 0 };
      let best: InjectionScore = { score: 0, findings: [] };
      let bestField = '';
      const channel = channelOf(interaction.kind);
      for (const f of fields) {
        const s = scoreOnce(f.text, enabled, signalsKey, channel);
        if (s.score > best.score) {
          best = s;
          bestField = f.field;
        }
      }
      let hit = best.score >= options.threshold;
      // Over two results: the tail of the session's last result and the head of this one, read as one text.
      if (options.across_results && isResultKind(interaction.kind) && fields.length > 0) {
        const text = fields.map((f) => f.text).join('\n');
        if (!hit) {
          const before = previous.get(interaction);
          if (before !== undefined && before.tail !== text.slice(-ACROSS_RESULTS)) {
            const s = scoreInjection(`${before.tail}\n\n${withoutHeaders(text).slice(0, ACROSS_RESULTS)}`, enabled, 0, channel);
            // Only what the join itself reads counts (a finding stronger than either piece gave): two ordinary
            // results' weak findings must not add up to an alarm.
            const emergent = s.findings.filter((f) => f.weight > Math.max(before.weights.get(f.signal) ?? 0, weightOf(best, f.signal)));
            const score = noisyOr(emergent);
            if (score >= options.threshold) {
              hit = true;
              best = { score, findings: emergent.map((f) => ({ ...f, detail: `${f.detail} (read with the previous result)` })) };
              bestField = 'content';
            }
          }
        }
        // A result that is refused never reaches the model: only what passed is remembered.
        if (!hit) previous.remember(interaction, text, best);
      }
      if (!hit && fields.cut !== undefined) return { value: 'unknown', score: best.score, evidence: `injection: ${fields.cut}; below threshold in the part read` };
      const evidence = best.findings.length
        ? `${bestField}: score ${best.score.toFixed(2)} (${best.findings.map((f) => `${f.signal}: ${f.detail}`).join('; ')})`
        : undefined;
      return { value: hit ? 'true' : 'false', score: best.score, ...(evidence ? { evidence } : {}) };
    };
  },
});
