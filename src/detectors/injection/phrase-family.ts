/**
 * A phrase family: a signal read as a list of weighted patterns; its weight is the strongest pattern that matched
 * (patterns of one family never add up). The patterns model the *shape* of an attack (an override verb followed by
 * the thing it overrides, a vocative to the assistant, a label followed by an imperative) rather than memorised
 * attack strings. All are linear-time: bounded gaps (`[^.\n]{0,40}`), no nested quantifiers.
 *
 * Each pattern carries its hints: literals of which any text it matches holds at least one, compared like a
 * case-insensitive regex (see literals.ts; "\\b" marks a literal that starts a word). A text holding none of a
 * pattern's hints cannot match it, so the pattern is skipped: one pass over a text (`findHints`, an automaton over
 * the hints of every family) answers every hint. test/detectors/injection-fast-paths.test.ts checks each hint against
 * strings generated from its pattern, and each family against its reference without hints.
 */

import { hinted } from './fast-paths.js';
import type { Finding } from './finding.js';
import { holdsLiteral, LiteralSet } from './literals.js';
import { patternMatches, type HintHits } from './phrase-regions.js';

/** One pattern of a family, with its hints. */
export interface PhrasePattern {
  re: RegExp;
  weight: number;
  detail: string;
  hint: string[];
}

/** A pattern with its hints as ids of the shared automaton's literals. */
export interface CompiledPattern extends PhrasePattern {
  hintIds: number[];
}

export const alt = (...xs: string[]): string[] => xs;
export const cross = (as: string[], bs: string[]): string[] => as.flatMap((x) => bs.map((y) => x + y));
/** JavaScript's \s. */
export const SPACES = [' ', '\t', '\n', '\v', '\f', '\r', '\u00a0', '\u1680', ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)), '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];

/** Every hint literal of every family, in one automaton (built at the first scan: start-up never scans). */
const literals: string[] = [];
const literalId = new Map<string, number>();
let automaton: LiteralSet | undefined;

/** A family of patterns for `signal`: its hints join the shared automaton (families are made when modules load). */
export function phraseFamily(signal: string, patterns: readonly PhrasePattern[]): CompiledPattern[] {
  if (automaton) throw new Error(`injection: the phrase family ${signal} was made after the first scan`);
  return patterns.map((p) => {
    if (p.hint.length === 0) throw new Error(`injection: a ${signal} pattern ("${p.detail}") has no hint`);
    const hintIds = p.hint.map((l) => {
      let id = literalId.get(l);
      if (id === undefined) {
        id = literals.length;
        literals.push(l);
        literalId.set(l, id);
      }
      return id;
    });
    return { ...p, hintIds };
  });
}

/** The hint literals a text holds (one pass for every family; pass the result to matchFamily). */
export function findHints(text: string): Uint8Array {
  automaton ??= new LiteralSet(literals);
  const found = new Uint8Array(literals.length);
  automaton.find(text, found);
  return found;
}

/**
 * The hint literals a text holds (as findHints) and where they occur (as a scan's `hintHitsIn`), from one pass: for a
 * long window the scan does not answer for (its reader's view differs from the text received).
 */
export function findHintHits(text: string): { hints: Uint8Array; hits: HintHits } {
  automaton ??= new LiteralSet(literals);
  const found = new Uint8Array(literals.length);
  const { ids, ends, count } = automaton.occurrences(text);
  const starts = new Int32Array(count);
  for (let h = 0; h < count; h++) {
    const id = ids[h]!;
    starts[h] = ends[h]! - automaton.lengthOf(id);
    if (found[id] === 0 && automaton.startsWordIn(text, id, ends[h]!, 0)) found[id] = 1;
  }
  return { hints: found, hits: { ids, starts, ends, count } };
}

/** Every hint literal of every family, by id (the one-pass scanner, detectors/scan.ts, finds them with the rest). */
export function hintLiterals(): readonly string[] {
  return literals;
}

/** True when `text` holds one of the pattern's hints (a plain search; the reference for the tests). */
export function holdsHint(p: PhrasePattern, text: string): boolean {
  return p.hint.some((l) => holdsLiteral(text, l));
}

/**
 * Runs one family over a text; returns the strongest match, if any. `hints` is findHints(text), shared by the
 * families of one text; `hits`, where those hints occur when a scan of the text gave them, lets a pattern be tried
 * only around its hints (phrase-regions.ts).
 */
export function matchFamily(signal: string, patterns: readonly CompiledPattern[], text: string, hints: Uint8Array, hits?: HintHits): Finding | undefined {
  let best: Finding | undefined;
  for (const p of patterns) {
    if (best && p.weight <= best.weight) continue;
    if (!hinted(p.hintIds, hints)) continue;
    if (patternMatches(p.re, hintMask(p), text, hits)) best = { signal, detail: p.detail, weight: p.weight };
  }
  return best;
}

/** A pattern's hints as a mask over every literal's id (made at its first use, when every family is made). */
const masks = new WeakMap<CompiledPattern, Uint8Array>();
function hintMask(p: CompiledPattern): Uint8Array {
  let m = masks.get(p);
  if (m === undefined) {
    m = new Uint8Array(literals.length);
    for (const id of p.hintIds) m[id] = 1;
    masks.set(p, m);
  }
  return m;
}
