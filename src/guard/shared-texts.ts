import { setImmediate as nextTurn } from 'node:timers/promises';
import { HASH_SLICE, sliceEnd } from '../core/text/turns.js';

/**
 * A long text goes to the worker pool once (long-texts.ts): its UTF-8 bytes are written, a slice per turn of the
 * event loop, into memory the pool's workers share (a SharedArrayBuffer), and every job that reads it (the detector
 * pass, a private read's hashes, the audit row) carries only a handle to those bytes, not a copy of the text (a
 * structured clone of several megabytes per job, on the loop). A worker decodes the bytes once and keeps the text
 * for the jobs after (`SharedTextCache`).
 *
 * The text a worker decodes is the text sent: a string that is not well-formed UTF-16 (a lone surrogate, which UTF-8
 * cannot carry) is not shared but cloned, as before.
 */

/** Strings shorter than this are cloned with their job (the round trip costs more than a copy saves). */
export const SHARE_MIN_CHARS = 64 * 1024;
/** Texts the main thread keeps shared (the newest; a job of an older one shares it again). */
const HELD_TEXTS = 4;
/** Texts a worker keeps decoded (the jobs of one interaction follow each other). */
const DECODED_TEXTS = 2;

/** UTF-8 bytes of a piece of a text, in memory shared with the workers. */
export interface SharedChunk {
  bytes: SharedArrayBuffer;
  length: number;
}

/** A text's UTF-8 bytes, in chunks that each decode on their own. `id` names it in a worker's cache. */
export interface SharedText {
  id: number;
  chunks: SharedChunk[];
}

/** A string taken out of a job: where it was (keys and indexes from the job's root) and its shared bytes. */
export interface SharedLeaf {
  path: Array<string | number>;
  text: SharedText;
}

/** Ids unique in this process (every reader of every book shares the workers' caches). */
let nextId = 0;

/** The texts shared lately, by their content: a text sent with three jobs is encoded once. */
export class SharedTexts {
  private readonly held = new Map<string, Promise<SharedText | undefined>>();

  /** The shared bytes of `text`, or undefined when it is not well-formed (it is then cloned). */
  of(text: string): Promise<SharedText | undefined> {
    let got = this.held.get(text);
    if (got !== undefined) {
      this.held.delete(text);
      this.held.set(text, got);
      return got;
    }
    got = encodeInTurns(text);
    this.held.set(text, got);
    if (this.held.size > HELD_TEXTS) this.held.delete(this.held.keys().next().value!);
    return got;
  }

  /**
   * `job` with each string of at least `min` characters (at any depth of its arrays and plain objects) replaced by
   * '' and listed in `shared`; the rest of it is copied as it is (small: the texts are what is long).
   */
  async share<T>(job: T, min = SHARE_MIN_CHARS): Promise<{ job: T; shared: SharedLeaf[] }> {
    const found: Array<{ path: Array<string | number>; text: string }> = [];
    const copy = takeLong(job, min, [], found) as T;
    const shared: SharedLeaf[] = [];
    for (const f of found) {
      const text = await this.of(f.text);
      if (text !== undefined) shared.push({ path: f.path, text });
      else put(copy, f.path, f.text);
    }
    return { job: copy, shared };
  }
}

function takeLong(v: unknown, min: number, path: Array<string | number>, found: Array<{ path: Array<string | number>; text: string }>): unknown {
  if (typeof v === 'string') {
    if (v.length < min) return v;
    found.push({ path: [...path], text: v });
    return '';
  }
  if (Array.isArray(v)) return v.map((x, n) => takeLong(x, min, [...path, n], found));
  if (v === null || typeof v !== 'object') return v;
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = takeLong(x, min, [...path, k], found);
  return out;
}

function put(root: unknown, path: ReadonlyArray<string | number>, value: string): void {
  let at = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path.at(-1)!] = value;
}

/**
 * `text` as UTF-8 in SharedArrayBuffers, a slice per turn of the event loop (a chunk or two each: a slice of ASCII
 * fills one of its own length; wider characters go on in a second); undefined when it is not well-formed. The chunks
 * end where slices end, between characters, so each is UTF-8 on its own. Nothing is copied again: a buffer grown and
 * copied once the text proves wider would be a long task of its own on fresh memory.
 */
async function encodeInTurns(text: string): Promise<SharedText | undefined> {
  const encoder = new TextEncoder();
  const chunks: SharedChunk[] = [];
  for (let at = 0; at < text.length; ) {
    const end = sliceEnd(text, at, HASH_SLICE);
    let slice = text.slice(at, end);
    if (!(slice as unknown as { isWellFormed(): boolean }).isWellFormed()) return undefined;
    // Exact for ASCII; the rest (at most three bytes a UTF-16 code unit) in a second chunk.
    for (let room = slice.length; slice.length > 0; room = slice.length * 3) {
      const bytes = new SharedArrayBuffer(room);
      const { read, written } = encoder.encodeInto(slice, new Uint8Array(bytes));
      chunks.push({ bytes, length: written });
      slice = slice.slice(read);
    }
    at = end;
    if (at < text.length) await nextTurn();
  }
  return { id: ++nextId, chunks };
}

/** A worker's decoded texts, by id. */
export class SharedTextCache {
  private readonly texts = new Map<number, string>();

  /** `job` (as it arrived) with its shared strings put back, each decoded once. */
  restore(job: unknown, shared: readonly SharedLeaf[]): void {
    for (const leaf of shared) put(job, leaf.path, this.text(leaf.text));
  }

  private text(t: SharedText): string {
    let s = this.texts.get(t.id);
    if (s === undefined) {
      s = t.chunks.map((c) => Buffer.from(c.bytes, 0, c.length).toString('utf8')).join('');
      this.texts.set(t.id, s);
      if (this.texts.size > DECODED_TEXTS) this.texts.delete(this.texts.keys().next().value!);
    }
    return s;
  }
}
