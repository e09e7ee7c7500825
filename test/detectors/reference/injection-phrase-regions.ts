/**
 * The plain form of the phrase patterns' bounded regions (src/detectors/injection/phrase-regions.ts), under the same
 * names: every pattern is tried on the whole text. test/detectors/phrase-regions.test.ts loads the scorer with this
 * module in place of the regions and requires the same scores and findings.
 */
import type { HintHits, PatternReach } from '../../../src/detectors/injection/phrase-regions.js';

export type { HintHits, PatternReach };

export const reachOf = (_re: RegExp): PatternReach | undefined => undefined;

export function patternMatches(re: RegExp, _isHint: Uint8Array, text: string, _hits?: HintHits): boolean {
  return re.test(text);
}
