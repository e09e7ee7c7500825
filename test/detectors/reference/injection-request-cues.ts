/**
 * The plain form of the exfiltration request's sentence gate (src/detectors/injection/request-cues.ts), under the
 * same names: every sentence of the text, as the request read them before the gate. test/detectors/request-cues.test.ts
 * loads the scorer with this module in place of the gate and requires the same scores and findings.
 */

export const MAX_SENTENCE = 600;

/** Sentences: a stop followed by space (an address's dots are not stops), or a line break. */
export function requestSentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+|\n+/);
}
