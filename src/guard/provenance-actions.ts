/**
 * Action provenance (docs/provenance.md): which of the session's own tools an untrusted text asks for. The request is
 * matched against the tools' own words (the tokens of a tool's name, its description and its argument names), not
 * against a list of phrases, so what counts is whether the text names what a tool does, in whatever sentence shape.
 * Tokens are folded (case, accents) and compared on their first four letters, so inflections and many cognates
 * across languages (transfer/transférer, access/accès, permanent) match too.
 */

export interface CatalogueTool {
  server: string;
  name: string;
  description?: string;
  args?: string[];
}

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
}

/** An index of a catalogue's tools by their tokens, built once per catalogue. */
export class ActionIndex {
  private readonly tools: Indexed[] = [];
  private readonly byToken = new Map<string, number[]>();

  constructor(catalogue: readonly CatalogueTool[]) {
    for (const tool of catalogue) {
      const name = new Set(actionTokens(tool.name));
      if (name.size === 0) continue;
      const extra = new Set([...actionTokens(tool.description ?? ''), ...(tool.args ?? []).flatMap(actionTokens)].filter((t) => !name.has(t)));
      const i = this.tools.length;
      // A short name must be named whole; a long one (AugustSmartLockGrantGuestAccess) by half its words.
      this.tools.push({ tool, name, extra, need: Math.max(Math.min(2, name.size), Math.ceil(name.size / 2)) });
      for (const t of new Set([...name, ...extra])) {
        let list = this.byToken.get(t);
        if (!list) this.byToken.set(t, (list = []));
        list.push(i);
      }
    }
  }

  /**
   * The tools some sentence of `text` asks for: it names at least `need` of the tool's name words, or one fewer
   * and two of its description's or arguments' words.
   */
  requested(text: string): CatalogueTool[] {
    const found = new Set<number>();
    for (const sentence of text.split(/[.!?;。！？\n]+|',\s*'/u)) {
      const tokens = new Set(actionTokens(sentence));
      if (tokens.size < 2) continue;
      const nameHits = new Map<number, number>();
      const extraHits = new Map<number, number>();
      for (const t of tokens) {
        for (const i of this.byToken.get(t) ?? []) {
          const x = this.tools[i]!;
          if (x.name.has(t)) nameHits.set(i, (nameHits.get(i) ?? 0) + 1);
          else extraHits.set(i, (extraHits.get(i) ?? 0) + 1);
        }
      }
      for (const [i, n] of nameHits) {
        const x = this.tools[i]!;
        if (n >= x.need || (n >= 1 && n >= x.need - 1 && (extraHits.get(i) ?? 0) >= 2)) found.add(i);
      }
    }
    return [...found].map((i) => this.tools[i]!.tool);
  }
}
