import { SCRIPT_STOPS, SENTENCE_OPENERS } from '../../core/text/sentence-stops.js';
import { cellsOf, lineKind, sentencePieces, splitAfterMarks, splitLines } from './fast-paths.js';

/**
 * How the sentence signals cut a text: lines (`splitLines`), the sentences of a line (`sentences`), the cells and
 * sentences of structured text (`units`), and whether a line is structured data. Linear: bounded counts and lengths.
 */

/**
 * At most this many sentences or units are read per text: a window (32 K characters) cannot reach it, since each
 * holds 8 or more characters of its own. Lines are not counted: short lines (a column of figures) hold no unit, and a
 * count of lines let 4,000 of them push an order out of reach.
 */
export const MAX_SENTENCES = 4000;
export const MAX_UNITS = 4000;
/**
 * A unit holds at most this many characters: a longer sentence is read as overlapping pieces of it (`pieces`), so an
 * order at the end of a long sentence is read as one at its start is (cutting it let 500 characters of preamble
 * hide the order).
 */
export const MAX_LEN = 500;

/**
 * Where `sentences` splits a line (see splitAfterMarks): after . ! ? followed by white space and what starts a
 * sentence (SENTENCE_OPENERS: a capital of any script, a letter of a script without case, a quote), and after the
 * full stops of other scripts (SCRIPT_STOPS) with any white space after them, as `sentencePieces` splits a cell.
 */
const LINE_SENTENCE_BREAK = new RegExp(`[.!?]\\s+(?=[${SENTENCE_OPENERS}])|[${SCRIPT_STOPS}]\\s*`, 'gu');

/** Sentences of a text: split on line breaks and on sentence punctuation (followed by a space, but for other scripts' stops). */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of splitLines(text, true)) if (lineSentences(line, out)) return out;
  return out;
}

/** Appends the sentences of one line (a piece of `splitLines(text, true)`) to `out`; true when `out` is full. */
export function lineSentences(line: string, out: string[]): boolean {
  for (const s of splitAfterMarks(line, LINE_SENTENCE_BREAK)) {
    const t = s.trim();
    if (t.length >= 8) out.push(t);
    if (out.length >= MAX_SENTENCES) return true;
  }
  return false;
}

/** One piece of text to read: the sentence, the sentence before it, and whether it sits in structured data. */
export interface Unit {
  text: string;
  prev: string;
  structured: boolean;
  /** A value in a well-formed row (two or more other filled cells): the table's own content, e.g. an "action" column. */
  tableValue?: boolean;
}

/** Splits lines into cells (table bars, CSV quotes, JSON/YAML values) and cells into sentences. */
export function units(text: string): Unit[] {
  const out: Unit[] = [];
  let prev = '';
  const lines = splitLines(text, true).map((l) => l.trim());
  const kinds = lines.map(lineKind);
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i] as string;
    if (t === '') continue;
    prev = lineUnits(out, t, kinds[i - 1], kinds[i] as LineKind, kinds[i + 1], prev, MAX_UNITS);
    if (out.length >= MAX_UNITS) return out;
  }
  return out;
}

export type LineKind = ReturnType<typeof lineKind>;

/**
 * The units of one trimmed, non-empty line `t` (its kind and its neighbours' kinds given), appended to `out` while it
 * holds fewer than `cap`; `prev` is the unit before the line's first. Returns the last unit's text (`prev` when the
 * line has none).
 */
