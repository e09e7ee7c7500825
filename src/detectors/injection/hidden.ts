/**
 * Character-level injection signals: invisible Unicode that hides instructions from a human reviewer, terminal
 * control sequences, and encoded runs (base64, hex, URL-encoding, rot13, HTML and backslash escapes, full-width
 * letters) that are decoded so the phrase signals
 * can rescan them. Every scan is linear in the input and the decoding is bounded (count and length).
 */

import { readingsOf, type ReadingLimits, type ReadingName } from '../../core/text/readings.js';
export { rot13 } from '../../core/text/readings.js';
import { shortcuts } from './shortcuts.js';

/** One decoded run: the encoding and the text it decodes to. */
export interface DecodedRun {
  encoding: 'base64' | 'hex' | 'url' | 'rot13' | 'spaced' | 'leet' | 'escaped' | 'base32' | 'char-codes' | 'doubled' | 'interleaved' | 'url-parts' | 'reversed' | 'reversed-words';
  text: string;
}

/** Unicode tag characters (U+E0000–U+E007F): invisible, and used to smuggle ASCII ("ASCII smuggling"). */
const TAG_CHARS = /[\u{E0000}-\u{E007F}]/u;
/** Bidirectional embedding/override/isolate controls (Trojan Source). */
const BIDI = /[\u202A-\u202E\u2066-\u2069]/g;
/** Zero-width and invisible formatting characters. Marketing mail pads previews with them, hence a low weight. */
const ZERO_WIDTH = /[\u200B-\u200D\u2060-\u2064\u180E]|(?!^)\uFEFF/g;
/** ANSI escape sequences (CSI, OSC) and raw ESC. */
const ANSI = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]{0,200}(?:\u0007|\u001B\\)|[@-Z\\-_])/;
/** C0/C1 controls other than tab, newline, carriage return, form feed and ESC (counted separately). */
const OTHER_CONTROL = /[\u0000-\u0008\u000B\u000E-\u001A\u001C-\u001F\u007F-\u009F]/g;

/** Any character TAG_CHARS, BIDI, ZERO_WIDTH, ANSI or OTHER_CONTROL needs (the first of them by its high surrogate). */
const HIDDEN_OR_CONTROL = /[\u0000-\u0008\u000B\u000E-\u001F\u007F-\u009F\u180E\u200B-\u200D\u2060-\u2064\u2066-\u2069\u202A-\u202E\uFEFF\uDB40]/;

/** What `scanHidden` found, each with the weight it contributes. */
export interface HiddenFinding {
  signal: 'hidden_unicode' | 'control_sequence';
  detail: string;
  weight: number;
}

/** Invisible Unicode and control-sequence findings of one text. */
export function scanHidden(text: string): HiddenFinding[] {
  const out: HiddenFinding[] = [];
  // Every finding below needs one of these characters (tag characters by their high surrogate): none, no finding.
  if (shortcuts.on && !HIDDEN_OR_CONTROL.test(text)) return out;
  if (TAG_CHARS.test(text)) out.push({ signal: 'hidden_unicode', detail: 'unicode tag characters', weight: 0.9 });
  const bidi = text.match(BIDI)?.length ?? 0;
  if (bidi > 0) out.push({ signal: 'hidden_unicode', detail: `bidi controls x${bidi}`, weight: 0.5 });
  const zw = countZeroWidthInsideWords(text);
  // Zero-width characters *inside* words split trigger words past filters; padding between words is common and benign.
  if (zw >= 3) out.push({ signal: 'hidden_unicode', detail: `zero-width inside words x${zw}`, weight: 0.35 });
  if (ANSI.test(text)) out.push({ signal: 'control_sequence', detail: 'ANSI escape sequence', weight: 0.6 });
  const ctl = text.match(OTHER_CONTROL)?.length ?? 0;
  if (ctl >= 3) out.push({ signal: 'control_sequence', detail: `control characters x${ctl}`, weight: 0.3 });
  return out;
}

function countZeroWidthInsideWords(text: string): number {
  let n = 0;
  for (const m of text.matchAll(ZERO_WIDTH)) {
    const i = m.index;
    const before = text[i - 1] ?? '';
    const after = text[i + 1] ?? '';
    if (/[A-Za-z]/.test(before) && /[A-Za-z]/.test(after)) n++;
  }
  return n;
}

/** Text with invisible characters removed, so phrase signals see "ig\u200Bnore" as "ignore". */
export function stripInvisible(text: string): string {
  return text.replace(ZERO_WIDTH, '').replace(BIDI, '').replace(/[\u{E0000}-\u{E007F}]/gu, '');
}

