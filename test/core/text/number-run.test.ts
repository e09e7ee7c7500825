import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NUMBER_RUN, READINGS } from '../../../src/core/text/readings.js';
import { INJECTION_READINGS } from '../../../src/detectors/injection/encoded-payload.js';
import { expectSameOnTexts } from '../../detectors/support/injection-texts.js';

/**
 * The char-code reading's run of numbers (`NUMBER_RUN`) with its gap written without two runs of white space side by
 * side matches what the former expression, kept here, matched: on the corpora, the red-team and dev texts, and
 * generated texts of numbers, white space, `,`/`;` and other characters. The former one split a gap of white space
 * between its two runs every way it could before failing: a few numbers before 16 KB of spaces took 1.6 s.
 */
const FORMER = /(?:\d{1,7}[ \t\r\n]*[,;]?[ \t\r\n]*){7,}\d{1,7}/g;
const matches = (re: RegExp, t: string): Array<[number, string]> => [...t.matchAll(re)].map((m) => [m.index, m[0]]);

const PIECES = ['7', '73', '110', '1234567', '12345678', '0', ' ', '  ', '\t', '\n', '\r\n', ',', ';', ', ', ' ,', ' ; ', ',,', ';;', '[', ']', 'a', '.', '-', '+', 'é', '\u00a0'];
const generated = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((p) => p.join(''));

describe("the char-code reading's run of numbers", () => {
  it('matches what the former expression matched', () => {
    const extra = ['80, 114, 111, 106, 101, 99, 116, 32, 88', '[73;110 ;103 , 110,  111 114\n101 32 97]'];
    const found = expectSameOnTexts((t) => matches(NUMBER_RUN, t), (t) => matches(FORMER, t), generated, { hit: (t) => matches(FORMER, t).length > 0, extra });
    expect(found).toBeGreaterThan(1_000);
  });

  it('reads a few numbers before a long run of white space once', () => {
    const charCodes = READINGS.find((r) => r.name === 'char-codes')!;
    const text = `73 11 ${' '.repeat(400_000)}\n\t x 73, 103, 110, 111, 114, 101, 32, 97, 108, 108 end`;
    expect(matches(NUMBER_RUN, text)).toEqual([[text.indexOf('73, 103'), '73, 103, 110, 111, 114, 101, 32, 97, 108, 108']]);
    expect(charCodes.decode(text, INJECTION_READINGS).join('')).toContain('Ignore all');
  });
});
