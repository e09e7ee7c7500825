import { randomUUID } from 'node:crypto';

/** Strings longer than this are serialised a slice at a time (characters). */
export const SLICE_CHARS = 256 * 1024;

/** The deepest a message is searched for long strings; a deeper one is serialised whole, as before. */
const MAX_DEPTH = 64;

/**
 * `JSON.stringify(value)` as a series of pieces whose concatenation is exactly that text, each long string (over
 * `sliceChars`) serialised a slice per piece, so that a writer can hand a large answer over a piece per turn of the
 * event loop (`JSON.stringify` of an 8 MB result is one 12-15 ms task). Returns undefined when `value` holds no long
 * string: the caller serialises it whole. Pieces are made as they are read.
 */
export function jsonPieces(value: unknown, sliceChars = SLICE_CHARS): Iterable<string> | undefined {
  const long = new Set<string>();
  collectLong(value, sliceChars, long, 0);
  if (long.size === 0) return undefined;
  // Each long string is serialised as a marker that no text can hold by chance (a fresh random id), then the marker's
  // quoted form is found in the output and the string's own slices put in its place.
  const nonce = randomUUID();
  const markers = new Map<string, string>();
  const strings: string[] = [];
  for (const s of long) {
    markers.set(s, `\u0001${nonce}#${strings.length}\u0001`);
    strings.push(s);
  }
  const outline = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' && v.length > sliceChars ? (markers.get(v) ?? v) : v));
  return piecesOf(outline, nonce, strings, sliceChars);
}

function collectLong(value: unknown, sliceChars: number, into: Set<string>, depth: number): void {
  if (typeof value === 'string') {
    if (value.length > sliceChars) into.add(value);
    return;
  }
  if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const item of value) collectLong(item, sliceChars, into, depth + 1);
    return;
  }
  for (const key in value) if (Object.hasOwn(value, key)) collectLong((value as Record<string, unknown>)[key], sliceChars, into, depth + 1);
}

function* piecesOf(outline: string, nonce: string, strings: readonly string[], sliceChars: number): Generator<string> {
  // A marker serialises as `"\u0001<nonce>#<n>\u0001"`.
  const open = `"\\u0001${nonce}#`;
  let at = 0;
  for (let next = outline.indexOf(open, at); next >= 0; next = outline.indexOf(open, at)) {
    const close = outline.indexOf('\\u0001"', next + open.length);
    const s = strings[Number(outline.slice(next + open.length, close))]!;
    yield `${outline.slice(at, next)}"`;
    yield* stringSlices(s, sliceChars);
    yield '"';
    at = close + '\\u0001"'.length;
  }
  yield outline.slice(at);
}

/**
 * `JSON.stringify(s)` without its quotes, a slice of `s` at a time (at most `sliceChars` characters, or two for a
 * pair when `sliceChars` is 1); a cut never falls inside a surrogate pair.
 */
function* stringSlices(s: string, sliceChars: number): Generator<string> {
  for (let from = 0; from < s.length; ) {
    let to = Math.min(from + sliceChars, s.length);
    // JSON.stringify writes a pair as it is and each lone half as an escape: a cut between the halves would change it.
    if (isHigh(s.charCodeAt(to - 1)) && isLow(s.charCodeAt(to))) to += to - 1 > from ? -1 : 1;
    yield JSON.stringify(s.slice(from, to)).slice(1, -1);
    from = to;
  }
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;
