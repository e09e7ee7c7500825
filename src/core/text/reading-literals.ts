/**
 * The literals whose occurrences answer some readings' tests of a long text (readings.ts, and the injection
 * detector's gates on them), as groups the one-pass scan finds with the rest (detectors/scan.ts): a window the scan
 * answers for asks where they occur instead of reading the window again. `re` is the expression each group stands
 * for (a text holds an occurrence exactly when `re` matches it; test/detectors/text-scan.test.ts checks it); the
 * literals are folded as `/i` without `u` folds when `caseSensitive` is false, and a literal written `\b…` must start
 * a word. A pure data module: the scanner and the readings both import it.
 */

/** A set of literals the scan finds, and the expression it answers for (structurally a secrets/literals.ts group). */
export interface ScanLiterals {
  readonly re: RegExp;
  readonly literals: readonly string[];
  readonly caseSensitive: boolean;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Where the rot13 gate's name can be (`\brot-?13`, its end's word boundary asked by the gate: encoded-payload.ts). */
export const ROT13_NAME: ScanLiterals = { re: /\brot-?13/i, literals: ['\\brot13', '\\brot-13'], caseSensitive: false };

/** Where a URL escape can start (the url gate counts `%XX`: encoded-payload.ts). */
export const PERCENT: ScanLiterals = { re: /%/, literals: ['%'], caseSensitive: true };

const SPACERS = ' -.*_';

/**
 * A letter between two of the characters that space letters out (`[ .*_-]`): the middle letter of every match of the
 * spaced row's test (readings.ts SPACED_HINT) has one of them on each side. Folded.
 */
export const SPACED_LETTER: ScanLiterals = {
  re: /[ .*_-][A-Za-z][ .*_-]/,
  literals: [...SPACERS].flatMap((a) => [...LETTERS].flatMap((l) => [...SPACERS].map((b) => `${a}${l}${b}`))),
  caseSensitive: false,
};

export const READING_LITERAL_GROUPS: readonly ScanLiterals[] = [ROT13_NAME, PERCENT, SPACED_LETTER];
