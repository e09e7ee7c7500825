import { LocalEmbedder } from '../core/text/local-embedder.js';
import type { SparseVector } from '../core/text/types.js';
import { nameWords, type CatalogueTool } from './capabilities.js';
import { consequentialByName } from './consequential.js';
import { DEFAULT_ACTION_SIMILARITY } from './options.js';

/**
 * Action provenance (docs/provenance.md): which of the session's own tools an untrusted text asks for. The request is
 * matched against the tools' own words (the tokens of a tool's name, its description and its argument names), not
 * against a list of phrases, so what counts is whether the text names what a tool does, in whatever sentence shape.
 * Tokens are folded (case, accents) and compared on their first four letters, so inflections and many cognates
 * across languages (transfer/transférer, access/accès, permanent) match too.
 *
 * A second signal stands beside the stems: a sentence that names the verb of a tool's name (what it does) but fewer
 * of its name words than the stems need is still a request for it when the local embedder (word and character
 * n-grams, no model) finds the sentence as a whole close to the tool's own words ("Update my genetic data …" and
 * `The23andMeUpdateData`). A sentence that only mentions what the tool acts on ("emails arrive late") is not.
 */

export type { CatalogueTool };

/** Words that name no action or object (function words, and verbs every read tool has). */
const NOISE = new Set(
  ('a an and are as at be by for from has have i in is it its me my of on or our so than that the their them then there these this those to was we were ' +
    'what when where which who will with you your all any get list read view data info information detail details new tool api by id ids').split(' '),
);

/** Tokens of a text: letters and digits, camelCase and snake_case split, folded, noise dropped, cut to a 4-letter stem. */
export function actionTokens(text: string): string[] {
  const spaced = text.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  const out: string[] = [];
  for (const w of spaced.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (w.length < 3 || NOISE.has(w) || /^\d+$/.test(w)) continue;
    out.push(w.slice(0, 4));
  }
  return out;
}

interface Indexed {
  tool: CatalogueTool;
  name: Set<string>;
  extra: Set<string>;
  need: number;
  /** Stems of the name words that say what the tool does (`update`, `grant`, `withdraw`: consequential.ts's verbs). */
  acts: Set<string>;
  /** The tool's words embedded (name alone; name, title and description), made on first use. */
  vectors?: SparseVector[];
}

export interface ActionIndexOptions {
  /** Cosine of the embedder signal (DEFAULT_ACTION_SIMILARITY); above 1, only the stems match. */
  similarity?: number;
}

/** One embedder for every index: it is deterministic and holds no state between texts. */
const embedder = new LocalEmbedder();

/**
 * Sentences longer than this are not embedded: a request is a sentence, and a long line (a table, a blob) would only
 * dilute the cosine while costing a comparison with every tool that shares its verb.
 */
const MAX_EMBEDDED_SENTENCE = 500;

/** `v` written into `into` (zeroed first), which is returned. */
function denseInto(v: SparseVector, into: Float32Array): Float32Array {
  into.fill(0);
  for (let k = 0; k < v.indices.length; k++) into[v.indices[k]!] = v.values[k]!;
  return into;
}

function dotDense(a: SparseVector, dense: Float32Array): number {
  let s = 0;
  for (let k = 0; k < a.indices.length; k++) s += a.values[k]! * dense[a.indices[k]!]!;
  return s;
}

/** An index of a catalogue's tools by their tokens, built once per catalogue. */
export class ActionIndex {
  private readonly tools: Indexed[] = [];
  private readonly byToken = new Map<string, number[]>();
  private readonly similarity: number;

  constructor(catalogue: readonly CatalogueTool[], options: ActionIndexOptions = {}) {
    this.similarity = options.similarity ?? DEFAULT_ACTION_SIMILARITY;
    for (const tool of catalogue) {
      const name = new Set(actionTokens(tool.name));
      if (name.size === 0) continue;
      const extra = new Set([...actionTokens(tool.description ?? ''), ...(tool.args ?? []).flatMap(actionTokens)].filter((t) => !name.has(t)));
      const i = this.tools.length;
      // A short name must be named whole; a long one (AugustSmartLockGrantGuestAccess) by half its words.
      const acts = new Set(nameWords(tool.name).filter((w) => consequentialByName(w).length > 0).flatMap(actionTokens));
      this.tools.push({ tool, name, extra, acts, need: Math.max(Math.min(2, name.size), Math.ceil(name.size / 2)) });
      for (const t of new Set([...name, ...extra])) {
        let list = this.byToken.get(t);
        if (!list) this.byToken.set(t, (list = []));
        list.push(i);
      }
    }
  }

  /**
   * The tools some sentence of `text` asks for: it names at least `need` of the tool's name words, or one fewer
   * and two of its description's or arguments' words, or its verb and the embedder finds it close to the tool.
   */
  requested(text: string): CatalogueTool[] {
    const found = new Set<number>();
    let dense: Float32Array | undefined;
    for (const sentence of text.split(/[.!?;。！？\n]+|',\s*'/u)) {
      const tokens = new Set(actionTokens(sentence));
      if (tokens.size < 2) continue;
      const nameHits = new Map<number, number>();
      const extraHits = new Map<number, number>();
      const actHits = new Set<number>();
      for (const t of tokens) {
        for (const i of this.byToken.get(t) ?? []) {
          const x = this.tools[i]!;
          if (x.acts.has(t)) actHits.add(i);
          if (x.name.has(t)) nameHits.set(i, (nameHits.get(i) ?? 0) + 1);
          else extraHits.set(i, (extraHits.get(i) ?? 0) + 1);
        }
      }
      // The sentence dense, once: each tool's sparse vector is then dotted with it in the time of its own entries.
      let embedded = false;
      for (const [i, n] of nameHits) {
        if (found.has(i)) continue;
        const x = this.tools[i]!;
        if (n >= x.need || (n >= 1 && n >= x.need - 1 && (extraHits.get(i) ?? 0) >= 2)) found.add(i);
        else if (actHits.has(i) && this.similarity <= 1 && sentence.length <= MAX_EMBEDDED_SENTENCE) {
          if (!embedded) {
            dense = denseInto(embedder.embedSparse(sentence), dense ?? new Float32Array(embedder.dims));
            embedded = true;
          }
          if (this.vectorsOf(x).some((v) => dotDense(v, dense!) >= this.similarity)) found.add(i);
        }
      }
    }
    return [...found].map((i) => this.tools[i]!.tool);
  }

  /** A tool's words embedded, kept with the index (one index per catalogue): its name, and its name with its description. */
  private vectorsOf(x: Indexed): SparseVector[] {
    if (!x.vectors) {
      const name = nameWords(x.tool.name).join(' ');
      x.vectors = [embedder.embedSparse(name), ...(x.tool.description ? [embedder.embedSparse(`${name}. ${x.tool.description}`)] : [])];
    }
    return x.vectors;
  }
}
