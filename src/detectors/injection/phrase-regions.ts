import { RegExpParser, type AST } from '@eslint-community/regexpp';

/**
 * Bounded regions for the phrase patterns (phrase-family.ts). A pattern matches only where its text holds one of its
 * hints, and a match reads only the characters from `behind` before its start to `ahead` after its end; when the
 * pattern's longest match (`longest`) is finite too, every match that holds a hint occurrence reads inside
 * `[hintEnd - reach, hintStart + reach)`, reach = behind + longest + ahead. So the pattern is tried only on those
 * slices of the text around the occurrences, instead of on the whole window.
 *
 * A match found in a slice is taken only when everything it read lies inside the slice (its start at least `behind`
 * from a cut start, its end at least `ahead` from a cut end): then the text matches there too. A match that reads to
 * a cut edge may be an artefact of the cut, so the pattern is then tried on the whole text, as before. The spans are
 * derived from the pattern's syntax tree (regexpp) once per pattern; patterns with an unbounded quantifier, a
 * back-reference, a text anchor (^ or $ without the m flag), a nested or unbounded look-around, or the u/v/g/y flags
 * have no finite reach and are tried on the whole text (test/detectors/phrase-regions.test.ts lists them).
 * test/detectors/reference/injection-phrase-regions.ts (the whole text, always) is the reference.
 */

/** How far a pattern reads: before its match's start, the match itself at its longest, after its end. */
export interface PatternReach {
  behind: number;
  longest: number;
  ahead: number;
}

/** Where the hint literals occur in a text: `count` occurrences as (id, start, end), in text order of their ends. */
export interface HintHits {
  ids: Int32Array;
  starts: Int32Array;
  ends: Int32Array;
  count: number;
}

const reaches = new WeakMap<RegExp, PatternReach | null>();
const parser = new RegExpParser({ ecmaVersion: 2025 });

/** The reach of `re`, or undefined when it has none that is finite. */
export function reachOf(re: RegExp): PatternReach | undefined {
  let r = reaches.get(re);
  if (r === undefined) {
    r = /[uvgy]/.test(re.flags) ? null : analyse(parser.parsePattern(re.source, 0, re.source.length, { unicode: false }), re.flags.includes('m'));
    reaches.set(re, r);
  }
  return r ?? undefined;
}

/**
 * Whether `re` matches `text`: exactly `re.test(text)`. With `hits` (where the hint literals occur in `text`) and a
 * finite reach, `re` is tried only around the occurrences of its hints (`isHint`, by literal id).
 */
export function patternMatches(re: RegExp, isHint: Uint8Array, text: string, hits?: HintHits): boolean {
  const reach = hits && reachOf(re);
  if (!hits || !reach) return re.test(text);
  const span = reach.behind + reach.longest + reach.ahead;
  const n = text.length;
  // The slices, merged where they overlap (occurrences come in order of their ends, so the slices' starts too).
  const slices: number[] = [];
  let total = 0;
  for (let h = 0; h < hits.count; h++) {
    if (isHint[hits.ids[h]!] !== 1) continue;
    const a = Math.max(0, hits.ends[h]! - span);
    const b = Math.min(n, hits.starts[h]! + span);
    const last = slices.length - 1;
    if (last > 0 && a <= slices[last]!) {
      total += Math.max(0, b - slices[last]!);
      slices[last] = Math.max(slices[last]!, b);
    } else {
      slices.push(a, b);
      total += b - a;
    }
  }
  // Regions covering most of the text cost more than one pass over it.
  if (total * 2 > n) return re.test(text);
  for (let k = 0; k < slices.length; k += 2) {
    const a = slices[k]!;
    const b = slices[k + 1]!;
    const piece = text.slice(a, b);
    const m = re.exec(piece);
    if (m === null) continue;
    const clearStart = a === 0 || m.index >= reach.behind;
    const clearEnd = b === n || m.index + m[0].length + reach.ahead <= piece.length;
    // A match that read up to a cut edge may not be one of the text's: ask the whole text. (A match holds a hint, so
    // it starts at least `behind` after the first occurrence's cut and ends `ahead` before the last's: this guards
    // the hint property, which test/detectors/injection-fast-paths.test.ts checks.)
    return clearStart && clearEnd ? true : re.test(text);
  }
  return false;
}

/** The reach of a parsed pattern, or null. `multiline`: ^ and $ read the character before and after. */
function analyse(pattern: AST.Pattern, multiline: boolean): PatternReach | null {
  const reach = { behind: 0, ahead: 0, bad: false };
  const longest = lengthOf(pattern.alternatives, reach, multiline, false);
  if (reach.bad || !Number.isFinite(longest)) return null;
  return { behind: reach.behind, longest, ahead: reach.ahead };
}

interface Reach {
  behind: number;
  ahead: number;
  bad: boolean;
}

/** The longest match of alternatives; records in `reach` what look-arounds and boundaries read outside the match. */
function lengthOf(alternatives: readonly AST.Alternative[], reach: Reach, multiline: boolean, inLookaround: boolean): number {
  let best = 0;
  for (const alt of alternatives) {
    let sum = 0;
    for (const e of alt.elements) sum += elementLength(e, reach, multiline, inLookaround);
    best = Math.max(best, sum);
  }
  return best;
}

function elementLength(e: AST.Element, reach: Reach, multiline: boolean, inLookaround: boolean): number {
  switch (e.type) {
    case 'Character':
    case 'CharacterSet':
    case 'CharacterClass':
      return 1;
    case 'Group':
    case 'CapturingGroup':
      return lengthOf(e.alternatives, reach, multiline, inLookaround);
    case 'Quantifier': {
      const inner = elementLength(e.element, reach, multiline, inLookaround);
      if (e.max === Infinity) return inner === 0 ? 0 : Infinity;
      return inner * e.max;
    }
    case 'Assertion':
      if (e.kind === 'word') {
        // \b reads one character on each side of where it stands: at most one outside the match.
        reach.behind = Math.max(reach.behind, 1);
        reach.ahead = Math.max(reach.ahead, 1);
        return 0;
      }
      if (e.kind === 'lookahead' || e.kind === 'lookbehind') {
        // A look-around (not nested) reads its body's longest match, and a boundary inside it one more, from where
        // it stands; its boundaries also read one on the other side.
        const inner: Reach = { behind: 0, ahead: 0, bad: inLookaround };
        const len = lengthOf(e.alternatives, inner, multiline, true);
        if (inner.bad || !Number.isFinite(len)) reach.bad = true;
        if (e.kind === 'lookbehind') reach.behind = Math.max(reach.behind, len + inner.behind);
        else reach.ahead = Math.max(reach.ahead, len + inner.ahead);
        reach.behind = Math.max(reach.behind, 1);
        reach.ahead = Math.max(reach.ahead, 1);
        return 0;
      }
      // ^ and $: the text's edges (no finite region) unless the m flag makes them line edges, one character read.
      if (!multiline || inLookaround) reach.bad = true;
      if (e.kind === 'start') reach.behind = Math.max(reach.behind, 1);
      else reach.ahead = Math.max(reach.ahead, 1);
      return 0;
    default:
      // Back-references and anything newer: no finite reach is claimed.
      reach.bad = true;
      return 0;
  }
}
