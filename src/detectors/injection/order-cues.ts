import { lineKind, splitLines } from './fast-paths.js';
import { LABEL_WORDS, MODAL_WORDS, NEGATION_LEADS, OPENER_PHRASES, ORDER_VERBS, PREFIX_MARKS } from './lexicon.js';
import { fold, foldString, isWordChar } from './literals.js';
import { lineUnits, MAX_LEN, MAX_UNITS, units, type LineKind, type Unit } from './sentences.js';
import { SCRIPT_STOPS } from '../../core/text/sentence-stops.js';

/**
 * The units (sentences.ts) the `directive` signal must read: those of the lines where an order can start. A unit
 * scores only when it is shaped as an order (directive.ts `orderShape`): a modal aimed at the reader (MODAL or
 * AI_SUBJECT matches it, which needs a MODAL_WORDS word) or an opening that ORDER_OPENING_RE matches (an order verb
 * after at most a few openers, at the start of an opening). A line takes part when
 *
 * - its trimmed length is over MAX_LEN (its units are cut, so nothing is assumed about their ends), or
 * - it holds a modal word and MODAL or AI_SUBJECT matches the line (a unit is a piece of its line that starts after
 *   and ends before a character no `\b` of theirs can tell from the unit's edge), or
 * - from a place where an opening can start (the line's start, after a split, prefix or break character, a
 *   capitalised word after "[a-z0-9)] "), opener words lead to an order verb not followed by `[\w'-]`: every
 *   opening starts at such a place, and ORDER_OPENING_RE reads its openers and verb there. The verbs are found by one
 *   expression (VERB) and walked back from (`opensBefore`); the start of a line after a written-out "\n" (whose "n"
 *   hides a verb from VERB) is walked forward from (`opensAt`).
 *
 * Any other line's units are not orders: they score nothing, so they are not made. The units of the lines that take
 * part are made by the same code as `units` (`lineUnits`), with the same neighbours' kinds; the unit before an order
 * that opens its line is that of the nearest line before it that has units, made only then. Exact for texts of at
 * most `GATED_MAX` characters (a window), where the cap of MAX_UNITS units cannot be reached: each unit holds 8 or
 * more characters of its own. Longer texts (a record reading) are split in full. test/detectors/order-cues.test.ts checks the order units against `units` on
 * every corpus; test/detectors/reference/injection-order-cues.ts is the plain form.
 */

/**
 * Calls `visit` with the start of each occurrence of a modal word (MODAL_WORDS, case-insensitive) in the text, in any
 * order: what the one scan found (gate-literals.ts MODAL_WORD_GROUP), instead of the text's own search (MODAL_WORD).
 */
export type ModalWordStarts = (visit: (start: number) => void) => void;

/** Texts up to this length cannot reach MAX_UNITS units (8 characters each, disjoint): MAX_UNITS × 8. */
export const GATED_MAX = MAX_UNITS * 8;

