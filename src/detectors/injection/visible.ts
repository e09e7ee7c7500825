import { foldConfusables } from './confusables.js';
import { holdsQuote } from './fast-paths.js';
import { decodeTagChars, stripInvisible } from './hidden-unicode.js';

/**
 * The text as a reader takes it, which the phrase and sentence signals read: invisible characters removed,
 * look-alike letters folded, quoted discussion of attack phrases neutralised, smuggled tag text appended.
 */
export function visibleText(text: string): string {
  const tagText = decodeTagChars(text);
  return unquoteDiscussion(foldConfusables(stripInvisible(text))) + (tagText ? `\n${tagText}` : '');
}

/** Words that mark a sentence as talking *about* a phrase it quotes (reports, articles, awareness mails). */
const REPORTING =
  /\b(?:such as|like|for example|for instance|e\.g\.|phrases?|wording|string|text|says?|said|saying|wrote|writes?|typing|typed|attacks?|attackers?|injections?|injected|malicious|poisoned|tested|category|example|payloads?|someone|somebody|put|posted|hid|hidden|embedded|contained|containing|included)\b/i;
const QUOTED_SPAN = /(?<=^|[\s(:])(?:"[^"\n]{3,200}"|“[^”\n]{3,200}”|'[^'\n]{3,200}'|‘[^’\n]{3,200}’)(?=[\s.,;:)!?]|$)/g;

/**
 * Quoted discussion neutralised: in a line that reports on a phrase ("attackers hide phrases such as \"ignore
 * previous instructions\""), the quoted span is replaced by a placeholder, so phrase signals do not read a
 * quotation as an order. A quote without such a reporting word (a vocative, an order) is left as it is.
 */
export function unquoteDiscussion(text: string): string {
  if (!holdsQuote(text)) return text;
  return text
    .split('\n')
    .map((line) => {
      // Field names ("text:", "body:") are carrier syntax, not reporting words.
      const prose = line.replace(QUOTED_SPAN, ' ').replace(/(?:^|[\s,{])"?[\w-]{1,30}"?\s*:/g, ' ');
      // JSON keeps its strings in quotes: those are data, not quotations.
      if (line.length > 2000 || /"\s*:\s*["{[\d]/.test(line) || !REPORTING.test(prose)) return line;
      return line.replace(QUOTED_SPAN, '"…"');
    })
    .join('\n');
}
