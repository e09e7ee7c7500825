import { SCRIPT_STOPS } from '../../core/text/sentence-stops.js';
import { lineSentences, MAX_SENTENCES, sentences } from './sentences.js';

/**
 * The sentences the `answer_directive` signal reads (answer-directive.ts), found only on the lines where one can
 * score. A sentence scores only when it holds "you" (every pattern about the reader's output needs it: NEEDS_YOU) or
 * opens, after an optional "please"/"kindly"/"now", with one of the verbs of PROCESS_THIS, RESPOND_IN and TRANSFORM
 * (each is anchored at the sentence's start). A sentence is a trimmed piece of a line that starts at the line's start
 * or after white space, so such a verb starts a word of the line, or follows the written-out "\n" that began it. One expression finds those cues in the text; only
 * the lines holding one are split (by `lineSentences`, the code `sentences` runs on every line), in text order, so
 * the signal reads every sentence that can score, in the order it did.
 *
 * Exact for texts up to `ANSWER_GATED_MAX` characters (a window): the MAX_SENTENCES cap cannot be reached there (a
 * sentence takes 8 characters and a break), so skipping a line cannot change which sentences the cap keeps. Longer
 * texts (record readings) are split in full. test/detectors/answer-cues.test.ts compares this with
 * test/detectors/reference/injection-answer-cues.ts (every sentence).
 */

export const ANSWER_GATED_MAX = MAX_SENTENCES * 8;

/** The verbs the three sentence-start patterns of answer-directive.ts open with (stems where they vary). */
const START_VERBS = [
  // PROCESS_THIS
  'summari', 'translate', 'rewrite', 'rephrase', 'classify', 'rate', 'describe', 'explain', 'analy', 'paraphrase', 'shorten', 'expand',
  // RESPOND_IN
  'respond', 'reply', 'answer', 'write', 'speak', 'talk', 'act', 'behave', 'pretend', 'roleplay', 'role-play', 'encode', 'encrypt', 'reverse', 'scramble',
  // TRANSFORM
  'replace', 'swap', 'substitute', 'convert', 'shuffle', 'misspell', 'capitali', 'anagram', 'rearrange', 'jumble', 'group', 'combine', 'interleave', 'insert', 'remove', 'omit', 'spell',
];
/**
 * "you" anywhere (as mentionsYou reads it), or a start verb at a word's start or right after a written-out "\n" (a
 * line break there, whose "n" is a word character); case-insensitive like the patterns.
 */
const VERB = `(?:${START_VERBS.join('|')})`;
const CUE = new RegExp(`you|\\b${VERB}|\\\\n${VERB}`, 'gi');

/** Sentences longer than this score nothing (answer-directive.ts `answerSentenceFinding`). */
export const MAX_SCORED = 400;

const SCRIPT_STOP = new RegExp(`[${SCRIPT_STOPS}]`);

/**
 * Whether `text` is one line (no line feed) without a sentence mark (`.`, `!`, `?`, SCRIPT_STOPS: where `lineSentences` splits) and
 * over MAX_SCORED characters once trimmed: its one sentence cannot score, so no cue need be searched for (a long
 * single-line read, a base64 blob).
 */
function isOneLongSentence(text: string): boolean {
  return text.length > MAX_SCORED && !text.includes('\n') && !text.includes('.') && !text.includes('!') && !text.includes('?') && !SCRIPT_STOP.test(text) && text.trim().length > MAX_SCORED;
}

/** The sentences of `text` on lines holding a cue (every sentence of a text over ANSWER_GATED_MAX). */
export function answerSentences(text: string): string[] {
  if (text.length > ANSWER_GATED_MAX) return sentences(text);
  // The lines of splitLines(text, true): split at \r?\n, and at "\n" written out when the text holds one.
  const escaped = text.includes('\\n');
  if (!escaped && isOneLongSentence(text)) return [];
  const out: string[] = [];
  CUE.lastIndex = 0;
  for (let m = CUE.exec(text); m !== null; m = CUE.exec(text)) {
    // Past a written-out "\n" (a line break), no cue holds a line feed or a backslash: it lies inside one line.
    const at = m[0].charCodeAt(0) === 92 ? m.index + 2 : m.index;
    let start = text.lastIndexOf('\n', at - 1) + 1;
    if (escaped) {
      const e = text.lastIndexOf('\\n', at - 2);
      if (e !== -1 && e + 2 > start) start = e + 2;
    }
    let end = text.indexOf('\n', at);
    if (end === -1) end = text.length;
    if (escaped) {
      const e = text.indexOf('\\n', at);
      if (e !== -1 && e < end) end = e;
    }
    // The line feed takes the carriage return before it.
    const line = text.charCodeAt(end) === 10 && text.charCodeAt(end - 1) === 13 && end - 1 >= start ? text.slice(start, end - 1) : text.slice(start, end);
    lineSentences(line, out);
    CUE.lastIndex = end;
  }
  return out;
}
