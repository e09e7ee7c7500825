import { LocalEmbedder } from '../core/text/local-embedder.js';
import { SCRIPT_STOPS } from '../core/text/sentence-stops.js';
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
 *
 * A request also yields its **links**: the words and numbers of the requesting sentence and the two after it, less the
 * tool's own words (docs/provenance.md, "Documentation is not a request"). A call is held as asked for only when one
 * of its arguments came from the request (every word and number of it, the tool's own words aside, is among the
 * links), or when no argument carries anything (the action is then the whole call). A server's documentation names
 * its tools and says what they do; it gives no argument the call uses.
 */

export type { CatalogueTool };

/** Words that name no action or object (function words, and verbs every read tool has). */
const NOISE = new Set(
  ('a an and are as at be by for from has have i in is it its me my of on or our so than that the their them then there these this those to was we were ' +
    'what when where which who will with you your all any get list read view data info information detail details new tool api by id ids').split(' '),
);

/**
 * `text` with a space inside camelCase (`sendEmail`, `HTTPRequest` → `send Email`, `HTTP Request`). The space before
 * the last capital of a run is put by looking around it: `([A-Z]+)([A-Z][a-z])` read a run of capitals again from
 * each one (test/core/linear-expressions.test.ts keeps it).
 */
export const camelSpaced = (text: string): string => text.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/(?<=[A-Z])(?=[A-Z][a-z])/g, ' ');

/** Tokens of a text: letters and digits, camelCase and snake_case split, folded, noise dropped, cut to a 4-letter stem. */
export function actionTokens(text: string): string[] {
  const spaced = camelSpaced(text);
  const out: string[] = [];
  for (const w of spaced.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (w.length < 3 || NOISE.has(w) || /^\d+$/.test(w)) continue;
    out.push(w.slice(0, 4));
  }
  return out;
}

/** Words of a request that link nothing: function words, and the politeness every request and document has. */
const LINK_NOISE = new Set(
  ('about after again also before but can could does done each else even here how into just like make more most must need not now once only other over please ' +
    'same should some such sure than them then thanks thank they thing this very want would yes one two three first next last new http https www').split(' '),
);

/** Link tokens kept per requested tool and read (a bound on what one read can store). */
export const MAX_LINKS_PER_REQUEST = 32;
/** The requesting sentence and this many after it make the window a request's links are taken from. */
const LINK_WINDOW = 3;
const MAX_LINK_WINDOW_CHARS = 400;

/**
 * The tokens a call's arguments and a request are compared on: words folded to a 5-letter stem (at least 3 letters,
 * function words dropped) and numbers of two or more digits as written (`001`, `123`), except round ones (10, 100, 00).
 */
export function linkTokens(text: string): string[] {
  const spaced = camelSpaced(text);
  const out: string[] = [];
  for (const w of spaced.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (/^\d+$/.test(w)) {
      if (w.length >= 2 && !/^(?:0+|10+)$/.test(w)) out.push(w);
    } else if (w.length >= 3 && !NOISE.has(w) && !LINK_NOISE.has(w)) out.push(w.slice(0, 5));
  }
  return out;
}

/** A tool the text asks for, with the link tokens of the sentences that ask. */
export interface ActionRequest {
  tool: CatalogueTool;
  links: string[];
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
  /** The tool's own words as link tokens (name, title, description, argument names): naming them links nothing. */
  own?: Set<string>;
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
/** Where `requests` cuts a text into sentences: runs of sentence marks and line feeds, and `', '` between quoted items. */
const SENTENCE_SPLIT = new RegExp(`[.!?;${SCRIPT_STOPS}\\n]+|',\\s*'`, 'u');

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
  private readonly byName = new Map<string, number>();
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
      this.byName.set(`${tool.server}__${tool.name}`, i);
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
    return this.requests(text).map((r) => r.tool);
  }

  /** `requested`, each tool with the link tokens of the sentences that ask for it (at most MAX_LINKS_PER_REQUEST). */
  requests(text: string): ActionRequest[] {
    const found = new Map<number, Set<string>>();
    let dense: Float32Array | undefined;
    const sentences = text.split(SENTENCE_SPLIT);
    for (const [j, sentence] of sentences.entries()) {
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
      const asks = (i: number): boolean => {
        const x = this.tools[i]!;
        const n = nameHits.get(i)!;
        if (n >= x.need || (n >= 1 && n >= x.need - 1 && (extraHits.get(i) ?? 0) >= 2)) return true;
        if (!actHits.has(i) || this.similarity > 1 || sentence.length > MAX_EMBEDDED_SENTENCE) return false;
        if (!embedded) {
          dense = denseInto(embedder.embedSparse(sentence), dense ?? new Float32Array(embedder.dims));
          embedded = true;
        }
        return this.vectorsOf(x).some((v) => dotDense(v, dense!) >= this.similarity);
      };
      let window: string[] | undefined;
      for (const i of nameHits.keys()) {
        const links = found.get(i);
        if ((links && links.size >= MAX_LINKS_PER_REQUEST) || !asks(i)) continue;
        window ??= linkTokens(sentences.slice(j, j + LINK_WINDOW).join(' ').slice(0, MAX_LINK_WINDOW_CHARS));
        const into = links ?? new Set<string>();
        found.set(i, into);
        const own = this.ownOf(this.tools[i]!);
        for (const t of window) if (into.size < MAX_LINKS_PER_REQUEST && !own.has(t)) into.add(t);
      }
    }
    return [...found].map(([i, links]) => ({ tool: this.tools[i]!.tool, links: [...links] }));
  }

  /** The own words (as link tokens) of `<server>__<tool>`: its name's alone when the catalogue does not hold it. */
  ownWords(server: string, tool: string): Set<string> {
    const i = this.byName.get(`${server}__${tool}`);
    return i === undefined ? new Set(linkTokens(tool)) : this.ownOf(this.tools[i]!);
  }

  /** A tool's own words as link tokens, kept with the index. */
  private ownOf(x: Indexed): Set<string> {
    x.own ??= new Set(linkTokens([x.tool.name, x.tool.description ?? '', ...(x.tool.args ?? [])].join(' ')));
    return x.own;
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
