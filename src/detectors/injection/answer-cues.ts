import { SCRIPT_STOPS } from '../../core/text/sentence-stops.js';
import { ANSWER_CUE_GROUP } from './gate-literals.js';
import { lineSentences, MAX_SENTENCES, sentences } from './sentences.js';

/**
 * The sentences the `answer_directive` signal reads (answer-directive.ts), found only on the lines where one can
 * score. A sentence scores only when it holds "you" (every pattern about the reader's output needs it: NEEDS_YOU) or
 * opens, after an optional "please"/"kindly"/"now", with one of the verbs of PROCESS_THIS, RESPOND_IN and TRANSFORM
 * (each is anchored at the sentence's start). A sentence is a trimmed piece of a line that starts at the line's start
 * or after white space, so such a verb starts a word of the line, or follows the written-out "\n" that began it. The one
 * scan's literals (gate-literals.ts ANSWER_CUE_GROUP) find those cues in a window it answers for, one expression (CUE)
 * in any other text; only the lines holding one are split (by `lineSentences`, the code `sentences` runs on every
 * line), in text order, so the signal reads every sentence that can score, in the order it did.
 *
 * Exact for texts up to `ANSWER_GATED_MAX` characters (a window): the MAX_SENTENCES cap cannot be reached there (a
 * sentence takes 8 characters and a break), so skipping a line cannot change which sentences the cap keeps. Longer
 * texts (record readings) are split in full. test/detectors/answer-cues.test.ts compares this with
 * test/detectors/reference/injection-answer-cues.ts (every sentence).
 */

export const ANSWER_GATED_MAX = MAX_SENTENCES * 8;

/** The cues (gate-literals.ts ANSWER_CUE_GROUP), searched for in a text the one scan does not answer for. */
const CUE = new RegExp(ANSWER_CUE_GROUP.re.source, 'gi');

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

/**
 * Calls `visit` with the start of each occurrence of a cue (CUE's alternatives, as literals) in the text, in text
 * order of their ends: what the one scan found (gate-literals.ts ANSWER_CUE_GROUP), instead of the text's own search.
 */
export type AnswerCueStarts = (visit: (start: number) => void) => void;

/** The sentences of `text` on lines holding a cue (every sentence of a text over ANSWER_GATED_MAX). */
export function answerSentences(text: string, cues?: AnswerCueStarts): string[] {
  if (text.length > ANSWER_GATED_MAX) return sentences(text);
  // The lines of splitLines(text, true): split at \r?\n, and at "\n" written out when the text holds one.
  const escaped = text.includes('\\n');
  if (!escaped && isOneLongSentence(text)) return [];
  const out: string[] = [];
  /** Reads the sentences of the line holding `at`; returns where that line ends. */
  const readLine = (at: number): number => {
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
    return end;
  };
  // Past a written-out "\n" (a line break), no cue holds a line feed or a backslash: it lies inside one line. The
  // lines are read in text order, each once.
  if (cues !== undefined) {
    let next = 0;
    cues((s) => {
      const at = text.charCodeAt(s) === 92 ? s + 2 : s;
      if (at >= next) next = readLine(at);
    });
    return out;
  }
  CUE.lastIndex = 0;
  for (let m = CUE.exec(text); m !== null; m = CUE.exec(text)) CUE.lastIndex = readLine(m[0].charCodeAt(0) === 92 ? m.index + 2 : m.index);
  return out;
}
