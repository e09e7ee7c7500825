import { normaliseForFingerprint } from './fingerprint.js';
import { isLetterOrDigit } from './letters.js';

/**
 * The e-mail addresses a text holds whole, for data flow's addresses (docs/data-flow.md, "The address of a send is
 * not data it carries"): a reply to the sender of a private mail has that mail's `From:` in its `to`, and an address
 * of 20 characters or more (letters and digits) shares k-grams with the read. An address with a digit is a
 * distinctive short value already; one without (`hr-director@northwind-holdings.example`) is not, so a read also
 * keeps a hash of each address it holds, looked up only to know that an addressing argument is an address this
 * identity was given (`heldAddress`).
 *
 * Found from each `@` outwards, never by a pattern tried at every position: each walk stops at the next `@` (in
 * neither part), so a long read costs one pass whatever it holds.
 */

const MAX_LOCAL = 64;
const MAX_DOMAIN = 255;
/**
 * The `@`s looked at in one text. Past it the rest goes unread: an address missed here is only one more reply that
 * the k-grams may deny (a read's own senders come first), never a send let through.
 */
const MAX_ATS = 4096;

/** `.`, `_`, `%`, `+`, `-`: the local part's other characters (`-` and `.` only in a domain). */
const localMark = (c: number) => c === 46 || c === 95 || c === 37 || c === 43 || c === 45;
const domainMark = (c: number) => c === 46 || c === 45;
const DIGIT = /\p{N}/u;
/** A letter (`\p{L}`) of a UTF-16 code unit: a letter or digit that is no digit. */
const isLetter = (c: number) => isLetterOrDigit(c) && (c < 128 ? c > 57 : !DIGIT.test(String.fromCharCode(c)));

/**
 * The normalised form (`normaliseForFingerprint`) of each distinct e-mail address in `text` whose normalised form is
 * `min` to `max` characters long, at most `limit` of them, in order of first appearance.
 */
export function mailAddresses(text: string, limit: number, min: number, max: number): string[] {
  const out = new Set<string>();
  let ats = 0;
  for (let at = text.indexOf('@'); at !== -1 && out.size < limit && ats < MAX_ATS; at = text.indexOf('@', at + 1), ats++) {
    // Letters and digits are counted on the way: for ASCII, the normalised length, so most are left without a slice.
    let start = at;
    let words = 0;
    let ascii = true;
    while (start > 0 && at - start < MAX_LOCAL) {
      const c = text.charCodeAt(start - 1);
      if (c >= 128) ascii = false;
      if (isLetterOrDigit(c)) words++;
      else if (!localMark(c)) break;
      start--;
    }
    while (start < at && text.charCodeAt(start) === 46) start++;
    if (start === at) continue;
    let end = at + 1;
    while (end < text.length && end - at <= MAX_DOMAIN) {
      const c = text.charCodeAt(end);
      if (c >= 128) ascii = false;
      if (isLetterOrDigit(c)) words++;
      else if (!domainMark(c)) break;
      end++;
    }
    while (end > at + 1 && domainMark(text.charCodeAt(end - 1))) end--;
    // A top-level domain of two letters or more after a dot inside the domain (at most MAX_DOMAIN characters back).
    let dot = end - 1;
    while (dot > at + 1 && text.charCodeAt(dot) !== 46) dot--;
    if (dot <= at + 1 || end - dot - 1 < 2) continue;
    let top = true;
    for (let i = dot + 1; i < end && top; i++) top = isLetter(text.charCodeAt(i));
    // For ASCII the letters and digits counted are the normalised length; NFKC may change it for other text.
    if (!top || (ascii && (words < min || words > max))) continue;
    const normalised = normaliseForFingerprint(text.slice(start, end));
    if (normalised.length >= min && normalised.length <= max) out.add(normalised);
  }
  return [...out];
}

/**
 * What is hashed for an address a read held whole: its normalised form after `@`. An outgoing piece is normalised to
 * letters and digits, so no piece of a send is ever this value: it is looked up only as an address.
 */
export function heldAddress(normalised: string): string {
  return `@${normalised}`;
}
