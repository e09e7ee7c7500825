import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unwrapBase64Lines } from '../../../src/core/text/readings.js';
import { loadCorpus } from '../../fixtures/injection/corpus.js';

/**
 * The base64 and hex readings join line-wrapped base64 (`unwrapBase64Lines`) with an expression whose matches start
 * only where a run of base64 characters starts. The former expression, kept here, was tried from every place inside
 * a run: a long run that no line break follows was read to its end from each of them (quadratic; an 80 KB run took
 * 15 s in the secrets masker). Both must join the same lines of every text.
 */
const former = (text: string): string => text.replace(/([A-Za-z0-9+/_=-]{40,})\r?\n[ \t]*(?=[A-Za-z0-9+/_-])/g, '$1');

const B64 = 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODkrLw==';
const run = (n: number, from: number): string => Array.from({ length: n }, (_, i) => 'Az09+/_-='[(i * 7 + from) % 9]).join('');
/** Pieces that start, end and break runs: run characters (`=` too, which no run after a break may start with), runs around 40, line breaks, indentation and other characters. */
const piece = fc.oneof(
  fc.constantFrom('A', 'z', '0', '+', '/', '_', '-', '=', '==', '\n', '\r\n', '\r', '\n\n', ' ', '\t', '\n  ', '\n\t', '.', 'é', '"', '\\n', B64, B64.slice(0, 40)),
  fc.tuple(fc.integer({ min: 36, max: 44 }), fc.nat(8)).map(([n, from]) => run(n, from)),
  fc.tuple(fc.integer({ min: 45, max: 400 }), fc.nat(8)).map(([n, from]) => run(n, from)),
);

describe('unwrapBase64Lines joins the lines the former expression joined', () => {
  it('on generated texts of runs, line breaks and indentation', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(unwrapBase64Lines(text)).toBe(former(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('on the injection corpus, alone and with base64 wrapped at 64 and 76 columns inside', () => {
    const wrapped = (width: number, eol: string, indent: string) => (B64.repeat(6).match(new RegExp(`.{1,${width}}`, 'g')) ?? []).join(`${eol}${indent}`);
    const inserts = [wrapped(64, '\n', ''), wrapped(76, '\r\n', '  '), wrapped(40, '\n', '\t'), `${run(5000, 3)}\n${run(41, 1)}`];
    for (const [n, { text }] of loadCorpus('tuning').entries()) {
      const insert = inserts[n % inserts.length]!;
      for (const t of [text, `${text.slice(0, text.length >> 1)}${insert}${text.slice(text.length >> 1)}`, `${insert}\n${text}`]) expect(unwrapBase64Lines(t)).toBe(former(t));
    }
  });

  it('joins a wrapped line before a 1 MB run that no line break follows (the former expression read the run from each of its places)', () => {
    const long = run(1_000_000, 0);
    const text = `${'Q'.repeat(41)}\nB ${long} end`;
    expect(unwrapBase64Lines(text)).toBe(`${'Q'.repeat(41)}B ${long} end`);
    // A run too short to be a wrapped line, and one that is not followed by a run character, are left as they are.
    expect(unwrapBase64Lines(`${'Q'.repeat(39)}\nB ${long}`)).toBe(`${'Q'.repeat(39)}\nB ${long}`);
    expect(unwrapBase64Lines(`${long}\n.`)).toBe(`${long}\n.`);
  });
});
