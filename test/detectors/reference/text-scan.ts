/**
 * The plain form of the one-pass scanner (src/detectors/scan.ts), under the same names: no scan is ever made
 * (`scanOf` gives nothing), so every detector takes the path it took before the scanner — a hint automaton per
 * window, an expression per prefilter — and `TextScan` itself answers each question by the plain test it replaces.
 * test/detectors/text-scan.test.ts loads the detectors with this module in place of the scanner and requires the
 * same findings.
 */
import { holdsRun, type RunClass, type RunQuery } from '../../../src/core/text/runs.js';
import { findHints } from '../../../src/detectors/injection/phrase-family.js';
import type { LiteralGroup } from '../../../src/detectors/secrets/literals.js';

export const SCAN_MIN_CHARS = 4096;

export class TextScan {
  constructor(readonly text: string) {}
  hasRun(cls: RunClass, min: number, from = 0, to = this.text.length): boolean {
    return holdsRun(this.text.slice(from, to), cls, min);
  }
  runsIn(from: number, to: number): RunQuery {
    return { hasRun: (cls, min) => this.hasRun(cls, min, from, to) };
  }
  hintsIn(from: number, to: number): Uint8Array {
    return findHints(this.text.slice(from, to));
  }
  holds(group: LiteralGroup, to = this.text.length): boolean {
    return group.re.test(this.text.slice(0, to));
  }
  holdsIn(group: LiteralGroup, from: number, to: number): boolean {
    return group.re.test(this.text.slice(from, to));
  }
}

export function scanOf(_text: string): TextScan | undefined {
  return undefined;
}

export function scannedPrefix(_text: string): { scan: TextScan; to: number } | undefined {
  return undefined;
}
