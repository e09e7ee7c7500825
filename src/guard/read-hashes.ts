import { createHmac } from 'node:crypto';
import { createFingerprinter, type Fingerprinter } from '../core/text/fingerprint.js';
import { privateForms } from '../core/text/readings.js';
import { heldName, heldNames, MAX_NAME_WORDS } from '../core/text/held-names.js';
import { createValueHasher, distinctiveValues, MAX_VALUE, shortLines } from '../core/text/short-values.js';
import { scanRead } from '../core/text/short-value-scan.js';

/**
 * What data flow keeps of a private read (docs/data-flow.md): the fingerprints of the text and of the forms a sender
 * could turn it into to hide it (rot13, reversed, words in reverse order), and the keyed hashes of its short
 * distinctive values and lines, and of the names it holds whole (held-names.ts: a channel, a sender; looked up only
 * as addresses, never as data). A pure function of the text under the flow key and options, so the worker pool
 * (text-pool.ts) computes the same list for a long read as the event loop does for a short one.
 */

/** Characters of a private read whose rot13, reversed and reversed-word forms are fingerprinted too. */
export const FORMS_MAX_CHARS = 64 * 1024;

/** Names how a read's fingerprints are made (its digest's key): change it when a change to `readHashes` makes other hashes of the same text. */
const READ_DIGEST_VERSION = 'quadguard/flow/read/v4';

/** The fingerprint settings a read's hashes depend on (besides the key). */
export interface ReadHashOptions {
  k: number;
  window: number;
  max_per_read: number;
}

/** The hashers of one flow key and options, built once and reused. */
export interface ReadHashers {
  fp: Fingerprinter;
  valueHash: (normalised: string) => string;
}

export function createReadHashers(key: Buffer, o: Pick<ReadHashOptions, 'k' | 'window'>): ReadHashers {
  return { fp: createFingerprinter(key, { k: o.k, window: o.window }), valueHash: createValueHasher(key) };
}

/**
 * The distinct hashes a private read of `text` leaves, sorted: the order the store inserts them in (store/flow.ts),
 * so for a long read the sort is done where the hashes are made, in the worker pool, not on the event loop.
 */
export function readHashes(text: string, h: ReadHashers, maxPerRead: number): string[] {
  const forms = privateForms(text, FORMS_MAX_CHARS).flatMap((f) => h.fp.ofBounded(f, maxPerRead));
  // One pass finds where the short values can be and, for an ASCII text, the letters the fingerprints are taken over.
  // Names shorter than a k-gram never share one with a send: only longer ones need to be known as names.
  const { k } = h.fp.options;
  const { spots, letters, names } = scanRead(text, { min: k, max: MAX_VALUE, limit: MAX_NAME_WORDS });
  const grams = letters !== undefined ? h.fp.ofBoundedCodes(letters, maxPerRead) : h.fp.ofBounded(text, maxPerRead);
  const held = heldNames(text, names, k, MAX_VALUE).map((n) => h.valueHash(heldName(n)));
  // As many short values as fingerprints: a list of a thousand account numbers is kept whole (at 256, the 500th
  // sent alone passed), and what a read keeps stays bounded by the one setting.
  return [...new Set([...grams, ...forms, ...distinctiveValues(text, maxPerRead, spots).map(h.valueHash), ...shortLines(text).map(h.valueHash), ...held])].sort();
}

/**
 * The key of a read's digest (data flow's `record`): the flow key under the version and the options the read's hashes
 * depend on, so a store read with other options, or by a version that fingerprints otherwise, holds other digests
 * and equal digests mean equal hashes.
 */
export function readDigestKey(key: Buffer, o: ReadHashOptions): Buffer {
  return createHmac('sha256', key).update(`${READ_DIGEST_VERSION}\0${JSON.stringify([o.k, o.window, o.max_per_read, FORMS_MAX_CHARS])}`).digest();
}

/** The keyed digest naming a read's content in the store, in one update (the worker pool's; the loop hashes a long text in slices, to the same digest). */
export function readDigest(text: string, digestKey: Buffer): string {
  return `r:${createHmac('sha256', digestKey).update(text).digest('base64')}`;
}
