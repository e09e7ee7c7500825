import { CODE_NOUNS, CONTROL_CHARS, SUBJECT_WORD, type HoldsLiteral } from './gate-literals.js';
import { isWordChar } from './literals.js';
import { MODAL_WORDS, OPENER_WORDS, ORDER_OPENING_RE, ORDER_VERB_HEADS } from './lexicon.js';
import { SCRIPT_STOPS, SENTENCE_OPENERS } from '../../core/text/sentence-stops.js';

/**
 * The injection scorer's fast paths, in one module: each gives exactly the answer of a plain computation, cheaper
 * (a regex without a lookbehind tried at every position, a prefilter that rules out what provably cannot match).
 * Their plain forms are test/detectors/reference/injection-fast-paths.ts, which exports the same names: the
 * equivalence test compares each pair, and scores every corpus with this module swapped for the reference.
 */

/**
 * `text.split(/(?<=[marks])\s+(?=[next])/)` without a lookbehind tried at every position: `re` is
 * /[marks]\s+(?=[next])/g, and each of its matches splits after the mark and drops the white space. The same
 * pieces: a split of the lookbehind form starts right after a mark, takes the whole run of white space (a shorter
 * run is followed by white space, not by [next]), and the scan resumes after it, where no mark precedes.
 */
export function splitAfterMarks(text: string, re: RegExp): string[] {
  const out: string[] = [];
  let from = 0;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    out.push(text.slice(from, m.index + 1));
    from = m.index + m[0].length;
  }
  out.push(text.slice(from));
  return out;
}

/**
 * `text.split(/\r?\n|\\n/, limit)` (or `/\r?\n/` when `escapedNewline` is false) by the plain string split when
 * the text holds no backslash-n: the pieces between line feeds, each without the one carriage return that ended
 * it before its line feed (a piece that ends the text keeps its carriage return, as with the regex).
 */
export function splitLines(text: string, escapedNewline: boolean, limit?: number): string[] {
  if (escapedNewline && text.includes('\\n')) return text.split(/\r?\n|\\n/, limit);
  const out = text.split('\n', limit);
  let end = 0;
  for (let i = 0; i < out.length; i++) {
    const piece = out[i] as string;
    end += piece.length;
    // Followed by a line feed (every piece but the text's last): the regex took the carriage return with it.
    if (text.charCodeAt(end) === 10 && piece.charCodeAt(piece.length - 1) === 13) out[i] = piece.slice(0, -1);
    end++;
  }
  return out;
}

/**
 * The cells of a trimmed line: split at table bars (`bars`), at CSV commas (`csv`), or at JSON/YAML value quotes.
 * Without bars, CSV or a double quote no separator can match: the line is one cell, without trying the split.
 */
export function cellsOf(t: string, bars: boolean, csv: boolean): string[] {
  if (!bars && !csv && !t.includes('"')) return [t];
  return t.split(bars ? /(?:(?<!\s)\s+)?\|\s*|(?<=^|,)"|"(?=,|$)|"\s*:\s*"|:\s+"/ : csv ? /,(?! )/ : /(?<=^|,)"|"(?=,|$)|"\s*:\s*"|:\s+"/);
}

const SENTENCE_END = new RegExp(`[.!?;${SCRIPT_STOPS}]`);
/** Without the other scripts' stops (which split with no space after them), the split is splitAfterMarks on this. */
const SCRIPT_END = new RegExp(`[${SCRIPT_STOPS}]`);
const CELL_SENTENCE_BREAK = new RegExp(`[.!?;]\\s+(?=[${SENTENCE_OPENERS}\\[])`, 'gu');
const CELL_SPLIT = new RegExp(`(?<=[.!?;])\\s+(?=[${SENTENCE_OPENERS}\\[])|(?<=[${SCRIPT_STOPS}])`, 'u');

/**
 * The sentences of a cell, as `cell.split(/(?<=[.!?;])\s+(?=[SENTENCE_OPENERS[])|(?<=[SCRIPT_STOPS])/u)` has them: a
 * sentence ends only after one of . ! ? ; or a SCRIPT_STOPS mark, so a cell without them is one sentence, and one
 * without the other scripts' stops splits with splitAfterMarks.
 */
export function sentencePieces(cell: string): string[] {
  if (!SENTENCE_END.test(cell)) return [cell];
  if (!SCRIPT_END.test(cell)) return splitAfterMarks(cell, CELL_SENTENCE_BREAK);
  return cell.split(CELL_SPLIT);
}

