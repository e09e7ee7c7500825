/**
 * One decode per text and row, shared by every consumer of the table of readings (readings.ts) in a turn of the event
 * loop. The consumers of one check read the same texts under different limits — data flow an outgoing field under
 * OUTGOING_READINGS, the secrets and PII detectors and the audit masker under SECRET_READINGS, the joins of a call's
 * arguments under both — and each walked its own tree of readings, decoding every base64 run, and every reading of
 * what it decoded, again. Each consumer still walks its own tree (its rows, depth, budgets and what it leaves unread
 * are its own), but what a row decodes from a text, and whether a row applies to it, is asked here first.
 *
 * Exact by construction: a row's `decode` is a pure function of the text and of the three limits it reads
 * (`minBase64`, `alignments`, `maxRun`), all three in the key; `mayApply` of the text alone (a scan's answer is the
 * plain test's, test/detectors/text-scan.test.ts). A consumer's own `gate` is not kept here.
 *
 * Held only for the turn (the decodes of one check, never the next call's or another session's: let go by a
 * `setImmediate`), only for texts of MEMO_MIN_CHARS or more (shorter ones decode in less than a lookup costs), and at
 * most MEMO_MAX_CHARS characters in all (the texts it is keyed by and what they decode to): past that, decodes are
 * made and not kept.
 */

import { escapeStarts, readingStarts, type EscapeStarts, type ReadingStarts } from './reading-starts.js';

/** Texts shorter than this are decoded by each consumer: a lookup would cost about what the decode does. */
export const MEMO_MIN_CHARS = 256;
/** Characters kept in a turn at most, texts and decodes (the most a consumer reads of one text: OUTGOING_READINGS). */
export const MEMO_MAX_CHARS = 16 * 1024 * 1024;

interface TextMemo {
  /** Whether each row's `mayApply` holds for the text. */
  applies: Map<string, boolean>;
  /** Where the text's readings can start (reading-starts.ts), once asked. */
  starts?: ReadingStarts;
  /** Where its escapes can start, once asked (part of `starts`). */
  escapes?: EscapeStarts;
  /** What each row decodes from the text, by row and the limits its decode reads. */
  decodes: Map<string, readonly string[]>;
}

const memo = new Map<string, TextMemo>();
let heldChars = 0;
let clearing = false;

/** The memo of `text`, made on first use; none once the turn holds MEMO_MAX_CHARS (the text itself counts too). */
function memoOf(text: string): TextMemo | undefined {
  let m = memo.get(text);
  if (m !== undefined) return m;
  if (heldChars + text.length > MEMO_MAX_CHARS) return undefined;
  if (!clearing) {
    clearing = true;
    setImmediate(() => {
      memo.clear();
      heldChars = 0;
      clearing = false;
    });
  }
  heldChars += text.length;
  memo.set(text, (m = { applies: new Map(), decodes: new Map() }));
  return m;
}

/** `mayApply()`, the answer of a row's cheap test for `text` (named `row`), once per text and row in a turn. */
export function sharedMayApply(text: string, row: string, mayApply: () => boolean): boolean {
  const m = text.length < MEMO_MIN_CHARS ? undefined : memoOf(text);
  if (m === undefined) return mayApply();
  let a = m.applies.get(row);
  if (a === undefined) m.applies.set(row, (a = mayApply()));
  return a;
}

/**
 * Where `text`'s readings can start (`readingStarts`), once per text in a turn; undefined for a text shorter than
 * MEMO_MIN_CHARS or past the turn's bound (the rows then ask their plain tests).
 */
export function sharedStarts(text: string): ReadingStarts | undefined {
  const m = text.length < MEMO_MIN_CHARS ? undefined : memoOf(text);
  if (m === undefined) return undefined;
  return (m.starts ??= readingStarts(text, m.escapes));
}

/** Where `text`'s escapes can start (`escapeStarts`), as `sharedStarts` answers, for a text a scan answers the rest for. */
export function sharedEscapes(text: string): EscapeStarts | undefined {
  const m = text.length < MEMO_MIN_CHARS ? undefined : memoOf(text);
  if (m === undefined) return undefined;
  return (m.escapes ??= m.starts ?? escapeStarts(text));
}

/**
 * `decode()`, what a row decodes from `text`, once per text and `key` in a turn: the key names the row and every
 * limit its decode reads (readings.ts builds it).
 */
export function sharedDecode(text: string, key: string, decode: () => string[]): readonly string[] {
  const m = text.length < MEMO_MIN_CHARS ? undefined : memoOf(text);
  if (m === undefined) return decode();
  const known = m.decodes.get(key);
  if (known !== undefined) return known;
  const out = decode();
  let chars = 0;
  for (const d of out) chars += d.length;
  if (heldChars + chars <= MEMO_MAX_CHARS) {
    heldChars += chars;
    m.decodes.set(key, Object.freeze(out));
  }
  return out;
}

/** Characters held now, texts and decodes (for the tests of the bound). */
export function memoHeldChars(): number {
  return heldChars;
}