export function lineUnits(out: Unit[], t: string, before: LineKind | undefined, kind: LineKind, after: LineKind | undefined, prev: string, cap: number): string {
  // Prose next to table or CSV rows is a sentence dropped into structured data.
  const structured = kind !== 'prose' || before === 'row' || after === 'row';
  // Bars separate cells only in table rows; elsewhere they are pipes ("curl … | sh") or title separators.
  const bars = /^\||\|.*\|/.test(t);
  const csv = kind === 'row' && !bars && !t.includes('"');
  // Very long lines (minified data, separator rows) are one cell: splitting them buys nothing.
  const cells = t.length > 8 * MAX_LEN ? [t] : cellsOf(t, bars, csv);
  const filled = cells.length === 1 ? (cells[0]?.trim() !== '' ? 1 : 0) : cells.filter((c) => c.trim() !== '').length;
  for (const cell of cells) {
    for (const raw of sentencePieces(cell)) {
      const s = raw.trim();
      if (s.length < 8) continue;
      const parts = s.length > MAX_LEN ? longSentencePieces(s) : [s];
      for (const [n, piece] of parts.entries()) {
        // A piece is read after the one before it and, further on, after its sentence's opening too: an address
        // there ("Assistant, …") is to the whole sentence, however long the clause between it and the order.
        out.push({ text: piece, prev: n >= 2 ? `${parts[0]}\n${prev}` : prev, structured, tableValue: filled >= 3 });
        prev = piece;
        if (out.length >= cap) return prev;
      }
    }
  }
  return prev;
}

/**
 * A long sentence as pieces of at most MAX_LEN characters, each starting half a piece after the one before (so every
 * stretch of MAX_LEN / 2 characters lies whole in one), cut at white space where there is some in the piece's last
 * half; the last piece reaches the sentence's end. A piece after the first that holds no white space and nothing
 * outside ASCII is part of a token (a base64 blob, a hash, minified text: a 32 K window of base64 is one sentence)
 * and holds no words to read: it is left out, and so is never cut (one scan finds where the token ends).
 */
export function longSentencePieces(s: string): string[] {
  const out: string[] = [];
  const half = MAX_LEN / 2;
  const keep = (piece: string): void => {
    if (out.length === 0 || !TOKEN_ONLY.test(piece)) out.push(piece);
  };
  /** The first character at or after the piece's start that is not a token's (white space, control, not ASCII). */
  let tokenEnd = 0;
  for (let start = 0; ; ) {
    if (out.length > 0) {
      if (tokenEnd < start) tokenEnd = start;
      while (tokenEnd < s.length && isTokenChar(s.charCodeAt(tokenEnd))) tokenEnd++;
      // No space to cut at in the piece or just past it (so it ends at start + MAX_LEN and the next starts half a
      // piece on), and nothing but token: it would be left out.
      while (tokenEnd > start + MAX_LEN && s.length - start > MAX_LEN) start += half;
    }
    if (s.length - start <= MAX_LEN) {
      keep(s.slice(start).trim());
      return out;
    }
    // The last space in the piece's last half, and the first in its second half: searched only there (a search
    // over the whole sentence made a 32 K token cost its length for every piece).
    let end = start + MAX_LEN;
    while (end > start + half && s.charCodeAt(end) !== 32) end--;
    if (end === start + half) end = start + MAX_LEN;
    keep(s.slice(start, end).trim());
    let next = start + half;
    while (next < end && s.charCodeAt(next) !== 32) next++;
    start = next < end ? next + 1 : start + half;
  }
}

/** A piece of a token: printable ASCII without white space. */
const TOKEN_ONLY = /^[\x21-\x7e]*$/;
const isTokenChar = (c: number): boolean => c >= 0x21 && c <= 0x7e;

/** A line is structured data (table row, JSON, YAML/header field, code) rather than prose. */
export function isStructured(line: string): boolean {
  const t = line.trim();
  return (
    /^\|/.test(t) ||
    isPipeRow(t) ||
    /\t/.test(line) ||
    /^[[{"\]}]/.test(t) ||
    (/^[\w-]{1,30}:\s/.test(t) && t.split(/\s+/).length <= 8) ||
    /[;{}]$/.test(t) ||
    /^(?:import|from|def|class|return|for|if|while|const|let|var|function)\b/.test(t)
  );
}

/** Pipe-separated short cells (a table row without a leading bar), not a header line carrying a whole e-mail. */
function isPipeRow(t: string): boolean {
  const cells = t.split('|');
  return cells.length >= 3 && t.length / cells.length < 40;
}