/**
 * Whether a trimmed line is a table or CSV row, another structured line (comment, field, code) or prose: the
 * expressions of the plain form, each unanchored one by a scan of char codes (tried from every position, the
 * field, code and comma-row expressions read every prose line again and again): the first and last characters for
 * `^[#/]|[{};]$|\|$|^\|`, the pairs `:= == != && || => \w(` by native searches, and the comma row
 * `^[^,\n]+(?:,(?! )[^,\n]*){2,}$` as two or more commas, none followed by a space, no line feed and no comma first.
 */
export function lineKind(t: string): 'row' | 'field' | 'prose' {
  if (/^\|.*\|$/.test(t) || /^[^\s,"]*(?:,[^,\n]*){3,}$/.test(t) || /^[^\s,"]+,(?! )/.test(t) || isCommaRow(t)) return 'row';
  const first = t.charCodeAt(0);
  const last = t.charCodeAt(t.length - 1);
  if (first === 35 || first === 47 || first === 124 || last === 123 || last === 125 || last === 59 || last === 124 || FIELD_LABEL.test(t)) return 'field';
  if (holdsCodePair(t) || CODE_KEYWORD.test(t)) return 'field';
  return 'prose';
}
const FIELD_LABEL = /^"?[\w-]{1,30}"?\s*:\s/;
const CODE_KEYWORD = /^(?:return|if|else|elif|for|while|func|def|let|const|var|import|from|class|fn|pub|end)\b/;

/** `/^[^,\n]+(?:,(?! )[^,\n]*){2,}$/.test(t)`: no group's `[^,\n]*` takes a comma, so every comma is one of the group's. */
function isCommaRow(t: string): boolean {
  let commas = 0;
  for (let i = t.indexOf(','); i !== -1; i = t.indexOf(',', i + 1)) {
    if (i === 0 || t.charCodeAt(i + 1) === 32) return false;
    commas++;
  }
  return commas >= 2 && !t.includes('\n');
}

/**
 * `/:=|==|!=|&&|\|\||=>|\w\(/.test(t)`: each pair by a native search (a line of prose holds few of their
 * characters), and each "(" with what stands before it.
 */
function holdsCodePair(t: string): boolean {
  if (t.includes(':=') || t.includes('==') || t.includes('!=') || t.includes('&&') || t.includes('||') || t.includes('=>')) return true;
  for (let i = t.indexOf('(', 1); i !== -1; i = t.indexOf('(', i + 1)) if (isWordChar(t.charCodeAt(i - 1))) return true;
  return false;
}

/**
 * Where openings start in `t` (see directive.ts `openings`), at most `max`: the ends of the matches of
 * `[:;,，：]\s*|\s(?:[-–—]|->|=>)\s|(?<=[a-z0-9)] )(?=[A-Z][a-z])`, found without a lookbehind tried at every
 * position: the third alternative consumes the letter and space it looked behind at, so its match ends where the
 * empty match was. No other alternative can match at that letter or space (they need punctuation or white space
 * there), nor end on it, so the matches end at the same places.
 */
export function openingBreaks(t: string, max: number): number[] {
  const out: number[] = [];
  // `exec` on the one expression rather than `matchAll`, which copies the expression on every call (once per
  // sentence). No alternative matches the empty string, so each match starts where matchAll's would.
  OPENING_BREAK.lastIndex = 0;
  for (let m = OPENING_BREAK.exec(t); m !== null; m = OPENING_BREAK.exec(t)) {
    out.push(m.index + m[0].length);
    if (out.length >= max) break;
  }
  return out;
}
const OPENING_BREAK = /[:;,，：]\s*|\s(?:[-–—]|->|=>)\s|[a-z0-9)] (?=[A-Z][a-z])/g;

/**
 * An imperative opening (`ORDER_OPENING_RE`), tested cheaply: the first word that is not an opener, an adverb or a
 * "make sure to"-style lead must be a verb head before the full pattern is run. The words are those of
 * `o.slice(0, 120).toLowerCase().split(/[\s,:]+/, 8)`, taken one at a time, so a sentence whose first word is
 * neither an opener nor a verb head costs one short slice.
 */
export function opensWithOrderVerb(o: string): boolean {
  if (/^[\u3000-\u9fff]/u.test(o)) return ORDER_OPENING_RE.test(o);
  const head = o.length > 120 ? o.slice(0, 120) : o;
  let i = 0;
  for (let n = 0; n < 8; n++) {
    let j = i;
    while (j < head.length && !isWordBreak(head.charCodeAt(j))) j++;
    const w = head.slice(i, j).toLowerCase();
    if (ORDER_VERB_HEADS.has(w)) return ORDER_OPENING_RE.test(o);
    if (!OPENER_WORDS.has(w) && !/^\w{3,}ly$/.test(w) && w !== '') return false;
    if (j >= head.length) return false;
    while (j < head.length && isWordBreak(head.charCodeAt(j))) j++;
    i = j;
  }
  return false;
}

