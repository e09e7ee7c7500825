import { normaliseForFingerprint } from './fingerprint.js';

/**
 * The former computations of a private read's forms and short lines (src/core/text/readings.ts, short-values.ts),
 * as they were before the one-pass forms: the reference the fast paths are compared with.
 */

/** rot13 by a replace with a function per letter. */
export function rot13(text: string): string {
  return text.replace(/[A-Za-z]/g, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

/** The code points of a text in reverse order, through the string iterator. */
export function reversed(text: string): string {
  return [...text].reverse().join('');
}

const MIN_LINE = 20;
const MAX_LINE = 96;

/** shortLines as it was: the whole text split first, then each piece trimmed and read. */
export function shortLines(text: string, max = 256): string[] {
  const out = new Set<string>();
  for (const part of text.split(/\r?\n|(?<=[.!?;])\s+/)) {
    if (out.size >= max) break;
    const line = part.trim();
    if (line.length < MIN_LINE || line.length > 4 * MAX_LINE) continue;
    const value = /^[\w -]{1,30}:\s+(.+)$/.exec(line)?.[1];
    for (const l of value !== undefined ? [line, value] : [line]) {
      const n = normaliseForFingerprint(l);
      if (n.length < MIN_LINE || n.length > MAX_LINE) continue;
      const words = l.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
      if (words.length < 3 || !(/\d/.test(l) || words.slice(1).some((w) => /^\p{Lu}/u.test(w)))) continue;
      out.add(n);
    }
  }
  return [...out];
}
