import type { Hash, Hmac } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Work over a long text on the event loop in bounded slices, yielding a turn between them, so other sessions are
 * answered meanwhile (what is not sent to the worker pool: src/guard/long-texts.ts).
 */

/** Characters of a long text hashed per turn of the event loop (`updateInTurns`): ~0.5 ms of SHA-256. */
export const HASH_SLICE = 256 * 1024;

/**
 * `h.update(text)`, a slice of at most `slice` characters per turn of the event loop for a long text, so other
 * sessions are answered in between. The same digest as one update: slices never split a surrogate pair (its UTF-8
 * bytes are those of the whole text).
 */
export async function updateInTurns<H extends Hash | Hmac>(h: H, text: string, slice = HASH_SLICE): Promise<H> {
  if (text.length <= slice) {
    h.update(text);
    return h;
  }
  for (let at = 0; at < text.length; ) {
    const end = sliceEnd(text, at, slice);
    h.update(text.slice(at, end));
    at = end;
    if (at < text.length) await nextTurn();
  }
  return h;
}

/** Where a slice of at most `slice` (≥ 2) characters of `text` from `at` ends: never between the halves of a surrogate pair. */
export function sliceEnd(text: string, at: number, slice: number): number {
  let end = Math.min(text.length, at + Math.max(2, slice));
  const last = text.charCodeAt(end - 1);
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
  return end;
}
