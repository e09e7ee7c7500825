/**
 * The plain form of the answer_directive signal's cue gate (src/detectors/injection/answer-cues.ts), under the same
 * names: every sentence of the text, as the signal read them before the gate. test/detectors/answer-cues.test.ts
 * loads the scorer with this module in place of the gate and requires the same scores and findings.
 */
import { MAX_SENTENCES, sentences } from '../../../src/detectors/injection/sentences.js';

export const ANSWER_GATED_MAX = MAX_SENTENCES * 8;
export const MAX_SCORED = 400;

export function answerSentences(text: string): string[] {
  return sentences(text);
}