/** Each alternative of ORDER_VERBS as plain literals (`summari[sz]e` gives two). */
const VERB_LITERALS = [...new Set(ORDER_VERBS.split('|').flatMap((v) => (v.includes('[sz]') ? [v.replace('[sz]', 's'), v.replace('[sz]', 'z')] : [v])))];
if (VERB_LITERALS.some((v) => /[^\p{L}\p{M}' -]/u.test(v))) throw new Error('injection: an order verb is not a plain word');

/** The verbs as a trie of case-folded code units (`fold`: the case-insensitive regex's fold, as literals.ts). */
interface TrieNode {
  next: Map<number, TrieNode>;
  end: boolean;
}
const VERBS: TrieNode = { next: new Map(), end: false };
for (const v of VERB_LITERALS) {
  let node = VERBS;
  for (let k = 0; k < v.length; k++) {
    const c = fold(v.charCodeAt(k));
    let t = node.next.get(c);
    if (t === undefined) node.next.set(c, (t = { next: new Map(), end: false }));
    node = t;
  }
  node.end = true;
}

/**
 * An order verb after a character that is not `[A-Za-z0-9_]` (or at the text's start) and not followed by `[\w'-]`:
 * where an opening's verb can be (an opening starts after such a character, or a line's start, and its openers end
 * in white space). Case-insensitive like ORDER_OPENING_RE. The look-behind is `\b` before a verb that starts with an
 * ASCII letter (a word character) and `\B` before one that starts outside ASCII (never a word character without the
 * `u` flag), and the ASCII verbs are one alternation factored by their leading characters: the same matches, found
 * faster than by the look-behind and the flat list tried at every place (`VERB_FORMER` in order-cues.test.ts).
 */
export const VERB = new RegExp(
  `(?:\\b${factored(VERB_LITERALS.filter((v) => v.charCodeAt(0) < 128))}|\\B(?:${VERB_LITERALS.filter((v) => v.charCodeAt(0) >= 128).join('|')}))(?![\\w'-])`,
  'gi',
);
if (VERB_LITERALS.some((v) => v.charCodeAt(0) < 128 && !isWordChar(v.charCodeAt(0)))) throw new Error('injection: an order verb starts with an ASCII character that is not a letter');

/** A modal word anywhere (fast-paths.ts `mayBeModal`, global). */
const MODAL_WORD = new RegExp(MODAL_WORDS.join('|'), 'gi');

/**
 * The words that may stand before the verb in an order's opening (the words of the openers and negation leads),
 * case-folded as the case-insensitive regex folds them (literals.ts `fold`): a word matches when its fold is one of
 * them, as the regex compares. An adverb (`\w{3,}ly`) is tested apart (`isAdverb`).
 */
const OPENER_WORDS = new Set(
  [...OPENER_PHRASES.filter((p) => !p.startsWith('\\')), ...NEGATION_LEADS.map((l) => l.replace('(?: to| that| you)?', ' to that you'))].flatMap((p) => p.split(' ')).map(foldString),
);
if (OPENER_PHRASES.filter((p) => p.startsWith('\\')).join() !== String.raw`\w{3,}ly`) throw new Error('injection: an opener pattern order-cues.ts does not read');
/** The opener words as a trie of folded code units, like the verbs. */
const OPENERS: TrieNode = { next: new Map(), end: false };
for (const w of OPENER_WORDS) {
  let node = OPENERS;
  for (let k = 0; k < w.length; k++) {
    const c = w.charCodeAt(k);
    let t = node.next.get(c);
    if (t === undefined) node.next.set(c, (t = { next: new Map(), end: false }));
    node = t;
  }
  node.end = true;
}
/** The first characters (folded) of the verbs and of the opener words. */
const FIRST = new Uint8Array(0x10000);
for (const w of [...VERB_LITERALS.map(foldString), ...OPENER_WORDS]) FIRST[w.charCodeAt(0)] = 1;
/** The longest opener word. */
const OPENER_WORD_MAX = Math.max(...[...OPENER_WORDS].map((w) => w.length)) + 1;

/**
 * The characters after which an opening can start (white space between them and it aside): the cell and sentence
 * splits of `units`, the carrier prefixes `openings` strips and the breaks it opens at (directive.ts).
 */
const OPENS_AFTER = new Uint8Array(0x10000);
for (const c of `|",.!?;${SCRIPT_STOPS}]#/*>'\`-–•=~):，：—`) OPENS_AFTER[c.charCodeAt(0)] = 1;
/**
 * Those of OPENS_AFTER that stand before an opening only as carrier marks (PREFIX_MARKS, stripped from a unit's start
 * by `openings`) or in the breaks " - ", " – ", " — ", " -> ", " => " (`openingBreaks`): `prefixMayOpen` tells.
 */
const MARK_ONLY = new Uint8Array(0x10000);
for (const c of '#/*>\'`-–•=~—') MARK_ONLY[c.charCodeAt(0)] = 1;
/** The full stops of other scripts (SCRIPT_STOPS), which end a sentence wherever they stand. */
const SCRIPT_STOP = new Uint8Array(0x10000);
for (const c of SCRIPT_STOPS) SCRIPT_STOP[c.charCodeAt(0)] = 1;
/** PREFIX_MARKS: the characters of a run `openings` strips as one piece. */
const MARK = new Uint8Array(0x10000);
for (const c of PREFIX_MARKS) MARK[c.charCodeAt(0)] = 1;
/** A label word (LABEL_WORDS) where a unit can start: after a character that is not `\w`, or the line's start. */
const LABEL_WORD = new RegExp(`(?<![A-Za-z0-9_])(?:${LABEL_WORDS})`, 'i');

/**
 * The units of `text` shaped as orders (`isOrder`), in text order, each as `units(text)` has it: the only units the
 * directive signal scores.
 */
export function orderUnits(text: string, isModal: (line: string) => boolean, isOrder: (u: Unit) => boolean, modalWords?: ModalWordStarts): Unit[] {
  if (text.length > GATED_MAX) return units(text).filter(isOrder);
  const lines = splitLines(text, true);
  const n = lines.length;
  const starts = lineStarts(text, lines);
  const take = new Uint8Array(n);
  for (let i = 0; i < n; i++) if ((lines[i] as string).length > MAX_LEN && (lines[i] as string).trim().length > MAX_LEN) take[i] = 1;
  // Lines with a modal word that MODAL or AI_SUBJECT matches (no modal word holds a line break's character). Lines
  // taken already are not searched: what they hold changes nothing (a long line is taken above).
  let li = 0;
  if (modalWords !== undefined) {
    // Each modal word lies inside one line, or starts in the "n" of an escaped "\n" (between two lines).
    const tried = new Uint8Array(n);
    modalWords((at) => {
      const i = lineAt(starts, at);
      if (take[i] === 1 || tried[i] === 1 || at >= (starts[i] as number) + (lines[i] as string).length) return;
      tried[i] = 1;
      if (isModal(lines[i] as string)) take[i] = 1;
    });
  } else {
    MODAL_WORD.lastIndex = 0;
    for (;;) {
      li = untakenFrom(take, li);
      if (li >= n) break;
      if (MODAL_WORD.lastIndex < (starts[li] as number)) MODAL_WORD.lastIndex = starts[li] as number;
      const m = MODAL_WORD.exec(text);
      if (m === null) break;
      while (li < n && m.index >= (starts[li] as number) + (lines[li] as string).length) li++;
      if (li >= n) break;
      const lineStart = starts[li] as number;
      const lineEnd = lineStart + (lines[li] as string).length;
      // A word starting in an escaped "\n" (its "n"): read the line from its start.
      if (m.index < lineStart) {
        MODAL_WORD.lastIndex = lineStart;
        continue;
      }
      if (take[li] === 0 && isModal(lines[li] as string)) take[li] = 1;
      MODAL_WORD.lastIndex = lineEnd;
    }
  }
  // Lines after a written-out "\n" whose start opens with an order verb: its "n" is a word character, so VERB does
  // not find a verb there. Any other line's start follows a line feed or the text's start, where VERB finds the verb
  // and `opensBefore` walks back over the same opener words to the line's start.
  for (let i = 1; i < n; i++) {
    const at = starts[i] as number;
    if (take[i] === 0 && text.charCodeAt(at - 1) === 110 && text.charCodeAt(at - 2) === 92 && opensAt(text, at, at + (lines[i] as string).length)) take[i] = 1;
  }
  // Lines where an order verb ends a walk back over opener words to where an opening can start.
  li = 0;
  VERB.lastIndex = 0;
  for (;;) {
    li = untakenFrom(take, li);
    if (li >= n) break;
    if (VERB.lastIndex < (starts[li] as number)) VERB.lastIndex = starts[li] as number;
    const m = VERB.exec(text);
    if (m === null) break;
    const q = m.index;
    while (li < n && q >= (starts[li] as number) + (lines[li] as string).length) li++;
    if (li >= n) break;
    const lineStart = starts[li] as number;
    const lineEnd = lineStart + (lines[li] as string).length;
    if (q >= lineStart && take[li] === 0 && opensBefore(text, q, lineStart, 0)) take[li] = 1;
    // The rest of a line taken is not read; else every later place is (a verb may start inside this one: "e-mail").
    VERB.lastIndex = take[li] === 1 ? Math.max(lineEnd, q + 1) : q + 1;
  }
  return ordersOf(lines, take, isOrder);
}

/**
 * Whether an opening can start at `q` or before it with only opener words between: `q` is where the line starts
 * (after white space), follows one of OPENS_AFTER (after white space), or is a capitalised word after "[a-z0-9)] "
 * (the last break of `openingBreaks`); or white space and an opener word (or its end after one of OPENS_AFTER) stand
 * before `q` and an opening can start there. ORDER_OPENING_RE has at most three openers of three words and a lead
 * of four before its verb: 16 steps are more than it can take.
 */
function opensBefore(text: string, q: number, lineStart: number, depth: number): boolean {
  let j = q;
  while (j > lineStart && isSpace(text.charCodeAt(j - 1))) j--;
  if (j === lineStart) return true;
  const before = text.charCodeAt(j - 1);
  if (OPENS_AFTER[before] === 1 && (MARK_ONLY[before] !== 1 || prefixMayOpen(text, j - 1, lineStart, 0))) return true;
  if (q - 2 >= lineStart && text.charCodeAt(q - 1) === 32 && isLowerDigitOrParen(text.charCodeAt(q - 2)) && isUpper(text.charCodeAt(q)) && isLower(text.charCodeAt(q + 1))) return true;
  if (depth >= 16 || j === q) return false;
  let s = j;
  while (s > lineStart && !isSpace(text.charCodeAt(s - 1))) s--;
  for (let k = s; k < j; k++) {
    if (k !== s && OPENS_AFTER[text.charCodeAt(k - 1)] !== 1) continue;
    if ((isAdverb(text, k, j) || (j - k <= OPENER_WORD_MAX && isOpenerWord(text, k, j))) && opensBefore(text, k, lineStart, depth + 1)) return true;
  }
  return false;
}

/**
 * Whether an opening can start after the mark at `p` (one of MARK_ONLY, white space after it aside). Either the mark
 * ends a break of `openingBreaks` (" - ", " – ", " — ", " -> ", " => ": white space before it), or it ends a run of
 * PREFIX_MARKS that `openings` strips, which it does only where a unit starts or an earlier strip ends: so, before
 * the run (white space aside), the line's start, a cell split (a bar or a quote, in the run or before it; a comma
 * not followed by a space), a sentence split (`sentencePieces`: `[.!?;]` and white space before a quote, which is the
 * run's first mark; `。！？`), or the end of a strip (`]`, the `.` or `)` of a number and white space, a label's `:`,
 * an earlier run and white space). A label word's strip (`TODO … -`) can end anywhere after it: a line holding one
 * where a unit can start is taken. The breaks after which an opening starts are not stripped, so a mark there is not
 * carrier syntax. Anything looser is kept: only a superset of the openings must pass.
 */
function prefixMayOpen(text: string, p: number, lineStart: number, depth: number): boolean {
  const c = text.charCodeAt(p);
  if ((c === 45 || c === 0x2013 || c === 0x2014) && p > lineStart && isSpace(text.charCodeAt(p - 1))) return true;
  if (c === 62 && p - 2 >= lineStart && (text.charCodeAt(p - 1) === 45 || text.charCodeAt(p - 1) === 61) && isSpace(text.charCodeAt(p - 2))) return true;
  if (MARK[c] === 1) {
    let r = p;
    while (r > lineStart && MARK[text.charCodeAt(r - 1)] === 1) r--;
    for (let k = r; k <= p; k++) if (text.charCodeAt(k) === 124 || text.charCodeAt(k) === 34) return true;
    let j = r;
    while (j > lineStart && isSpace(text.charCodeAt(j - 1))) j--;
    if (j === lineStart) return true;
    const b = text.charCodeAt(j - 1);
    const spaced = j < r;
    if (b === 93 || b === 58 || SCRIPT_STOP[b] === 1) return true; // ] : and the other scripts' full stops
    if (b === 44 && text.charCodeAt(j) !== 32) return true; // a CSV cell (`,(?! )`)
    if ((b === 46 || b === 41) && spaced) return true; // "1. ", "2) ", a sentence's end
    if ((b === 59 || b === 33 || b === 63) && spaced && text.charCodeAt(r) === 39) return true; // ; ! ? before a quote
    if (MARK[b] === 1 && spaced) return depth >= 4 || prefixMayOpen(text, j - 1, lineStart, depth + 1);
  }
  return LABEL_WORD.test(text.slice(lineStart, p));
}

/** Whether, from `q` (white space aside), opener words lead to an order verb before `to` (from a line's start). */
function opensAt(text: string, q: number, to: number): boolean {
  for (let depth = 0; depth <= 16; depth++) {
    while (q < to && isSpace(text.charCodeAt(q))) q++;
    if (q >= to) return false;
    const first = FIRST[fold(text.charCodeAt(q))] === 1;
    if (first && verbAt(text, q, to)) return true;
    let e = q;
    while (e < to && !isSpace(text.charCodeAt(e))) e++;
    if (e >= to || !(isAdverb(text, q, e) || (first && e - q <= OPENER_WORD_MAX && isOpenerWord(text, q, e)))) return false;
    q = e;
  }
  return false;
}

/** Whether an order verb starts at `q` and is not followed by `[\w'-]`. */
function verbAt(text: string, q: number, to: number): boolean {
  let node: TrieNode | undefined = VERBS;
  for (let i = q; i < to; i++) {
    node = node.next.get(fold(text.charCodeAt(i)));
    if (node === undefined) return false;
    if (node.end && !(i + 1 < text.length && isWordQuoteOrDash(text.charCodeAt(i + 1)))) return true;
  }
  return false;
}

/** The line `at` lies in or after (the last whose start is at or before it). */
function lineAt(starts: Int32Array, at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * An expression source matching exactly the given plain words (no expression syntax in them), as an alternation
 * factored by their leading characters: "sign", "sign up", "skip" give `(?:sign(?: up)?|skip)`.
 */
function factored(words: readonly string[]): string {
  const byFirst = new Map<string, string[]>();
  let empty = false;
  for (const w of words) {
    if (w === '') empty = true;
    else {
      const rest = byFirst.get(w[0] as string);
      if (rest === undefined) byFirst.set(w[0] as string, [w.slice(1)]);
      else rest.push(w.slice(1));
    }
  }
  const parts = [...byFirst].map(([c, rest]) => c + factored(rest));
  if (parts.length === 0) return '';
  return parts.length === 1 && !empty ? (parts[0] as string) : `(?:${parts.join('|')})${empty ? '?' : ''}`;
}

/** The first line from `i` on that is not taken (`take.length` when none is). */
function untakenFrom(take: Uint8Array, i: number): number {
  while (i < take.length && take[i] === 1) i++;
  return i;
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

/** Whether `text[q, e)` is an adverb (`\w{3,}ly`) with an optional `,` or `:` after it. */
function isAdverb(text: string, q: number, e: number): boolean {
  const last = text.charCodeAt(e - 1);
  if (last === 44 || last === 58) e--;
  if (e - q < 5 || (text.charCodeAt(e - 2) | 32) !== 108 || (text.charCodeAt(e - 1) | 32) !== 121) return false;
  for (let k = q; k < e; k++) if (!isWordChar(text.charCodeAt(k))) return false;
  return true;
}

/** Whether `text[q, e)` is an opener word (OPENER_WORDS, folded) with an optional `,` or `:` after it. */
function isOpenerWord(text: string, q: number, e: number): boolean {
  const last = text.charCodeAt(e - 1);
  if (last === 44 || last === 58) e--;
  let node: TrieNode | undefined = OPENERS;
  for (let k = q; k < e && node !== undefined; k++) node = node.next.get(fold(text.charCodeAt(k)));
  return node !== undefined && node.end;
}

/** `[\w'-]` (what ORDER_OPENING_RE refuses after its verb). */
function isWordQuoteOrDash(c: number): boolean {
  return isWordChar(c) || c === 39 || c === 45;
}

function isLowerDigitOrParen(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 41;
}
const isUpper = (c: number): boolean => c >= 65 && c <= 90;
const isLower = (c: number): boolean => c >= 97 && c <= 122;

/** JavaScript's `\s` (what `trim` removes and `\s+` takes). */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
