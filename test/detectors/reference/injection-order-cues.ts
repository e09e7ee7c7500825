/**
 * The plain form of the directive signal's cue gate (src/detectors/injection/order-cues.ts), under the same names:
 * every unit of the text, as the signal read them before the gate (orders or not: `scoreSentence` decides). test/detectors/order-cues.test.ts loads the
 * scorer with this module in place of the gate and requires the same scores and findings.
 */
import { MAX_UNITS } from '../../../src/detectors/injection/sentences.js';
import { units, type Unit } from '../../../src/detectors/injection/sentences.js';

export const GATED_MAX = MAX_UNITS * 8;

export function orderUnits(text: string, _isModal: (line: string) => boolean, _isOrder: (u: Unit) => boolean): Unit[] {
  return units(text);
}
