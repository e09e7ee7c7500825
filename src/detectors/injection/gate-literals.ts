import type { LiteralGroup } from '../secrets/literals.js';
import { MODAL_WORDS, START_VERBS } from './lexicon.js';

/**
 * The injection scorer's whole-window gates that are literal searches, as groups the one-pass scan finds together
 * with the hints (detectors/scan.ts): a window the scan answers for asks it instead of reading the window again.
 * Each expression matches a text exactly when one of its literals occurs in it (case folded as `/i` without `u` folds:
 * ASCII letters only, as the scan's automaton does); test/detectors/text-scan.test.ts checks each group against its
 * expression. A pure data module: the scanner and the gates both import it.
 */

/** The nouns every offer of code names (code-payload.ts's CODE_OFFER: `mayOfferCode`). */
export const CODE_NOUNS: LiteralGroup = { re: /code|script|snippet|command/i, literals: ['code', 'script', 'snippet', 'command'], caseSensitive: false };
/** The word every mail subject header holds (records.ts's MAIL_SUBJECT: `mayHoldMailSubject`). */
export const SUBJECT_WORD: LiteralGroup = { re: /subject/i, literals: ['subject'], caseSensitive: false };

/** Each control character a `control_sequence` finding needs (control-sequence.ts: `mayHoldControls`). */
const CONTROL_CODES = [...Array(0x20).keys(), ...Array.from({ length: 0x21 }, (_, k) => 0x7f + k)].filter((c) => c !== 9 && c !== 10 && c !== 12 && c !== 13);
export const CONTROL_CHARS: LiteralGroup = { re: /[\u0000-\u0008\u000B\u000E-\u001F\u007F-\u009F]/, literals: CONTROL_CODES.map((c) => String.fromCharCode(c)), caseSensitive: true };

/** The words every modal pattern of the `directive` signal holds (order-cues.ts reads the lines holding one). */
export const MODAL_WORD_GROUP: LiteralGroup = { re: new RegExp(MODAL_WORDS.join('|'), 'i'), literals: MODAL_WORDS, caseSensitive: false };
if (MODAL_WORDS.some((w) => /[^a-z ]/.test(w))) throw new Error('injection: a modal word is not a plain lower-case word');

/**
 * The cues of `answer_directive` (answer-cues.ts): "you" anywhere (as mentionsYou reads it), or a start verb at a
 * word's start or right after a written-out "\n" (a line break there, whose "n" is a word character).
 */
const START_VERB = `(?:${START_VERBS.join('|')})`;
export const ANSWER_CUE_GROUP: LiteralGroup = {
  re: new RegExp(`you|\\b${START_VERB}|\\\\n${START_VERB}`, 'i'),
  literals: ['you', ...START_VERBS.map((v) => `\\b${v}`), ...START_VERBS.map((v) => `\\n${v}`)],
  caseSensitive: false,
};
if (START_VERBS.some((v) => /[^a-z-]/.test(v))) throw new Error('injection: a start verb is not a plain lower-case word');

export const GATE_LITERAL_GROUPS: readonly LiteralGroup[] = [CODE_NOUNS, SUBJECT_WORD, CONTROL_CHARS, MODAL_WORD_GROUP, ANSWER_CUE_GROUP];

/** Whether a window holds one of a group's literals, answered by the scan of the text it is part of. */
export type HoldsLiteral = (group: LiteralGroup) => boolean;
