import { splitLines } from './fast-paths.js';
import { MODAL_WORDS, NEGATION_LEADS, OPENER_PHRASES, ORDER_VERBS } from './lexicon.js';
import { LiteralSet } from './literals.js';
import { lineKind, lineUnits, MAX_LEN, MAX_UNITS, units, type LineKind, type Unit } from './sentences.js';

/**
 * The units (sentences.ts) the `directive` signal must read: those of the lines where an order can start. A unit
 * scores only when it is shaped as an order (directive.ts `orderShape`): a modal aimed at the reader (MODAL or
 * AI_SUBJECT matches it, which needs a MODAL_WORDS word) or an opening that ORDER_OPENING_RE matches (an order verb
 * after at most a few openers, at the start of an opening). One automaton pass over the text finds those words (the
 * cues); a line takes part when
 *
 * - its trimmed length is over MAX_LEN (its units are cut, so nothing is assumed about their ends), or
 * - it holds a modal word and MODAL or AI_SUBJECT matches the line (a unit is a piece of its line that starts after
 *   and ends before a character no `\b` of theirs can tell from the unit's edge), or
 * - it holds an order verb not followed by `[\w'-]` whose opener walk (`opensAt`) reaches a place where an opening
 *   can start.
 *
 * Any other line's units are not orders: they score nothing, so they are not made. The units of the lines that take
 * part are made by the same code as `units` (`lineUnits`), with the same neighbours' kinds; the unit before an order
 * that opens its line is that of the nearest line before it that has units, made only then. Exact for texts of at most `GATED_MAX` characters (a window), where
 * the cap of MAX_UNITS units cannot be reached: each unit holds 8 or more characters of its own. Longer texts (a
 * record reading) are split in full. test/detectors/order-cues.test.ts checks the order units against `units` on
 * every corpus; test/detectors/reference/injection-order-cues.ts is the plain form.
 */

/** Texts up to this length cannot reach MAX_UNITS units (8 characters each, disjoint): MAX_UNITS × 8. */
export const GATED_MAX = MAX_UNITS * 8;

