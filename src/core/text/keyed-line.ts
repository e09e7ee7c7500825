/**
 * Whether a line reads `key: value` (optionally a `- ` list item, the key quoted): what
 * `/^\s*(?:-\s+)?['"]?[\w .'-]{1,40}['"]?\s*:\s/` says, without its cost. That expression split a run of white space
 * between its leading run, the key (which may hold spaces) and the run before `:` every way before failing, so a line
 * of 16 KB of spaces took 5 s (test/core/text/keyed-line.test.ts keeps it and compares).
 *
 * None of its parts holds a `:`, so only the line's first `:` can end a match; the key and its quotes hold at most 42
 * characters and white space alone stands around them, so only the places that near the last other character are
 * tried, each on at most 42 characters.
 */

const KEY = /^['"]?[\w .'-]{1,40}['"]?$/;
const MAX_KEY = 42;
const KEY_START = /['"\w .-]/;

export function isKeyedLine(line: string): boolean {
  const colon = line.indexOf(':');
  if (colon < 1 || !/\s/.test(line.charAt(colon + 1))) return false;
  const head = line.slice(0, colon);
  // White space alone may follow the key: it ends at or after `last`.
  const last = head.trimEnd().length;
  const keyWithin = (from: number, to: number): boolean => {
    for (let k = Math.max(from, last - MAX_KEY); k <= to && k < head.length; k++) {
      if (!KEY_START.test(head.charAt(k))) continue;
      for (let e = Math.max(last, k + 1); e <= Math.min(head.length, k + MAX_KEY); e++) if (KEY.test(head.slice(k, e))) return true;
    }
    return false;
  };
  // The key starts anywhere in the leading white space or just after it, or after a `-` and white space.
  const lead = head.length - head.trimStart().length;
  if (keyWithin(0, lead)) return true;
  if (head.charAt(lead) !== '-') return false;
  const gapEnd = head.length - head.slice(lead + 1).trimStart().length;
  return keyWithin(lead + 2, gapEnd);
}

// eslint-disable-next-line regexp/no-super-linear-move -- run from at most 42 characters before the key's end (keyBeforeValue): a start reads at most 40 characters unless its key reaches the white space before the sign, and then it matches
const KEY_BEFORE_END = /['"]?([\w .-]{1,40}?)['"]?\s*[:=]\s*$/;
const MAX_KEY_BEFORE = 42;

/**
 * The key that the text before a value ends with (`name: `, `"to" = `), as `KEY_BEFORE_END.exec(left)?.[1]` gives
 * it. That expression alone was tried from every place of a run of white space and read it to its end from each
 * (16 KB: about 4 s). Its `:` or `=` can only be the last character other than white space, and its key with quotes
 * holds every other such character after its start, at most 42: no match starts earlier than 42 characters before
 * the end of what precedes that `:` (and the expression has no assertion that looks behind its start).
 */
export function keyBeforeValue(left: string): string | undefined {
  const sign = left.trimEnd().length - 1;
  if (sign < 0 || (left[sign] !== ':' && left[sign] !== '=')) return undefined;
  const from = Math.max(0, left.slice(0, sign).trimEnd().length - MAX_KEY_BEFORE);
  return KEY_BEFORE_END.exec(left.slice(from))?.[1];
}
