/**
 * Which of a fixed set of literals occur in a text, found in one pass (an Aho–Corasick automaton), with the
 * semantics of a case-insensitive regex: `/lit/i` (no `u` flag) matches where the text's characters fold to the
 * literal's, character by character, with the regex's fold (upper case when that is one character, never
 * turning a non-ASCII character into an ASCII one). A literal written "\\b…" must also start at a word boundary
 * (the character before it is not `[A-Za-z0-9_]`; every such literal starts with a word character). Used by the
 * phrase hints (phrase-family.ts) so that one scan of a window answers every hint of every family.
 */

/** A literal set compiled once; `find` marks the literals a text holds. */
export class LiteralSet {
  readonly literals: readonly string[];
  private readonly folded: string[];
  private readonly wordStart: boolean[];
  private readonly asciiCol = new Int16Array(128);
  private readonly otherCol = new Map<number, number>();
  /**
   * The transitions, for the scanning loops: `next[at + col]` is where the automaton goes from the state at `at` on
   * column `col`. A state is kept as `at` = its number × `cols` (no multiplication per character), and its entry is
   * −at − 1 when literals end at it (one sign test per character instead of an array read).
   */
  private readonly next: Int32Array;
  /** Each ASCII character's column, its case folded (the regex's fold of a–z). */
  private readonly asciiFolded = new Int32Array(128);
  /** Columns per state: a state's number is its `at` / `cols`. */
  private readonly cols: number;
  /**
   * The literal ids ending at each state (through its fail links): state `s`'s are `outIds[outFrom[s]]` up to
   * `outIds[outFrom[s + 1]]`. Typed arrays rather than a map by state: a map lookup per hit.
   */
  private readonly outFrom: Int32Array;
  private readonly outIds: Int32Array;

  constructor(literals: readonly string[]) {
    this.literals = literals;
    this.wordStart = literals.map((l) => l.startsWith('\\b'));
    this.folded = literals.map((l) => foldString(l.startsWith('\\b') ? l.slice(2) : l));
    for (const [i, f] of this.folded.entries()) {
      if (f === '') throw new Error(`injection: empty hint literal "${literals[i] ?? ''}"`);
      if (this.wordStart[i] && !isWordChar(f.charCodeAt(0))) throw new Error(`injection: "${literals[i] ?? ''}" marks a word start before a non-word character`);
    }
    // Columns: one per folded character the literals use; column 0 for every other character.
    let cols = 1;
    for (const f of this.folded) {
      for (let k = 0; k < f.length; k++) {
        const c = f.charCodeAt(k);
        if (c < 128 ? this.asciiCol[c] === 0 : !this.otherCol.has(c)) {
          if (c < 128) this.asciiCol[c] = cols++;
          else this.otherCol.set(c, cols++);
        }
      }
    }
    // Trie.
    const trie: number[][] = [new Array<number>(cols).fill(-1)];
    const ends: number[][] = [[]];
    for (const [id, f] of this.folded.entries()) {
      let s = 0;
      for (let k = 0; k < f.length; k++) {
        const col = this.col(f.charCodeAt(k));
        let t = (trie[s] as number[])[col] as number;
        if (t === -1) {
          t = trie.length;
          trie.push(new Array<number>(cols).fill(-1));
          ends.push([]);
          (trie[s] as number[])[col] = t;
        }
        s = t;
      }
      (ends[s] as number[]).push(id);
    }
    // Breadth-first: fail links, full transition table, outputs through fail links.
    const n = trie.length;
    const delta = new Int32Array(n * cols);
    const fail = new Int32Array(n);
    const outputs: (number[] | undefined)[] = new Array<number[] | undefined>(n);
    const queue: number[] = [];
    for (let col = 0; col < cols; col++) {
      const t = (trie[0] as number[])[col] as number;
      if (t === -1) delta[col] = 0;
      else {
        delta[col] = t;
        fail[t] = 0;
        queue.push(t);
      }
    }
    outputs[0] = undefined;
    for (let qi = 0; qi < queue.length; qi++) {
      const s = queue[qi] as number;
      const own = ends[s] as number[];
      const inherited = outputs[fail[s] as number];
      outputs[s] = own.length || inherited ? [...own, ...(inherited ?? [])] : undefined;
      for (let col = 0; col < cols; col++) {
        const t = (trie[s] as number[])[col] as number;
        if (t === -1) delta[s * cols + col] = delta[(fail[s] as number) * cols + col] as number;
        else {
          delta[s * cols + col] = t;
          fail[t] = delta[(fail[s] as number) * cols + col] as number;
          queue.push(t);
        }
      }
    }
    const next = new Int32Array(n * cols);
    for (let k = 0; k < n * cols; k++) {
      const t = delta[k] as number;
      next[k] = outputs[t] === undefined ? t * cols : -t * cols - 1;
    }
    this.cols = cols;
    this.outFrom = new Int32Array(n + 1);
    for (let t = 0; t < n; t++) this.outFrom[t + 1] = (this.outFrom[t] as number) + (outputs[t]?.length ?? 0);
    this.outIds = new Int32Array(this.outFrom[n] as number);
    for (let t = 0; t < n; t++) this.outIds.set(outputs[t] ?? [], this.outFrom[t] as number);
    for (let c = 0; c < 128; c++) this.asciiFolded[c] = this.asciiCol[fold(c)] as number;
    this.next = next;
  }