/** ASCII hidden in Unicode tag characters (each tag char U+E00xx carries the ASCII char xx). */
export function decodeTagChars(text: string): string {
  // Every tag character is the surrogate pair \uDB40 + low surrogate: without that high surrogate there is none.
  if (shortcuts.on && !text.includes('\uDB40')) return '';
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0xe0020 && cp <= 0xe007e) out += String.fromCharCode(cp - 0xe0000);
  }
  return out;
}

const MAX_RUNS = 8;
const MAX_RUN_LEN = 16_384;
const BASE64_RUN = /[A-Za-z0-9+/_-]{24,}={0,2}/g;
const URL_RUN = /[^\s%]{0,24}(?:%[0-9a-fA-F]{2}[^\s%]{0,24}){6,}/g;
/** URL_RUN tried at one position only (see urlRuns). */
const URL_RUN_AT = /[^\s%]{0,24}(?:%[0-9a-fA-F]{2}[^\s%]{0,24}){6,}/y;

/** Escapes (`&#103;`, `&#x67;`, `\u0067`, `\x67`) or full-width forms a text must hold to be read as escaped. */
const MIN_ESCAPES = 8;
const ESCAPE = /&#x?[0-9a-f]{1,6};?|\\u\{?[0-9a-f]{2,6}|\\x[0-9a-f]{2}|[\uff01-\uff5e]/gi;

/** How many escapes `text` holds, counting up to `MIN_ESCAPES`. */
function escapeCount(text: string): number {
  let n = 0;
  ESCAPE.lastIndex = 0;
  while (n < MIN_ESCAPES && ESCAPE.exec(text) !== null) n++;
  return n;
}

/**
 * The injection detector's limits on the one table of readings (core/text/readings.ts): the encodings nest up to 4
 * deep; rot13 is read when the text names it, a URL-encoded text when it holds six escapes, HTML and backslash
 * escapes when it holds eight (a web page's few `&#8217;` stay as they are). Over the budget or deeper, the text
 * is left unread: the detector fails closed on it (`encoded_payload`).
 */
export const INJECTION_READINGS: ReadingLimits = {
  rows: ['plain', 'url', 'base64', 'hex', 'hex-bytes', 'base32', 'char-codes', 'spaced', 'leet', 'rot13'],
  depth: 4,
  maxViews: 256,
  maxChars: 2 * 1024 * 1024,
  minBase64: 24,
  alignments: 1,
  maxRun: MAX_RUN_LEN,
  gate: {
    plain: (t) => escapeCount(t) >= MIN_ESCAPES,
    url: (t) => (t.match(/%[0-9a-fA-F]{2}/g)?.length ?? 0) >= 6,
    rot13: (t) => /\brot-?13\b/i.test(t),
  },
};

const ENCODING: Partial<Record<ReadingName, DecodedRun['encoding']>> = { plain: 'escaped', 'hex-bytes': 'hex' };

/**
 * What a text hides, read through INJECTION_READINGS: every reading that is readable text (nested ones included;
 * an intermediate encoding that is not text is read on but not returned), at most 8, and what was left unread.
 */
export function readRuns(text: string): { runs: DecodedRun[]; unread?: string } {
  const r = readingsOf(text, INJECTION_READINGS);
  const runs: DecodedRun[] = [];
  for (let v = 1; v < r.views.length && runs.length < MAX_RUNS; v++) {
    const name = r.names[v]!;
    if (isMostlyText(r.views[v]!)) runs.push({ encoding: ENCODING[name] ?? (name as DecodedRun['encoding']), text: r.views[v]! });
  }
  return r.unread === undefined ? { runs } : { runs, unread: r.unread };
}

/** The readable texts `readRuns` finds (at most 8). */
export function decodeRuns(text: string): DecodedRun[] {
  return readRuns(text).runs;
}

/** The raw matches of one kind of run (before decoding), in order: the fast scan, or the plain regex without short cuts. */
export function* runMatches(text: string, kind: 'base64' | 'url'): Generator<string> {
  if (shortcuts.on) {
    yield* kind === 'url' ? urlRuns(text) : base64Runs(text);
    return;
  }
  for (const m of text.matchAll(kind === 'url' ? URL_RUN : BASE64_RUN)) yield m[0];
}

/**
 * The matches of BASE64_RUN in one pass over the characters: a match is a whole run of 24 or more alphabet
 * characters (the greedy quantifier takes the run to its end, and the leftmost position a run of 24 can start at
 * is the run's first character) with up to two "=" after it; shorter runs hold no match.
 */
