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
  private readonly cols: number;
  private readonly asciiCol = new Int16Array(128);
  private readonly otherCol = new Map<number, number>();
  private readonly delta: Int32Array;
  /** Literal ids ending at each state (through its fail links), or undefined. */
  private readonly outputs: (number[] | undefined)[];

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
    this.cols = cols;
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
    this.delta = delta;
    this.outputs = outputs;
  }

  /** Marks in `found` (one entry per literal, cleared here) the literals that occur in `text`. */
  find(text: string, found: Uint8Array): void {
    found.fill(0);
    const { delta, cols, asciiCol, outputs } = this;
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let col: number;
      if (c < 128) col = asciiCol[c >= 97 && c <= 122 ? c - 32 : c] as number;
      else col = this.otherCol.get(fold(c)) ?? 0;
      s = delta[s * cols + col] as number;
      const out = outputs[s];
      if (out === undefined) continue;
      for (const id of out) {
        if (found[id] === 1) continue;
        if (this.wordStart[id]) {
          const before = i - (this.folded[id] as string).length;
          if (before >= 0 && isWordChar(text.charCodeAt(before))) continue;
        }
        found[id] = 1;
      }
    }
  }

  private col(c: number): number {
    return c < 128 ? (this.asciiCol[c] as number) : (this.otherCol.get(c) ?? 0);
  }
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

function foldString(s: string): string {
  let out = '';
  for (let k = 0; k < s.length; k++) out += String.fromCharCode(fold(s.charCodeAt(k)));
  return out;
}

function isWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}
