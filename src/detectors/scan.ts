import { READING_LITERAL_GROUPS, type ScanLiterals } from '../core/text/reading-literals.js';
import { classRunsIn, RUN_CLASS_BITS, RUN_CLASSES, type RunClass, type RunQuery } from '../core/text/runs.js';
import { LiteralSet } from './injection/literals.js';
import { hintLiterals } from './injection/phrase-family.js';
import type { HintHits } from './injection/phrase-regions.js';
// The signal rows make every phrase family (their hints join hintLiterals) before the automaton is built.
import './injection/signals.js';
import { GATE_LITERAL_GROUPS } from './injection/gate-literals.js';
import { SECRET_LITERAL_GROUPS, type LiteralGroup } from './secrets/literals.js';

/**
 * The one pass over a long text (issue 30): one Aho–Corasick automaton over every injection hint literal
 * (phrase-family.ts) and every secrets prefilter literal (secrets/literals.ts), and in the same loop the runs of the
 * character classes encoded readings and credentials start from (core/text/runs.ts). The detectors then ask the scan
 * instead of scanning again: the injection scorer the hints and reading starts of each window, the secrets detector
 * and the store's masker their literals and token runs. A scan is made once per text (`scanOf`, which keeps the last
 * few) and shared by every detector that reads that text in one check. Each answer is exactly that of the plain test
 * it replaces (test/detectors/text-scan.test.ts swaps this module for test/detectors/reference/text-scan.ts, the
 * plain tests, and requires the same findings on every corpus).
 */

/** Texts shorter than this are tested directly: building a scan costs more than the tests it saves. */
export const SCAN_MIN_CHARS = 4096;
/** Runs shorter than this are not kept (every question asks for 15 or more). */
const MIN_RUN = 15;

let automaton: LiteralSet | undefined;
let phraseCount = 0;
/**
 * Each literal group's literals in the automaton (secrets prefilters, the injection scorer's and the readings'
 * gates), by group: 1 at the id of each (a table read per hit a question passes over).
 */
const groupIds = new Map<ScanLiterals, Uint8Array>();

function built(): LiteralSet {
  if (automaton) return automaton;
  const phrase = hintLiterals();
  phraseCount = phrase.length;
  const all = [...phrase];
  const idOf = new Map<string, number>(phrase.map((l, i) => [l, i]));
  const groups = [...SECRET_LITERAL_GROUPS, ...GATE_LITERAL_GROUPS, ...READING_LITERAL_GROUPS];
  const members = groups.map((g) =>
    g.literals.map((l) => {
      let id = idOf.get(l);
      if (id === undefined) {
        id = all.length;
        all.push(l);
        idOf.set(l, id);
      }
      return id;
    }),
  );
  for (const [k, g] of groups.entries()) {
    const mask = new Uint8Array(all.length);
    for (const id of members[k]!) mask[id] = 1;
    groupIds.set(g, mask);
  }
  automaton = new LiteralSet(all);
  return automaton;
}

/** What one pass found in a text; ask it about the whole text or a slice `[from, to)`. */
export class TextScan {
  readonly text: string;
  private readonly hitIds: Int32Array;
  private readonly hitEnds: Int32Array;
  private readonly hitCount: number;
  /** Per class, the runs of MIN_RUN or more characters as (start, end) pairs, in text order. */
  private readonly runs: Int32Array[];

  constructor(text: string) {
    this.text = text;
    const set = built();
    const runs: number[][] = RUN_CLASSES.map(() => []);
    const { ids, ends, count } = set.occurrences(text, { classOf: WIDEST, min: MIN_RUN, found: (start, end) => subRuns(text, start, end, runs) });
    this.hitIds = ids;
    this.hitEnds = ends;
    this.hitCount = count;
    this.runs = runs.map((r) => Int32Array.from(r));
  }

