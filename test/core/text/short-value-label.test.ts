import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { distinctiveValues, LABEL } from '../../../src/core/text/short-values.js';
import { expectSameOnTexts } from '../../detectors/support/injection-texts.js';

/**
 * The short-value scan's label expression (`LABEL`: `password is …`, `IBAN: …`), with the white space between a label
 * and its value in one run after each part, matches what the former one (kept here) matched: on the corpora, the
 * red-team and dev texts, and generated texts of labels, white space, `is`, `:`, `=`, `-`, quotes and values.
 * The former one split a run of white space between its three runs every way before failing: `password` and 8 KB of
 * spaces took minutes.
 */
const FORMER = /\b(?:pass(?:word|wd|code|phrase)|pwd|pin(?:\s*(?:code|number))?|otp|one[- ]time (?:code|password)|secret(?:\s*key)?|api[ _-]?key|access[ _-]?(?:key|token)|auth(?:orization)?[ _-]?(?:code|token)|token|acc(?:ou)?n?t\.?(?:[ _-]?(?:number|num|no\.?|#|id))?|iban|bic|swift(?: code)?|routing(?:[ _-]?(?:number|no\.?))?|sort[ _-]?code|ssn|social security(?: number)?|(?:credit |debit )?card(?:[ _-]?(?:number|no\.?))?|cvv2?|cvc|security code|verification code|recovery code|member(?:ship)?[ _-]?(?:id|number|no\.?)|policy (?:number|no\.?)|licen[cs]e[ _-]?key|serial(?: number)?)\b\.?\s*(?:is|was|:|=|#|-|→)?\s*[:=]?\s*["'`]?([^\s"'`,;]{4,80})/giu;
const matches = (re: RegExp, t: string): Array<[number, string, string | undefined]> => [...t.matchAll(re)].map((m) => [m.index, m[0], m[1]]);

const PIECES = ['password', 'Passcode', 'pin', 'pin code', 'PIN number', 'secret key', 'api_key', 'token', 'account no.', 'acct #', 'IBAN', 'card number', 'cvv2', ' ', '  ', '\t', '\n', '\u00a0', 'is', ' is ', 'was', ':', '=', ':=', '#', '-', '→', '"', "'", '`', '.', ',', ';', 'hunter22', 'GB82WEST', '1234', 'ab', 'x'];
const generated = fc.array(fc.constantFrom(...PIECES), { maxLength: 24 }).map((p) => p.join(''));

describe("the short-value scan's label expression", () => {
  it('matches what the former expression matched', () => {
    const extra = ['my password is: "hunter22", the PIN - 4921 and IBAN = GB82WEST12345698765432'];
    const found = expectSameOnTexts((t) => matches(LABEL, t), (t) => matches(FORMER, t), generated, { hit: (t) => matches(FORMER, t).length > 0, extra });
    expect(found).toBeGreaterThan(1_000);
  });

  it('reads a label and a long run of white space once', () => {
    const text = `password${' '.repeat(200_000)}\n\tx; card number: 4111111111111111`;
    expect(matches(LABEL, text).map(([, , value]) => value)).toEqual(['4111111111111111']);
    expect(distinctiveValues(`password${' '.repeat(200_000)}`)).toEqual([]);
  });
});
