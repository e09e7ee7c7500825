import { normaliseForFingerprint } from '../../../src/core/text/fingerprint.js';

/**
 * The names a read holds whole (src/core/text/held-names.ts with the scan of short-value-scan.ts), written from their
 * definition: the text split at white space and `=:()[]{}<>,;"'`|`; a word counts when its ASCII letters and digits
 * and its code units outside ASCII are `min` or more, and, when it has any outside ASCII, it is at most `4 × max`
 * code units long; its normalised form is kept when `min` to `max` long; distinct, in order, at most `limit`.
 */
export function heldNames(text: string, min: number, max: number, limit: number): string[] {
  const out = new Set<string>();
  for (const word of text.split(/[\s=:()[\]{}<>,;"'`|]+/)) {
    if (out.size >= limit) break;
    const ascii = word.replace(/[^\x00-\x7f]/g, '');
    const counted = ascii.replace(/[^a-zA-Z0-9]/g, '').length + (word.length - ascii.length);
    if (counted < min || (ascii.length < word.length && word.length > 4 * max)) continue;
    const n = normaliseForFingerprint(word);
    if (n.length >= min && n.length <= max) out.add(n);
  }
  return [...out];
}
