import { normalizeText, stem } from '../core/text/features.js';

/**
 * Word-sequence phrase matching for category detectors: a phrase matches when its words occur consecutively in
 * the text, after normalisation (case, accents, punctuation). A word matches a token when they are equal or
 * share a light stem ("flights" ~ "flight", "booking" ~ "book"); a word ending in `*` matches any token with
 * that prefix ("film*" ~ "filmography").
 */

interface WordPattern {
  exact: string;
  stem: string;
  prefix: boolean;
}

/** A compiled phrase. */
export interface Phrase {
  source: string;
  words: WordPattern[];
}

/** Compiles phrases once; phrases without any letter or digit are rejected (returned in `invalid`). */
export function compilePhrases(phrases: string[]): { phrases: Phrase[]; invalid: string[] } {
  const out: Phrase[] = [];
  const invalid: string[] = [];
  for (const source of phrases) {
    const words = source
      .split(/\s+/)
      .map((w) => ({ raw: w, prefix: w.endsWith('*') }))
      .map(({ raw, prefix }) => ({ norm: normalizeText(prefix ? raw.slice(0, -1) : raw), prefix }))
      .flatMap(({ norm, prefix }) => norm.split(' ').filter(Boolean).map((w, i, all) => ({ w, prefix: prefix && i === all.length - 1 })))
      .map(({ w, prefix }) => ({ exact: w, stem: stem(w), prefix }));
    if (words.length === 0) invalid.push(source);
    else out.push({ source, words });
  }
  return { phrases: out, invalid };
}

/** The normalised tokens of a text with their stems, ready for matching. */
export interface TokenizedText {
  tokens: string[];
  stems: string[];
}

export function tokenizeForPhrases(text: string): TokenizedText {
  const norm = normalizeText(text);
  const tokens = norm.length === 0 ? [] : norm.split(' ');
  return { tokens, stems: tokens.map(stem) };
}

function wordMatches(p: WordPattern, token: string, tokenStem: string): boolean {
  if (p.prefix) return token.startsWith(p.exact);
  return token === p.exact || tokenStem === p.stem;
}

/** The phrases occurring in the text, in phrase order, each once. */
export function matchPhrases(text: TokenizedText, phrases: Phrase[]): string[] {
  const hits: string[] = [];
  for (const ph of phrases) {
    const n = ph.words.length;
    for (let i = 0; i + n <= text.tokens.length; i++) {
      let ok = true;
      for (let k = 0; k < n && ok; k++) {
        ok = wordMatches(ph.words[k] as WordPattern, text.tokens[i + k] as string, text.stems[i + k] as string);
      }
      if (ok) {
        hits.push(ph.source);
        break;
      }
    }
  }
  return hits;
}