  /** Marks in `found` (one entry per literal, cleared here) the literals that occur in `text`. */
  find(text: string, found: Uint8Array): void {
    found.fill(0);
    const { next, asciiFolded } = this;
    let at = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const t = next[at + (c < 128 ? (asciiFolded[c] as number) : this.otherColumn(c))] as number;
      if (t >= 0) {
        at = t;
        continue;
      }
      at = -t - 1;
      const state = at / this.cols;
      for (let k = this.outFrom[state] as number, last = this.outFrom[state + 1] as number; k < last; k++) {
        const id = this.outIds[k] as number;
        if (found[id] === 1) continue;
        if (this.wordStart[id]) {
          const before = i - (this.folded[id] as string).length;
          if (before >= 0 && isWordChar(text.charCodeAt(before))) continue;
        }
        found[id] = 1;
      }
    }
  }

  /**
   * Every occurrence of every literal in `text`, as (id, end) pairs in text order (`end`: the index after its last
   * character), word starts not yet checked: a caller reading a slice of the text checks them there (`startsWordIn`),
   * so the one pass answers `find` of any slice.
   */
  occurrences(text: string, runs?: RunWatch): Hits {
    const { next, asciiFolded, cols, outFrom, outIds } = this;
    const hits = new HitList();
    let at = 0;
    // In the same loop, the runs of a character class (`runs`), reported when they end.
    const runMin = runs?.min ?? 0;
    let runStart = -1;
    // Each ASCII character's column, with the class's members marked by a negative entry (−col − 1).
    const ascii = Int32Array.from(asciiFolded, (col, c) => (runs?.classOf[c] === 1 ? -col - 1 : col));
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let t: number;
      if (c < 128) {
        let col = ascii[c] as number;
        if (col < 0) {
          col = -col - 1;
          if (runStart < 0) runStart = i;
        } else if (runStart >= 0) {
          if (i - runStart >= runMin) runs!.found(runStart, i);
          runStart = -1;
        }
        t = next[at + col] as number;
      } else {
        if (runStart >= 0) {
          if (i - runStart >= runMin) runs!.found(runStart, i);
          runStart = -1;
        }
        t = next[at + this.otherColumn(c)] as number;
      }
      if (t >= 0) {
        at = t;
        continue;
      }
      at = -t - 1;
      const state = at / cols;
      for (let k = outFrom[state] as number, last = outFrom[state + 1] as number; k < last; k++) hits.add(outIds[k] as number, i + 1);
    }
    if (runStart >= 0 && text.length - runStart >= runMin) runs!.found(runStart, text.length);
    return hits.done();
  }

  /** The length of literal `id` as matched (without its word-start mark). */
  lengthOf(id: number): number {
    return (this.folded[id] as string).length;
  }

  /**
   * Whether an occurrence of literal `id` ending at `end` counts in `text.slice(from)`: it lies inside the slice,
   * and a word-start literal has no word character before it there (the slice's first character has none).
   */
  startsWordIn(text: string, id: number, end: number, from: number): boolean {
    const start = end - (this.folded[id] as string).length;
    if (start < from) return false;
    return !this.wordStart[id] || start === from || !isWordChar(text.charCodeAt(start - 1));
  }

  /** The column of a character outside ASCII, its case folded (0: no literal uses it). */
  private otherColumn(c: number): number {
    return this.otherCol.get(fold(c)) ?? 0;
  }

  private col(c: number): number {
    return c < 128 ? (this.asciiCol[c] as number) : (this.otherCol.get(c) ?? 0);
  }
}

/** Occurrences as (id, end) pairs in text order: the first `count` entries of each array. */
export interface Hits {
  ids: Int32Array;
  ends: Int32Array;
  count: number;
}

/** A growing list of (id, end) pairs. */
class HitList {
  private ids = new Int32Array(1024);
  private ends = new Int32Array(1024);
  private count = 0;

  add(id: number, end: number): void {
    if (this.count === this.ids.length) {
      const ids = new Int32Array(this.count * 2);
      ids.set(this.ids);
      this.ids = ids;
      const ends = new Int32Array(this.count * 2);
      ends.set(this.ends);
      this.ends = ends;
    }
    this.ids[this.count] = id;
    this.ends[this.count++] = end;
  }

  done(): Hits {
    return { ids: this.ids, ends: this.ends, count: this.count };
  }
}

/** A character class whose runs `occurrences` reports in its pass: 1 in `classOf` for a member (ASCII only). */
export interface RunWatch {
  classOf: Uint8Array;
  min: number;
  found(start: number, end: number): void;
}

/** The reference: does `text` hold `literal` (same semantics, by a plain search)? For the tests. */
export function holdsLiteral(text: string, literal: string): boolean {
  const wordStart = literal.startsWith('\\b');
  const f = foldString(wordStart ? literal.slice(2) : literal);
  const t = foldString(text);
  for (let i = t.indexOf(f); i !== -1; i = t.indexOf(f, i + 1)) {
    if (!wordStart || i === 0 || !isWordChar(text.charCodeAt(i - 1))) return true;
  }
  return false;
}

/** The case-insensitive regex fold of one UTF-16 code unit (ECMAScript Canonicalize without the u flag). */
export function fold(c: number): number {
  if (c < 128) return c >= 97 && c <= 122 ? c - 32 : c;
  let f = FOLD.get(c);
  if (f === undefined) {
    const u = String.fromCharCode(c).toUpperCase();
    f = u.length === 1 && u.charCodeAt(0) >= 128 ? u.charCodeAt(0) : c;
    FOLD.set(c, f);
  }
  return f;
}
const FOLD = new Map<number, number>();

/** The case-insensitive regex's fold of a string. */
export function foldString(s: string): string {
  let out = '';
  for (let k = 0; k < s.length; k++) out += String.fromCharCode(fold(s.charCodeAt(k)));
  return out;
}

/** `[A-Za-z0-9_]`. */
export function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}
