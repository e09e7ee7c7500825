import { mayHideUnicode, mayHoldTags } from './fast-paths.js';
import type { Finding } from './finding.js';

/**
 * `hidden_unicode`: invisible Unicode that hides instructions from a human reviewer (tag characters that smuggle
 * ASCII, bidirectional controls, zero-width characters inside words), and the reader's view of such text: the
 * invisible characters removed (`stripInvisible`), the smuggled ASCII decoded (`decodeTagChars`). Linear scans.
 */

/** Unicode tag characters (U+E0000–U+E007F): invisible, and used to smuggle ASCII ("ASCII smuggling"). */
const TAG_CHARS = /[\u{E0000}-\u{E007F}]/u;
/** Bidirectional embedding/override/isolate controls (Trojan Source). */
const BIDI = /[\u202A-\u202E\u2066-\u2069]/g;
/** Zero-width and invisible formatting characters. Marketing mail pads previews with them, hence a low weight. */
const ZERO_WIDTH = /[\u200B-\u200D\u2060-\u2064\u180E]|(?!^)\uFEFF/g;
/** The `hidden_unicode` findings of a text (each needs a character `mayHideUnicode` looks for). */
export function hiddenUnicode(text: string): Finding[] {
  const out: Finding[] = [];
  if (!mayHideUnicode(text)) return out;
  if (TAG_CHARS.test(text)) out.push({ signal: 'hidden_unicode', detail: 'unicode tag characters', weight: 0.9 });
  const bidi = text.match(BIDI)?.length ?? 0;
  if (bidi > 0) out.push({ signal: 'hidden_unicode', detail: `bidi controls x${bidi}`, weight: 0.5 });
  const zw = countZeroWidthInsideWords(text);
  // Zero-width characters *inside* words split trigger words past filters; padding between words is common and benign.
  if (zw >= 3) out.push({ signal: 'hidden_unicode', detail: `zero-width inside words x${zw}`, weight: 0.35 });
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
  if (!mayHoldTags(text)) return '';
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0xe0020 && cp <= 0xe007e) out += String.fromCharCode(cp - 0xe0000);
  }
  return out;
}