  /** Whether `text.slice(from, to)` holds `min` (≥ 15) consecutive characters of `cls`. */
  hasRun(cls: RunClass, min: number, from = 0, to = this.text.length): boolean {
    if (min < MIN_RUN) throw new Error(`scan: runs shorter than ${MIN_RUN} are not kept`);
    const runs = this.runs[RUN_CLASSES.indexOf(cls)]!;
    // The first run that ends after `from + min - 1` (runs are disjoint and in order: ends increase).
    let lo = 0;
    let hi = runs.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (runs[2 * mid + 1]! < from + min) lo = mid + 1;
      else hi = mid;
    }
    for (let r = lo; r < runs.length / 2; r++) {
      const start = runs[2 * r]!;
      if (start > to - min) return false;
      if (Math.min(runs[2 * r + 1]!, to) - Math.max(start, from) >= min) return true;
    }
    return false;
  }

  /**
   * Whether `text.slice(from, to)` holds `min` (≥ 15) or more consecutive characters of `cls` followed by a line
   * break (`\n`, or `\r\n`) in the slice. A class character is never a line break, so such a run ends where a
   * kept run ends.
   */
  runEndsLine(cls: RunClass, min: number, from = 0, to = this.text.length): boolean {
    if (min < MIN_RUN) throw new Error(`scan: runs shorter than ${MIN_RUN} are not kept`);
    const runs = this.runs[RUN_CLASSES.indexOf(cls)]!;
    for (let r = this.firstRunEndingAfter(runs, from + min - 1); r < runs.length / 2; r++) {
      const end = runs[2 * r + 1]!;
      if (end >= to) return false;
      if (end - Math.max(runs[2 * r]!, from) < min) continue;
      const c = this.text.charCodeAt(end);
      if (c === 10 || (c === 13 && end + 1 < to && this.text.charCodeAt(end + 1) === 10)) return true;
    }
    return false;
  }

  /** The question about a slice, for the readings (core/text/readings.ts) of that slice. */
  runsIn(from: number, to: number): RunQuery {
    return {
      hasRun: (cls, min) => this.hasRun(cls, min, from, to),
      someLiteral: (group, test) => this.someLiteral(group, test, from, to),
      runEndsLine: (cls, min) => this.runEndsLine(cls, min, from, to),
    };
  }

  /**
   * Whether `test` holds at the start (relative to `from`) of some occurrence of a readings' group's literals inside
   * `text.slice(from, to)` (a word-start literal's word start checked in the slice): asked of each in order of their
   * ends, until it does.
   */
  someLiteral(group: ScanLiterals, test: (start: number) => boolean, from: number, to: number): boolean {
    const set = built();
    const mask = groupIds.get(group);
    if (mask === undefined) throw new Error('scan: a literal group the scanner was not built with');
    for (let h = this.firstHitEndingAfter(from); h < this.hitCount; h++) {
      const end = this.hitEnds[h]!;
      if (end > to) break;
      const id = this.hitIds[h]!;
      if (mask[id] === 0 || !set.startsWordIn(this.text, id, end, from)) continue;
      const start = end - set.lengthOf(id);
      if (group.caseSensitive && !this.text.startsWith(set.literals[id]!, start)) continue;
      if (test(start - from)) return true;
    }
    return false;
  }

  /** The phrase hints `text.slice(from, to)` holds: what `findHints` of that slice gives (phrase-family.ts). */
  hintsIn(from: number, to: number): Uint8Array {
    const set = built();
    const found = new Uint8Array(phraseCount);
    for (let h = this.firstHitEndingAfter(from); h < this.hitCount; h++) {
      const end = this.hitEnds[h]!;
      if (end > to) break;
      const id = this.hitIds[h]!;
      if (id < phraseCount && found[id] === 0 && set.startsWordIn(this.text, id, end, from)) found[id] = 1;
    }
    return found;
  }

  /**
   * Where the phrase hints occur in `text.slice(from, to)`, relative to `from`, in order of their ends (word starts
   * not checked: a superset of the occurrences `hintsIn` counts, for phrase-regions.ts).
   */
  hintHitsIn(from: number, to: number): HintHits {
    const set = built();
    let count = 0;
    const first = this.firstHitEndingAfter(from);
    let last = first;
    while (last < this.hitCount && this.hitEnds[last]! <= to) last++;
    const ids = new Int32Array(last - first);
    const starts = new Int32Array(last - first);
    const ends = new Int32Array(last - first);
    for (let h = first; h < last; h++) {
      const id = this.hitIds[h]!;
      if (id >= phraseCount) continue;
      const end = this.hitEnds[h]!;
      const start = end - set.lengthOf(id);
      if (start < from) continue;
      ids[count] = id;
      starts[count] = start - from;
      ends[count++] = end - from;
    }
    return { ids, starts, ends, count };
  }

  /** Whether `text.slice(0, to)` holds one of a secrets group's literals: what `group.re.test` of it gives. */
  holds(group: LiteralGroup, to = this.text.length): boolean {
    return this.holdsIn(group, 0, to);
  }

  /**
   * Whether `text.slice(from, to)` holds one of a literal group's literals (a word-start literal's word start checked in
   * the slice): what `group.re.test` of it gives.
   */
  holdsIn(group: LiteralGroup, from: number, to: number): boolean {
    const set = built();
    const ids = groupIds.get(group);
    if (ids === undefined) throw new Error('scan: a literal group the scanner was not built with');
    for (let h = this.firstHitEndingAfter(from); h < this.hitCount; h++) {
      const end = this.hitEnds[h]!;
      if (end > to) break;
      const id = this.hitIds[h]!;
      if (ids[id] === 0 || !set.startsWordIn(this.text, id, end, from)) continue;
      const start = end - set.lengthOf(id);
      if (!group.caseSensitive) return true;
      if (this.text.startsWith(set.literals[id]!, start)) return true;
    }
    return false;
  }

  /** The index of the first (start, end) pair in `runs` whose end is past `at`. */
  private firstRunEndingAfter(runs: Int32Array, at: number): number {
    let lo = 0;
    let hi = runs.length / 2;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (runs[2 * mid + 1]! <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private firstHitEndingAfter(from: number): number {
    let lo = 0;
    let hi = this.hitCount;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.hitEnds[mid]! <= from) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** The widest class: every other class lies inside it. */
const WIDEST_CLASS = RUN_CLASSES.indexOf('secret-token');
/** Every class lies inside `secret-token` (the widest): the pass finds its runs, and reads a long one again for the rest. */
const WIDEST = RUN_CLASS_BITS.map((bits) => ((bits & (1 << WIDEST_CLASS)) !== 0 ? 1 : 0));

/**
 * The runs of every class inside `text[start, end)`, a run of the widest class of MIN_RUN or more characters (the
 * scan reports whole runs): the widest class's run is that run itself, and each other class's runs are found by
 * probing every MIN_RUN-th character (`classRunsIn`). A 1.3 MB base64 result is one such run: reading it once per class
 * in one loop cost twice the scan's own pass. Exported for the test against the former one-pass loop.
 */
export function subRuns(text: string, start: number, end: number, out: number[][]): void {
  for (let k = 0; k < out.length; k++) {
    const bit = 1 << k;
    if (k === WIDEST_CLASS) out[k]!.push(start, end);
    else classRunsIn(text, start, end, RUN_CLASS_BITS, bit, MIN_RUN, out[k]!);
  }
}

/**
 * The last texts scanned: the detectors of one check (and the store's masker after them) read the same text, so it
 * is scanned once. Few and by identity of content, so nothing accumulates.
 */
const KEPT = 2;
const recent: TextScan[] = [];

/**
 * The scan of a text already scanned that `text` is the whole of or begins (the store's masker reads a result's
 * first characters), with where `text` ends in it; nothing is scanned here. Consumers that read many slices of a
 * text (the masker) or whose own tests cost less than a scan (the secrets prefilters: a few literal searches) take
 * a scan only when the injection scorer made one.
 */
export function scannedPrefix(text: string): { scan: TextScan; to: number } | undefined {
  if (text.length < SCAN_MIN_CHARS) return undefined;
  // `startsWith` compared a 200 KB text character by character (~0.1 ms, asked several times a check); a slice compared
  // with `===` is the same question, answered by a native compare of the two strings' characters.
  for (const s of recent) if (s.text.length >= text.length && (s.text.length === text.length ? s.text : s.text.slice(0, text.length)) === text) return { scan: s, to: text.length };
  return undefined;
}

/** The scan of `text`, made once for the detectors that read it (or `undefined` for a text too short to scan). */
export function scanOf(text: string): TextScan | undefined {
  if (text.length < SCAN_MIN_CHARS) return undefined;
  for (const s of recent) if (s.text === text) return s;
  const s = new TextScan(text);
  recent.unshift(s);
  if (recent.length > KEPT) recent.pop();
  return s;
}
