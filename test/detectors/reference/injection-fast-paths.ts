/**
 * The plain forms of the injection scorer's fast paths (src/detectors/injection/fast-paths.ts), under the same
 * names: lookbehind regexes and whole-string splits where the fast paths scan by hand, and no prefilter where they
 * rule texts out early. test/detectors/injection-fast-paths.test.ts compares each pair and scores every corpus
 * with the scorer's fast-path module swapped for this one.
 */
import { OPENER_WORDS, ORDER_OPENING_RE, ORDER_VERB_HEADS } from '../../../src/detectors/injection/lexicon.js';

/**
 * `text.split` at the lookbehind form of `re` (/[marks]\s+(?=[next])/g becomes /(?<=[marks])\s+(?=[next])/), branch
 * by branch when `re` is an alternation of such forms.
 */
export function splitAfterMarks(text: string, re: RegExp): string[] {
  const lookbehind = (branch: string): string => {
    const marks = branch.indexOf(']') + 1;
    return `(?<=${branch.slice(0, marks)})${branch.slice(marks)}`;
  };
  return text.split(new RegExp(re.source.split('|').map(lookbehind).join('|'), re.flags.replace('g', '')));
}

export function splitLines(text: string, escapedNewline: boolean, limit?: number): string[] {
  return text.split(escapedNewline ? /\r?\n|\\n/ : /\r?\n/, limit);
}

export function cellsOf(t: string, bars: boolean, csv: boolean): string[] {
  return t.split(bars ? /\s*\|\s*|(?<=^|,)"|"(?=,|$)|"\s*:\s*"|:\s+"/ : csv ? /,(?! )/ : /(?<=^|,)"|"(?=,|$)|"\s*:\s*"|:\s+"/);
}

export function sentencePieces(cell: string): string[] {
  return cell.split(/(?<=[.!?;])\s+(?=[\p{Lu}\p{Lt}\p{Lo}"'([])|(?<=[。！？｡।॥؟۔።፧։။།។᠃])/u);
}

export function openingBreaks(t: string, max: number): number[] {
  return [...t.matchAll(/[:;,，：]\s*|\s(?:[-–—]|->|=>)\s|(?<=[a-z0-9)] )(?=[A-Z][a-z])/g)].slice(0, max).map((m) => m.index + m[0].length);
}

export function opensWithOrderVerb(o: string): boolean {
  if (/^[\u3000-\u9fff]/u.test(o)) return ORDER_OPENING_RE.test(o);
  const words = o.slice(0, 120).toLowerCase().split(/[\s,:]+/, 8);
  for (const w of words) {
    if (ORDER_VERB_HEADS.has(w)) return ORDER_OPENING_RE.test(o);
    if (!OPENER_WORDS.has(w) && !/^\w{3,}ly$/.test(w) && w !== '') return false;
  }
  return false;
}

export const mayBeModal = (_s: string): boolean => true;
export const mentionsYou = (_s: string): boolean => true;
export const mayOfferCode = (_text: string): boolean => true;
export const mayHoldImage = (_text: string): boolean => true;
export const holdsSendTarget = (text: string): boolean => /[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{2,63}|https?:\/\/\S+|\bwww\.\S+/i.test(text);
export const mayHideUnicode = (_text: string): boolean => true;
export const mayHoldControls = (_text: string): boolean => true;
export const mayHoldTags = (_text: string): boolean => true;
export const mayHoldRecordField = (_text: string): boolean => true;
export const mayHoldMailSubject = (_text: string): boolean => true;
export const holdsQuote = (text: string): boolean => /["'“‘]/.test(text);
export const hinted = (_hintIds: readonly number[], _hints: Uint8Array): boolean => true;

/** A line is a table/CSV row, another structured line (comment, field, code), or prose. */
export function lineKind(t: string): 'row' | 'field' | 'prose' {
  if (/^\|.*\|$/.test(t) || /^[^\s,"]*(?:,[^,\n]*){3,}$/.test(t) || /^[^\s,"]+,(?! )/.test(t) || /^[^,\n]+(?:,(?! )[^,\n]*){2,}$/.test(t)) return 'row';
  if (/^[#/]|^"?[\w-]{1,30}"?\s*:\s|[{};]$|\|$|^\|/.test(t)) return 'field';
  // Code: assignments, calls, comparisons, or a keyword opening the line.
  if (/:=|==|!=|&&|\|\||=>|\w\(|^(?:return|if|else|elif|for|while|func|def|let|const|var|import|from|class|fn|pub|end)\b/.test(t)) return 'field';
  return 'prose';
}