/** The modal words are literals 0 … MODAL_COUNT − 1 of CUES, the order verbs the rest. */
const MODAL_COUNT = MODAL_WORDS.length;
/** Each alternative of ORDER_VERBS as plain literals (`summari[sz]e` gives two). */
const VERB_LITERALS = [...new Set(ORDER_VERBS.split('|').flatMap((v) => (v.includes('[sz]') ? [v.replace('[sz]', 's'), v.replace('[sz]', 'z')] : [v])))];
if (VERB_LITERALS.some((v) => /[^\p{L}\p{M}' -]/u.test(v))) throw new Error('injection: an order verb is not a plain word');
let cues: LiteralSet | undefined;

/** A word that may stand before the verb in an order's opening: a word of an opener or of a negation lead. */
const OPENER_TOKEN = new RegExp(
  `^(?:${[...new Set([...OPENER_PHRASES, ...NEGATION_LEADS.map((l) => l.replace('(?: to| that| you)?', ' to that you'))].flatMap((p) => (p.startsWith('\\') ? [p] : p.split(' '))))].join('|')})[,:]?$`,
  'i',
);

/**
 * The characters after which an opening can start (white space between them and it aside): the cell and sentence
 * splits of `units`, the carrier prefixes `openings` strips and the breaks it opens at (directive.ts).
 */
const OPENS_AFTER = new Set('|",.!?;。！？]#/*>\'`-–•=~):，：—');

/**
 * The units of `text` shaped as orders (`isOrder`), in text order, each as `units(text)` has it: the only units the
 * directive signal scores.
 */
export function orderUnits(text: string, isModal: (line: string) => boolean, isOrder: (u: Unit) => boolean): Unit[] {
  if (text.length > GATED_MAX) return units(text).filter(isOrder);
  const lines = splitLines(text, true, MAX_UNITS);
  const n = lines.length;
  const starts = lineStarts(text, lines);
  const take = new Uint8Array(n);
  for (let i = 0; i < n; i++) if ((lines[i] as string).length > MAX_LEN && (lines[i] as string).trim().length > MAX_LEN) take[i] = 1;
  const modalTried = new Uint8Array(n);
  cues ??= new LiteralSet([...MODAL_WORDS, ...VERB_LITERALS]);
  const { ids, ends, count } = cues.occurrences(text);
  let li = 0;
  for (let h = 0; h < count; h++) {
    const end = ends[h] as number;
    while (li < n && end > (starts[li] as number) + (lines[li] as string).length) li++;
    if (li >= n) break;
    if (take[li] === 1) continue;
    const id = ids[h] as number;
    const start = end - cues.lengthOf(id);
    const lineStart = starts[li] as number;
    // A literal across a line break (an escaped "\n") is in no unit.
    if (start < lineStart) continue;
    if (id < MODAL_COUNT) {
      if (modalTried[li] === 1) continue;
      modalTried[li] = 1;
      if (isModal(lines[li] as string)) take[li] = 1;
    } else if (!(end < text.length && isWordQuoteOrDash(text.charCodeAt(end))) && opensAt(text, start, lineStart, 0)) take[li] = 1;
  }
  return ordersOf(lines, take, isOrder);
}

/** Where each line starts in the text (after the `\r?\n` or escaped `\n` before it). */
function lineStarts(text: string, lines: readonly string[]): Int32Array {
  const starts = new Int32Array(lines.length);
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    starts[i] = at;
    at += (lines[i] as string).length;
    if (text.startsWith('\r\n', at)) at += 2;
    else if (text.charCodeAt(at) === 10) at += 1;
    else at += 2; // "\\n"
  }
  return starts;
}

/** The order units of the lines taken, each with the unit before it as `units` has it. */
function ordersOf(lines: readonly string[], take: Uint8Array, isOrder: (u: Unit) => boolean): Unit[] {
  const n = lines.length;
  const trimmed: (string | undefined)[] = new Array<string | undefined>(n);
  const kinds: (LineKind | undefined)[] = new Array<LineKind | undefined>(n);
  const trim = (i: number): string => (trimmed[i] ??= (lines[i] as string).trim());
  const kind = (i: number): LineKind | undefined => (i < 0 || i >= n ? undefined : (kinds[i] ??= lineKind(trim(i))));
  /** The last unit of line `i` ('' when it has none). */
  const lastOf = (i: number): string => (trim(i) === '' ? '' : lineUnits([], trim(i), kind(i - 1), kind(i) as LineKind, kind(i + 1), '', Infinity));
  const out: Unit[] = [];
  const line: Unit[] = [];
  for (let i = 0; i < n; i++) {
    if (take[i] !== 1 || trim(i) === '') continue;
    line.length = 0;
    lineUnits(line, trim(i), kind(i - 1), kind(i) as LineKind, kind(i + 1), '', Infinity);
    for (const [k, u] of line.entries()) {
      if (!isOrder(u)) continue;
      // The unit before the line's first: the last unit of the nearest line before it that has one.
      if (k === 0) {
        for (let j = i - 1; j >= 0; j--) {
          const last = lastOf(j);
          if (last !== '') {
            u.prev = last;
            break;
          }
        }
      }
      out.push(u);
    }
  }
  return out;
}

/**
 * Whether an opening can start at `q` or before it with only opener words between: `q` is where the line starts
 * (after white space), follows one of OPENS_AFTER (after white space), or is a capitalised word after "[a-z0-9)] "
 * (the last break of `openingBreaks`); or white space and an opener word (or its end after one of OPENS_AFTER) stand
 * before `q` and an opening can start there. ORDER_OPENING_RE has at most three openers of three words and a lead
 * of four before its verb: 16 steps are more than it can take.
 */
function opensAt(text: string, q: number, lineStart: number, depth: number): boolean {
  let j = q;
  while (j > lineStart && isSpace(text.charCodeAt(j - 1))) j--;
  if (j === lineStart || OPENS_AFTER.has(text[j - 1] as string)) return true;
  if (q - 2 >= lineStart && text.charCodeAt(q - 1) === 32 && /[a-z0-9)]/.test(text[q - 2] as string) && /[A-Z][a-z]/.test(text.slice(q, q + 2))) return true;
  if (depth >= 16 || j === q) return false;
  let s = j;
  while (s > lineStart && !isSpace(text.charCodeAt(s - 1))) s--;
  for (let k = s; k < j; k++) {
    if (k !== s && !OPENS_AFTER.has(text[k - 1] as string)) continue;
    if (OPENER_TOKEN.test(text.slice(k, j)) && opensAt(text, k, lineStart, depth + 1)) return true;
  }
  return false;
}

/** `[\w'-]` (what ORDER_OPENING_RE refuses after its verb). */
function isWordQuoteOrDash(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 39 || c === 45;
}

/** JavaScript's `\s` (what `trim` removes and `\s+` takes). */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
