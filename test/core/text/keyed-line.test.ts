import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isKeyedLine, keyBeforeValue } from '../../../src/core/text/keyed-line.js';
import { steeringValues } from '../../../src/core/text/steering-values.js';
import { expectSameOnTexts } from '../../detectors/support/injection-texts.js';

/**
 * `isKeyedLine` says what the former expression (kept here) said of every line: of the corpora, the red-team and dev
 * texts, and 20,000 generated lines of white space, `-`, quotes, key characters, `:` and values. The former one split
 * a run of white space between three of its parts every way before failing: a line of 16 KB of spaces took 5 s.
 */
const FORMER = /^\s*(?:-\s+)?['"]?[\w .'-]{1,40}['"]?\s*:\s/;
const lines = (t: string): boolean[] => t.split('\n').map((l) => isKeyedLine(l));
const formerLines = (t: string): boolean[] => t.split('\n').map((l) => FORMER.test(l));

const PIECES = [' ', '  ', '\t', '\r', '\u00a0', '-', '- ', "'", '"', 'key', 'a', 'x_1', '.', "o'k", ':', ': ', ':x', 'value', '/', '#', 'k'.repeat(20), ' '.repeat(20), '\t'.repeat(20)];
const generated = fc.array(fc.constantFrom(...PIECES), { maxLength: 16 }).map((p) => p.join(''));

const FORMER_KEY = /['"]?([\w .-]{1,40}?)['"]?\s*[:=]\s*$/;
const KEY_PIECES = [' ', '  ', '\t', '\u00a0', '-', "'", '"', 'key', 'a', 'x_1', '.', ':', '=', ': ', ' = ', 'value', '/', '#', ',', 'k'.repeat(20), ' '.repeat(20), '\t'.repeat(20)];
const lefts = fc.array(fc.constantFrom(...KEY_PIECES), { maxLength: 16 }).map((p) => p.join(''));

describe('a keyed line', () => {
  it('is what the former expression matched', () => {
    const found = expectSameOnTexts(lines, formerLines, generated, { hit: (t) => FORMER.test(t), extra: ['   : x', '- \t "a b" \t: y', "'it''s':\tz", '-: x', '- - k: v'] });
    expect(found).toBeGreaterThan(1_000);
  });

  it("and a value's key are what the former expressions found", () => {
    const found = expectSameOnTexts(keyBeforeValue, (t) => FORMER_KEY.exec(t)?.[1], lefts, { hit: (t) => FORMER_KEY.test(t), extra: ['"to" = ', 'a b c d e f g h i j k l m n o p q r s t u v w x y z 1 2 3 4 5 6 7 8 9:  ', ' \t:', '\t :'] });
    expect(found).toBeGreaterThan(1_000);
  });

  it('reads a long line of white space once', () => {
    expect(keyBeforeValue(`x${' '.repeat(200_000)}!:  `)).toBeUndefined();
    expect(keyBeforeValue(`{"a": 1, ${' '.repeat(200_000)}"name"${'\t'.repeat(200_000)}:  `)).toBe('name');
    expect(isKeyedLine(`${' '.repeat(200_000)}!`)).toBe(false);
    expect(isKeyedLine(`- ${'\t'.repeat(200_000)}key:\tv`)).toBe(true);
    expect(steeringValues(`${' '.repeat(200_000)}!\nuser@example.com`, 10).values).toHaveLength(1);
  });
});
