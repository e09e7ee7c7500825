import { readingsOf, type ReadingLimits, type ReadingName } from '../../core/text/readings.js';
import type { Finding } from './finding.js';
import type { RunQuery } from '../../core/text/runs.js';
import { PERCENT, ROT13_NAME } from '../../core/text/reading-literals.js';
import { isWordChar } from './literals.js';

/**
 * `encoded_payload`: what a text hides in encoded runs (base64, hex, URL-encoding, rot13, HTML and backslash escapes,
 * full-width letters, spaced and leet letters, …), read through the one table of readings (core/text/readings.ts) and
 * scored again by the scorer (signals.ts): a reading that scores as an injection counts here, and what the readings
 * leave unread (nested too deep, over their budget) fails closed. Decoding is bounded (count and length).
 */

/** One decoded run: the encoding and the text it decodes to. */
export interface DecodedRun {
  encoding: 'base64' | 'hex' | 'url' | 'rot13' | 'spaced' | 'leet' | 'escaped' | 'base32' | 'char-codes' | 'doubled' | 'interleaved' | 'url-parts' | 'reversed' | 'reversed-words';
  text: string;
}

const MAX_RUN_LEN = 16_384;

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
    url: (t, runs) => {
      if (runs?.someLiteral === undefined) return (t.match(/%[0-9a-fA-F]{2}/g)?.length ?? 0) >= 6;
      // Each `%` followed by two hex digits is a match of `/%[0-9a-fA-F]{2}/g` (its digits are no `%`: none is passed over).
      let n = 0;
      return runs.someLiteral(PERCENT, (i) => isHex(t.charCodeAt(i + 1)) && isHex(t.charCodeAt(i + 2)) && ++n >= 6);
    },
    rot13: (t, runs) => (runs?.someLiteral === undefined ? /\brot-?13\b/i.test(t) : runs.someLiteral(ROT13_NAME, (i) => namesRot13At(t, i))),
  },
};

const isHex = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** Whether `/\brot-?13\b/i` matches at `i`, where the scan found `rot13` or `rot-13` starting a word: its end's boundary. */
function namesRot13At(t: string, i: number): boolean {
  const end = i + (t.charCodeAt(i + 3) === 45 ? 6 : 5);
  return end === t.length || !isWordChar(t.charCodeAt(end));
}

const ENCODING: Partial<Record<ReadingName, DecodedRun['encoding']>> = { plain: 'escaped', 'hex-bytes': 'hex' };

/**
 * What a text hides, read through INJECTION_READINGS: every reading that is readable text (nested ones included;
 * an intermediate encoding that is not text is read on but not returned), and what was left unread. Every one: the
 * readings' budget (256 views) bounds them and fails closed beyond it, while a cap of its own here let eight
 * readable decoys hide a ninth run that carried the order.
 */
export function readRuns(text: string, runQuery?: RunQuery): { runs: DecodedRun[]; unread?: string } {
  const r = readingsOf(text, INJECTION_READINGS, runQuery);
  const runs: DecodedRun[] = [];
  for (let v = 1; v < r.views.length; v++) {
    const name = r.names[v]!;
    if (isMostlyText(r.views[v]!)) runs.push({ encoding: ENCODING[name] ?? (name as DecodedRun['encoding']), text: r.views[v]! });
  }
  return r.unread === undefined ? { runs } : { runs, unread: r.unread };
}

/** The readable texts `readRuns` finds. */
export function decodeRuns(text: string): DecodedRun[] {
  return readRuns(text).runs;
}

/** True when a decoded string is readable text (mostly letters and spaces), not binary noise. */
export function isMostlyText(s: string): boolean {
  if (s.length < 12) return false;
  let printable = 0;
  let letters = 0;
  let spaces = 0;
  // Code point by code point, over char codes (a decoded megabyte was read through a string and a regex test per
  // character): a surrogate pair counts once, as printable; a lone surrogate is printable too.
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        printable++;
        continue;
      }
    }
    if (c === 0xfffd) continue;
    if (c >= 32 || c === 9 || c === 10 || c === 13) printable++;
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) letters++;
    if (c === 32) spaces++;
  }
  return printable / s.length > 0.95 && letters / s.length > 0.5 && spaces >= 2;
}

/**
 * The `encoded_payload` finding of a text: the first reading whose own score (`rescore`, the scorer with the same
 * signals, one level down) is an injection, named with the signals it hides; else, when the readings left part of
 * the text unread, a finding that fails closed on it.
 */
export function encodedPayload(text: string, rescore: (hidden: string) => { score: number; findings: readonly Finding[] }, runQuery?: RunQuery): Finding | undefined {
  const { runs, unread } = readRuns(text, runQuery);
  for (const run of runs) {
    const inner = rescore(run.text);
    if (inner.score >= 0.5) {
      const what = [...new Set(inner.findings.map((f) => f.signal))].join('+');
      return { signal: 'encoded_payload', detail: `${run.encoding} hiding ${what}`, weight: Math.max(0.7, inner.score) };
    }
  }
  return unread === undefined ? undefined : { signal: 'encoded_payload', detail: `unread: ${unread}`, weight: 0.7 };
}
