import { normaliseForFingerprint } from './fingerprint.js';

/**
 * The names a private read holds whole, for data flow's addresses (docs/data-flow.md, "The address of a send is not
 * data it carries"): a post to a channel read from the channel list, a reply to the sender of a private mail, a
 * message to a user read from the members. A name of 20 normalised characters or more (letters and digits) shares
 * k-grams with the read, and whether enough of them are kept depends on the store's flow key: a post to a channel of
 * 44 characters read from a list of four was denied in about nine stores out of ten. A name with two digits is a
 * distinctive short value already; one without (`customer-success-escalations-emea`, `hr-director@northwind.example`)
 * is not, so a read also keeps a hash of each name it holds, looked up only to know that an addressing argument is a
 * name this identity was given (`heldName`).
 *
 * A name is a whole word of the read: a run between white space and `=:()[]{}<>,;"'`|` (the words of the short
 * values' scan, short-value-scan.ts, which finds them in its one pass). A phrase is no name: the slug of a private
 * sentence given as a channel is still data. Neither is a piece of a word: `<private digits>@outside.example` is not
 * a word the read held.
 */

/**
 * The names one read keeps. Past it the rest goes unread: a name missed here is only one more send that the k-grams
 * may deny (the read's first names come first), never a send let through.
 */
export const MAX_NAMES_PER_READ = 1024;

/** Words of a read looked at for names: repeats (a host name on every line of a log) count too. */
export const MAX_NAME_WORDS = 8 * MAX_NAMES_PER_READ;

/**
 * The normalised form (`normaliseForFingerprint`) of each distinct word of `text` at `spans` (start, end pairs, from
 * `scanRead`) whose normalised form is `min` to `max` characters long, at most `limit` of them, in the text's order.
 */
export function heldNames(text: string, spans: readonly number[], min: number, max: number, limit = MAX_NAMES_PER_READ): string[] {
  const out = new Set<string>();
  const seen = new Set<string>();
  for (let i = 0; i + 1 < spans.length && out.size < limit; i += 2) {
    const word = text.slice(spans[i], spans[i + 1]);
    if (seen.has(word)) continue;
    seen.add(word);
    const normalised = normaliseForFingerprint(word);
    if (normalised.length >= min && normalised.length <= max) out.add(normalised);
  }
  return [...out];
}

/**
 * What is hashed for a name a read held whole: its normalised form after `@`. An outgoing piece is normalised to
 * letters and digits, so no piece of a send is ever this value: it is looked up only as an address.
 */
export function heldName(normalised: string): string {
  return `@${normalised}`;
}