/** The characters of `[\s,:]` (JavaScript's \s: ASCII and Unicode white space, line ends, BOM). */
function isWordBreak(c: number): boolean {
  if (c < 128) return c === 32 || c === 44 || c === 58 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Words every modal pattern of the directive signal (MODAL, AI_SUBJECT) contains (the modal verb or "you"),
 * case-insensitively like them: a sentence without any of them matches neither.
 */
export function mayBeModal(s: string): boolean {
  return MODAL_WORD.test(s);
}
const MODAL_WORD = new RegExp(MODAL_WORDS.join('|'), 'i');

/** Every pattern about the reader's output (answer-directive.ts `NEEDS_YOU`) holds "you". */
export function mentionsYou(s: string): boolean {
  return /you/i.test(s);
}

/**
 * `/[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{2,63}|https?:\/\/\S+|\bwww\.\S+/i.test(text)` (an address or URL to send
 * to) without trying the address's first class from every position: the run of address characters before an "@" ends
 * at it and one is enough, so an address is an "@" with an address character before it and the domain right after.
 * (Under `i` without `u` no character outside ASCII folds into these classes.)
 */
export function holdsSendTarget(text: string): boolean {
  for (let at = text.indexOf('@', 1); at !== -1; at = text.indexOf('@', at + 1)) {
    if (!isAddressChar(text.charCodeAt(at - 1))) continue;
    DOMAIN.lastIndex = at + 1;
    if (DOMAIN.test(text)) return true;
  }
  return SEND_URL.test(text);
}
const DOMAIN = /[\w-]{1,63}\.[\w.]{2,63}/y;
const SEND_URL = /https?:\/\/\S+|\bwww\.\S+/i;
/** `[\w.+-]`. */
const isAddressChar = (c: number): boolean => isWordChar(c) || c === 46 || c === 43 || c === 45;

/**
 * Every match of code-payload.ts's CODE_OFFER names code, a script, a snippet or a command: asked of the scan when
 * one answers for the text (`holds`), else of the text.
 */
export function mayOfferCode(text: string, holds?: HoldsLiteral): boolean {
  return holds ? holds(CODE_NOUNS) : CODE_NOUNS.re.test(text);
}

/**
 * Every match of action-command.ts's IMAGE_WITH_SLOT starts with "![" (a Markdown image) or "<img" (the expression
 * is case-sensitive): two plain searches rule it out on most texts instead of trying it from every position.
 */
export function mayHoldImage(text: string): boolean {
  return text.includes('![') || text.includes('<img');
}

/** `/["'“‘]/.test(text)` by four native searches (the class, tried from every position, cost ~30× as much on 32 KB). */
export function holdsQuote(text: string): boolean {
  return text.includes('"') || text.includes("'") || text.includes('“') || text.includes('‘');
}

/**
 * Every match of records.ts's HEAD_FIELD starts with a quote, and every MAIL_SUBJECT match holds "subject" (both
 * case-insensitive without `u`: only ASCII letters fold): two searches rule out what the expressions, tried from
 * every position, would read through.
 */
export function mayHoldRecordField(text: string): boolean {
  return text.includes('"') || text.includes("'");
}
export function mayHoldMailSubject(text: string, holds?: HoldsLiteral): boolean {
  return holds ? holds(SUBJECT_WORD) : SUBJECT_WORD.re.test(text);
}

/** Every `hidden_unicode` finding needs one of these characters (tag characters by their high surrogate). */
export function mayHideUnicode(text: string): boolean {
  return INVISIBLE.test(text);
}
const INVISIBLE = /[\u180E\u200B-\u200D\u2060-\u2064\u2066-\u2069\u202A-\u202E\uFEFF\uDB40]/;

/** Every `control_sequence` finding needs one of these characters: asked of the scan when one answers for the text. */
export function mayHoldControls(text: string, holds?: HoldsLiteral): boolean {
  return holds ? holds(CONTROL_CHARS) : CONTROL_CHARS.re.test(text);
}

/** Every tag character is the surrogate pair \uDB40 + a low surrogate: without that high surrogate there is none. */
export function mayHoldTags(text: string): boolean {
  return text.includes('\uDB40');
}

/** A phrase pattern can only match a text holding one of its hints (`hints` is findHints of the text, by id). */
export function hinted(hintIds: readonly number[], hints: Uint8Array): boolean {
  return hintIds.some((id) => hints[id] === 1);
}