function* base64Runs(text: string): Generator<string> {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isBase64(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && isBase64(text.charCodeAt(j))) j++;
    if (j - i >= 24) {
      let end = j;
      if (text.charCodeAt(end) === 61) end++;
      if (end > j && text.charCodeAt(end) === 61) end++;
      yield text.slice(i, end);
      i = end;
    } else i = j;
  }
}

/** `[A-Za-z0-9+/_-]` */
function isBase64(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 47 && c <= 57) || c === 43 || c === 45 || c === 95;
}

/**
 * The matches of URL_RUN, in order, each found with one attempt at the one place it can start. A match's first "%"
 * starts an escape (%XX), and before it come at most 24 characters that are neither white space nor "%". So with
 * `p` the next escape after the search position `from`, a match with p as its first "%" starts at the earliest
 * position s ≥ from, ≥ p − 24, after the last white space or "%" before p (the greedy prefix then reaches p; a
 * later start reaches p too and leaves the same chain of escapes after it, so it fails when s fails), and no
 * match starts before s (its first "%" would be an invalid one, or beyond 24 characters). Text without escapes
 * costs one indexOf scan.
 */
function* urlRuns(text: string): Generator<string> {
  let from = 0;
  for (let p = nextEscape(text, 0); p !== -1; p = nextEscape(text, from)) {
    let s = p;
    const floor = Math.max(from, p - 24);
    while (s > floor && !isSpaceOrPercent(text.charCodeAt(s - 1))) s--;
    URL_RUN_AT.lastIndex = s;
    const m = URL_RUN_AT.exec(text);
    if (m) {
      from = s + m[0].length;
      yield m[0];
    } else from = p + 1;
  }
}

/** `[\s%]` (JavaScript's \s). */
function isSpaceOrPercent(c: number): boolean {
  if (c < 128) return c === 37 || c === 32 || (c >= 9 && c <= 13);
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** Index of the next "%" at or after `from` followed by two hex digits, or −1. */
function nextEscape(text: string, from: number): number {
  for (let i = text.indexOf('%', from); i !== -1; i = text.indexOf('%', i + 1)) {
    if (isHex(text.charCodeAt(i + 1)) && isHex(text.charCodeAt(i + 2))) return i;
  }
  return -1;
}

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** Words that mark a sentence as talking *about* a phrase it quotes (reports, articles, awareness mails). */
const REPORTING =
  /\b(?:such as|like|for example|for instance|e\.g\.|phrases?|wording|string|text|says?|said|saying|wrote|writes?|typing|typed|attacks?|attackers?|injections?|injected|malicious|poisoned|tested|category|example|payloads?|someone|somebody|put|posted|hid|hidden|embedded|contained|containing|included)\b/i;
const QUOTED_SPAN = /(?<=^|[\s(:])(?:"[^"\n]{3,200}"|“[^”\n]{3,200}”|'[^'\n]{3,200}'|‘[^’\n]{3,200}’)(?=[\s.,;:)!?]|$)/g;

/**
 * Quoted discussion neutralised: in a line that reports on a phrase ("attackers hide phrases such as \"ignore
 * previous instructions\""), the quoted span is replaced by a placeholder, so phrase signals do not read a
 * quotation as an order. A quote without such a reporting word (a vocative, an order) is left as it is.
 */
export function unquoteDiscussion(text: string): string {
  if (!/["'“‘]/.test(text)) return text;
  return text
    .split('\n')
    .map((line) => {
      // Field names ("text:", "body:") are carrier syntax, not reporting words.
      const prose = line.replace(QUOTED_SPAN, ' ').replace(/(?:^|[\s,{])"?[\w-]{1,30}"?\s*:/g, ' ');
      // JSON keeps its strings in quotes: those are data, not quotations.
      if (line.length > 2000 || /"\s*:\s*["{[\d]/.test(line) || !REPORTING.test(prose)) return line;
      return line.replace(QUOTED_SPAN, '"…"');
    })
    .join('\n');
}

/** True when a decoded string is readable text (mostly letters and spaces), not binary noise. */
function isMostlyText(s: string): boolean {
  if (s.length < 12) return false;
  let printable = 0;
  let letters = 0;
  let spaces = 0;
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (c === 0xfffd) continue;
    if (c >= 32 || c === 9 || c === 10 || c === 13) printable++;
    if (/[A-Za-z]/.test(ch)) letters++;
    if (ch === ' ') spaces++;
  }
  return printable / s.length > 0.95 && letters / s.length > 0.5 && spaces >= 2;
}
