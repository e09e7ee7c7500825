import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFingerprinter, normaliseForFingerprint, winnow } from '../../src/core/text/fingerprint.js';
import { normalisedCodes } from '../../src/core/text/letters.js';
import { isWordSeparator } from '../../src/core/text/short-value-scan.js';
import { distinctiveValues, outgoingPieces, shortLines } from '../../src/core/text/short-values.js';
import * as ref from './reference/fingerprint.js';
import * as refValues from './reference/short-values.js';
import * as refUnwrap from './reference/unwrap.js';
import * as refForms from './reference/forms.js';
import { decodeWhole, isJsSpace, mayHaveReadings, privateForms, reverseCodePoints, reverseWords, rot13, unwrapViews } from '../../src/core/text/readings.js';

/**
 * The fast paths of data-flow recording (one pass over char codes, winnowing with a ring of hashes, no intermediate
 * strings) against the reference computation they replace (test/dataflow/reference/, the code as it was): the same
 * normalised text, the same selected k-grams and the same fingerprints, for random texts and the edge cases.
 */

const KEY = Buffer.alloc(32, 7);

/** Characters that normalisation or case treat specially: ligatures, full width, final sigma, long s, Kelvin, dotted I, combining marks, astral letters and symbols, lone surrogates. */
const TRICKY = ['ﬁ', 'Ｆ', 'ＵＬＬ', 'Σ', 'ΑΣ ', 'ς', 'ſ', 'K', 'Å', 'İ', 'ı', 'ß', 'e\u0301', '½', '²', '①', '㎏', '𝐀', '𝒜', '𠀀', '😀', '\ud800', '\udc00', '\u00a0', '\u200b', 'Ⅻ', 'ǅ', '٣', '߀'];
const unit = fc.oneof(
  fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 ,.-_:;\n\t'.split('')),
  fc.constantFrom(...TRICKY),
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
);
const anyText = fc.array(unit, { maxLength: 300 }).map((u) => u.join(''));
const asciiText = fc.string({ unit: 'binary-ascii', maxLength: 400 });
const WORDS = ['merger', 'Borealis', 'price', 'board', '41', 'million', 'March', 'the', 'ÜBER', 'straße', '—', '\n', 'ΟΔΟΣ', 'ﬁnance', 'K9'];
const prose = fc.array(fc.constantFrom(...WORDS), { maxLength: 400 }).map((w) => w.join(' '));
/** Few distinct k-grams, so equal choosing hashes meet in a window (ties: the rightmost wins). */
const repetitive = fc.tuple(fc.array(fc.constantFrom('a', 'b', 'A', '1', ' '), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 60 }), fc.array(fc.constantFrom('a', 'b'), { maxLength: 20 })).map(([p, times, tail]) => p.join('').repeat(times) + tail.join(''));
const options = fc.record({ k: fc.integer({ min: 8, max: 40 }), window: fc.integer({ min: 1, max: 24 }) });

const unitsOf = (s: string) => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i));

describe('fast normalisation equals the reference', () => {
  it('normalisedCodes: the code units of the normalised string, ASCII or not', () => {
    for (const arb of [anyText, asciiText, prose]) {
      fc.assert(
        fc.property(arb, (t) => {
          const want = ref.normaliseForFingerprint(t);
          expect([...normalisedCodes(t)]).toEqual(unitsOf(want));
          expect(normaliseForFingerprint(t)).toBe(want);
        }),
        { numRuns: 400 },
      );
    }
  });

  it('every BMP character, alone and between letters', () => {
    const all: string[] = [];
    for (let c = 0; c < 0x10000; c++) all.push(String.fromCharCode(c));
    for (let at = 0; at < all.length; at += 512) {
      const chunk = all.slice(at, at + 512);
      for (const t of [chunk.join(''), chunk.join('a'), `x${chunk.join('Σ ')}`]) expect([...normalisedCodes(t)]).toEqual(unitsOf(ref.normaliseForFingerprint(t)));
    }
  });
});

describe('fast fingerprints equal the reference', () => {
  it('winnow selects the same k-grams', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, prose, repetitive), options, fc.integer(), (t, opts, seed) => {
        const s = ref.normaliseForFingerprint(t);
        expect(winnow(s, opts, seed)).toEqual(ref.winnow(s, opts, seed));
      }),
      { numRuns: 500 },
    );
  });

  it('of, ofNormalised and ofBounded give the same fingerprints, at the bounds of k, window and max', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, asciiText, prose, repetitive), options, fc.integer({ min: 1, max: 60 }), (t, opts, max) => {
        const fast = createFingerprinter(KEY, opts);
        const slow = ref.createFingerprinter(KEY, opts);
        expect(fast.of(t)).toEqual(slow.of(t));
        expect(fast.ofNormalised(ref.normaliseForFingerprint(t))).toEqual(slow.ofNormalised(ref.normaliseForFingerprint(t)));
        const into = new Set(['x']);
        fast.addNormalised(ref.normaliseForFingerprint(t), into);
        expect([...into]).toEqual([...new Set(['x', ...slow.ofNormalised(ref.normaliseForFingerprint(t))])]);
        expect(fast.ofBounded(t, max)).toEqual(slow.ofBounded(t, max));
      }),
      { numRuns: 500 },
    );
  });

  it('texts whose normalised length is around k and k + window', () => {
    const opts = { k: 20, window: 12 };
    const fast = createFingerprinter(KEY, opts);
    const slow = ref.createFingerprinter(KEY, opts);
    for (let len = 0; len <= 40; len++) {
      for (const t of ['a'.repeat(len), 'ab1'.repeat(len).slice(0, len), Array.from({ length: len }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join(' ')]) {
        for (const max of [1, 2, 3, 4096]) expect(fast.ofBounded(t, max)).toEqual(slow.ofBounded(t, max));
        expect(fast.of(t)).toEqual(slow.of(t));
      }
    }
  });

  it('a long read (prose, code, tables, unicode) keeps the same sample of 4096', () => {
    let seed = 5;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const lines = ['The quarterly review covers the harbour project.', 'function total(rows) { return rows.reduce((s, r) => s + r.amount, 0); }', '| north | Q3 | 41,200 | 12.5% |', 'Überweisung an ΟΔΥΣΣΕΑΣ: ﬁnal ﬁgures 😀'];
    const parts: string[] = [];
    for (let i = 0; i < 12_000; i++) parts.push(`${lines[Math.floor(rand() * lines.length)]} ${Math.floor(rand() * 100000)}`);
    const ascii = parts.filter((p) => !/[^\x00-\x7f]/.test(p)).join('\n');
    const mixed = parts.join('\n');
    for (const t of [ascii, mixed]) {
      for (const max of [4096, 100]) expect(createFingerprinter(KEY).ofBounded(t, max)).toEqual(ref.createFingerprinter(KEY).ofBounded(t, max));
    }
  });
});

/** Every label of LABEL, as written in texts. */
const LABELS = [
  'password', 'passwd', 'passcode', 'passphrase', 'pwd', 'pin', 'PIN code', 'pin number', 'otp', 'one-time code', 'one time password', 'secret', 'secret key',
  'api key', 'API_KEY', 'apikey', 'access key', 'access_token', 'auth code', 'authorization token', 'token', 'account number', 'acct', 'acct.', 'accout', 'accnt',
  'acct #', 'account no.', 'acct id', 'iban', 'IBAN', 'bic', 'swift', 'swift code', 'routing', 'routing number', 'routing no.', 'sort code', 'sort-code', 'ssn', 'SSN',
  'social security', 'social security number', 'card', 'credit card', 'debit card number', 'card no.', 'cvv', 'cvv2', 'cvc', 'security code', 'verification code',
  'recovery code', 'member id', 'membership number', 'member no.', 'policy number', 'policy no.', 'license key', 'licence-key', 'serial', 'serial number',
  // Case folding of the `iu` flags: the long s and the Kelvin sign are an s and a k.
  'ſecret', 'api Key', 'toKen', 'paſſword', 'SſN',
];
const VALUES = ['Summer!24', 'hunter2', 'Xq7Rk29Lm4Tz', '4929 3812 7745 0016', 'DE89 3704 0044 0532 0130 00', 'GB29-NWBK-6016', 'abc', 'required', '12345678', '2026-11-22', '20261122', '3.14159265', 'a1b2c3d4', 'ÄÖ12ü34ß5678', 'Ｘ７Ｒ９ｋ２ｍ４', '𝟒𝟗𝟐𝟗𝟑𝟖𝟏𝟐', 'v1.2.3.4', '$1,234,567', '07:30:15', '১২৩৪৫৬৭৮৯', 'Float32Array', 'sha256sum', 'ﬁ12ﬁ34ﬁx', '㎏12㎏34', 'ǅ1ǅ2ǅ', 'Ⅻ12Ⅻ34'];
const JOINERS = [' ', ': ', ' is ', '=', ' = "', ' #', ' → ', '\n', ', ', '-', '_', '', ' was: ', "='", '(', ')', '. ', ' \u00a0'];
const piece = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...LABELS) },
  { weight: 3, arbitrary: fc.constantFrom(...VALUES) },
  { weight: 3, arbitrary: fc.constantFrom(...JOINERS) },
  { weight: 2, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Z0-9]{1,7}$/) },
  { weight: 2, arbitrary: fc.stringMatching(/^[a-zA-Z0-9#.!_*?-]{1,14}$/) },
  { weight: 1, arbitrary: unit },
);
const valueText = fc.array(piece, { maxLength: 80 }).map((p) => p.join(''));

describe('fast short values equal the reference', () => {
  it('distinctiveValues: the same values in the same order, and the same cut at max', () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 4, arbitrary: valueText }, { weight: 1, arbitrary: anyText }, { weight: 1, arbitrary: asciiText }), fc.integer({ min: 1, max: 12 }), (t, max) => {
        expect(distinctiveValues(t)).toEqual(refValues.distinctiveValues(t));
        expect(distinctiveValues(t, max)).toEqual(refValues.distinctiveValues(t, max));
      }),
      { numRuns: 3000 },
    );
  });

  it('every label, followed by every value, alone and inside text', () => {
    for (const label of LABELS) {
      for (const value of VALUES) {
        for (const t of [`${label}: ${value}`, `my ${label} is ${value}.`, `x${label} ${value}`, `(${label}=${value})`, `${label}_${value}`]) {
          expect(distinctiveValues(t), t).toEqual(refValues.distinctiveValues(t));
        }
      }
      // (A label ending in a full stop is not found before a value: the reference's `\b` after `.` needs a word.)
      if (!label.endsWith('.')) expect(distinctiveValues(`the ${label}: Summer!24`).length, label).toBeGreaterThan(0);
    }
  });

  it('word separators: the written-out white space is that of the expression, for every code unit', () => {
    const re = /[\s=:()[\]{}<>,;"'`|]/;
    for (let c = 0; c < 0x10000; c++) expect(isWordSeparator(c), c.toString(16)).toBe(re.test(String.fromCharCode(c)));
  });

  it('every BMP code unit between two values', () => {
    for (let c = 0; c < 0x10000; c++) {
      const t = `x1y2z3w4${String.fromCharCode(c)}q5r6s7t8 ab${String.fromCharCode(c)}12 3456 7890`;
      expect(distinctiveValues(t), c.toString(16)).toEqual(refValues.distinctiveValues(t));
    }
  });

  it('groups and words at the edges of the text and of one another', () => {
    const parts = ['4929', '3812', 'AB12', 'Q3', '7745', 'X', 'é', '𝐀', '\ud835', ' ', '-', '  ', '--', '.', ',', 'ab', '12', 'DE89', '0016', '_', 'ſ', 'K', 'k'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...parts), { maxLength: 30 }), (p) => {
        const t = p.join('');
        expect(distinctiveValues(t)).toEqual(refValues.distinctiveValues(t));
        expect(outgoingPieces([t])).toEqual(refValues.outgoingPieces([t]));
      }),
      { numRuns: 3000 },
    );
  });

  it('words around 64 letters and digits, with characters normalisation folds, joins or drops (a long word is skipped unread)', () => {
    const piece = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...'abcXYZ0123456789'.split('')) },
      { weight: 1, arbitrary: fc.constantFrom(...TRICKY, '\u0301', '\u0308', '+', '/', '=', '#', '.', 'İ', 'ﬃ', '㍿', '\ufeff') },
    );
    const word = fc.array(piece, { minLength: 50, maxLength: 90 }).map((p) => p.join(''));
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 4 }), fc.constantFrom(' ', '\n', '/', '+', '-'), (words, sep) => {
        const t = words.join(sep);
        expect(distinctiveValues(t)).toEqual(refValues.distinctiveValues(t));
      }),
      { numRuns: 2000 },
    );
    // A base64 result: one word of a megabyte (its pieces are the values, the word itself is skipped).
    const b64 = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 131 + ((i * i) >> 3)) & 255)).toString('base64');
    for (const t of [b64, `${b64.slice(0, 70)} x1y2z3w4`, `${'a1'.repeat(32)} ${'a1'.repeat(33)}`]) expect(distinctiveValues(t)).toEqual(refValues.distinctiveValues(t));
  });

  it('outgoingPieces: the same pieces in the same order', () => {
    const plainish = fc.array(fc.constantFrom('the', 'The', 'tHe', 'x', 'X', '.', '!', '?', '*', '_', 'é', 'ſ', 'K', ' ', '\n', '.the.', '_Word_', 'a1', 'Ab', 'ab.cd', '-'), { maxLength: 40 }).map((w) => w.join(''));
    fc.assert(
      fc.property(fc.array(fc.oneof(valueText, anyText, asciiText, plainish), { minLength: 1, maxLength: 4 }), (texts) => {
        expect(outgoingPieces(texts)).toEqual(refValues.outgoingPieces(texts));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('fast decoded views equal the reference', () => {
  const secret = fc.constantFrom('The merger with Borealis Labs closes on the third of March', 'password: Summer!24', 'ünïcode ＦＵＬＬ 😀', 'acct 4929 3812 7745 0016');
  const encoded = fc.tuple(secret, fc.constantFrom('base64', 'base64url', 'hex', 'url'), fc.integer({ min: 0, max: 3 })).map(([t, enc, cut]) => {
    const e = enc === 'url' ? encodeURIComponent(t) : Buffer.from(t).toString(enc as BufferEncoding);
    return e.slice(cut);
  });
  const wrapped = fc.tuple(encoded, fc.integer({ min: 36, max: 80 }), fc.constantFrom('\n', '\r\n', '\n  ', '\n\t', '\r\r\n')).map(([e, width, br]) => {
    const long = e.repeat(4);
    const lines: string[] = [];
    for (let at = 0; at < long.length; at += width) lines.push(long.slice(at, at + width));
    return lines.join(br);
  });
  const bits = fc.array(
    fc.oneof(encoded, wrapped, fc.constantFrom(' ', '=', '==', '===', '\n', 'https://x.example/p?q=', '&a=', 'AAAA', 'deadbeef', '0123456789abcdefABCDEF', '+/_-', 'ü', 'word'), fc.stringMatching(/^[A-Za-z0-9+/_=-]{0,50}$/)),
    { maxLength: 12 },
  ).map((b) => b.join(''));

  it('unwrapViews and decodeWhole give the same views', () => {
    fc.assert(
      fc.property(fc.oneof(bits, anyText, asciiText), (t) => {
        expect(unwrapViews(t)).toEqual(refUnwrap.unwrapViews(t));
        expect(decodeWhole(t)).toEqual(refUnwrap.decodeWhole(t));
      }),
      { numRuns: 2000 },
    );
  });

  it('a text mayHaveReadings rules out has no reading but itself', () => {
    const escapes = fc.constantFrom('&#103;', '&#x67;', '&amp;', '\\u0067', '\\x67', '%41', '+', 'ｇ', '\u200b', 'é', '://', 'https://x.example/a?b=c');
    fc.assert(
      fc.property(fc.oneof(bits, anyText, asciiText, fc.array(fc.oneof(escapes, fc.stringMatching(/^[A-Za-z0-9 .,;:=!?()'"*#$@[\]{}|~<>^`]{0,20}$/)), { maxLength: 8 }).map((b) => b.join(''))), (t) => {
        if (!mayHaveReadings(t)) expect(unwrapViews(t)).toEqual([t]);
      }),
      { numRuns: 3000 },
    );
  });

  it('wrapped base64 lines of 38 to 42 characters, at the start of the text or after a few', () => {
    const b64 = Buffer.from('The merger with Borealis Labs closes on the third of March; keep the price to the board.').toString('base64');
    for (let width = 38; width <= 42; width++) {
      for (const lead of ['', ' ', 'x ', '\n']) {
        for (const br of ['\n', '\r\n', '\n ']) {
          const lines: string[] = [];
          for (let at = 0; at < b64.length; at += width) lines.push(b64.slice(at, at + width));
          for (const t of [lead + lines.join(br), lead + lines[0]! + br + b64.slice(width, width + 20)]) {
            expect(unwrapViews(t), JSON.stringify(t)).toEqual(refUnwrap.unwrapViews(t));
          }
        }
      }
    }
  });
});

describe("a private read's forms and short lines equal the reference", () => {
  /** Surrogates glued to one another and to letters, in every order, so pairs and lone halves meet. */
  const surrogates = fc.array(fc.constantFrom('\ud83d', '\ude00', '\ud800', '\udfff', '\udbff\udc00', '😀', 'a', 'Z', ' ', 'é'), { maxLength: 60 }).map((u) => u.join(''));
  const lines = fc
    .array(fc.oneof(fc.constantFrom(...WORDS, 'Deadline: 2024-03-01 for Project Atlas', 'Contract 1182 with Borealis Labs', '.', '!', '?', ';', ' ', '\n', '\r\n', '\r', '\t', '  ', '\u00a0', '\u2028'), valueText), { maxLength: 120 })
    .map((w) => w.join(' '));

  it('rot13 and reverseCodePoints: the same strings as the replace and the string iterator', () => {
    for (const arb of [anyText, asciiText, prose, surrogates]) {
      fc.assert(
        fc.property(arb, (t) => {
          expect(rot13(t)).toBe(refForms.rot13(t));
          expect(reverseCodePoints(t)).toBe(refForms.reversed(t));
        }),
        { numRuns: 1000 },
      );
    }
    for (let c = 0; c < 0x10000; c += 1) {
      const t = `a${String.fromCharCode(c)}Z${String.fromCharCode(c)}`;
      if (rot13(t) !== refForms.rot13(t) || reverseCodePoints(t) !== refForms.reversed(t)) expect.fail(`code unit ${c.toString(16)}`);
    }
  });

  it('reverseWords: the split on white space, reversed and joined; isJsSpace is \\s for every code unit', () => {
    for (let c = 0; c < 0x10000; c++) if (isJsSpace(c) !== /\s/.test(String.fromCharCode(c))) expect.fail(`code unit ${c.toString(16)}`);
    const spaced = fc.array(fc.constantFrom('a', 'Bc', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u200b', '😀', '\ud800', 'é'), { maxLength: 60 }).map((u) => u.join(''));
    for (const arb of [anyText, asciiText, prose, spaced]) {
      fc.assert(
        fc.property(arb, (t) => {
          expect(reverseWords(t)).toBe(t.split(/(\s+)/).reverse().join(''));
        }),
        { numRuns: 1000 },
      );
    }
  });

  it('privateForms: the same forms of a long text (its first 64 KiB), and none that equals the text', () => {
    const long = Array.from({ length: 3000 }, (_, i) => `Line ${i} of the report 😀 for Borealis, \ud800 café.`).join('\n');
    for (const t of [long, long.slice(1), '', 'abc', '12345 67890', 'racecar racecar', '😀 x 😀']) {
      const head = t.slice(0, 64 * 1024);
      const want = [refForms.rot13(head), refForms.reversed(head), head.split(/(\s+)/).reverse().join('')].filter((f) => f !== head);
      expect(privateForms(t, 64 * 1024)).toEqual(want);
    }
  });

  it('shortLines: the same lines in the same order, and the same cut at max', () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 4, arbitrary: lines }, { weight: 1, arbitrary: anyText }, { weight: 1, arbitrary: asciiText }), fc.integer({ min: 1, max: 8 }), (t, max) => {
        expect(shortLines(t)).toEqual(refForms.shortLines(t));
        expect(shortLines(t, max)).toEqual(refForms.shortLines(t, max));
      }),
      { numRuns: 3000 },
    );
  });

  it('distinctiveValues and outgoingPieces of one long word (a base64 result): the same values, its runs read lazily', () => {
    const b64 = Buffer.from(Array.from({ length: 60_000 }, (_, i) => (i * 131 + ((i * i) >> 3)) & 255)).toString('base64');
    for (const t of [b64, `${b64.slice(0, 5000)} ${b64.slice(5000)}`, b64.replace(/[0-9]/g, ''), `x9${b64.slice(0, 300)}é${b64.slice(300, 900)}𝐀9`]) {
      expect(distinctiveValues(t)).toEqual(refValues.distinctiveValues(t));
      expect(distinctiveValues(t, 3)).toEqual(refValues.distinctiveValues(t, 3));
      expect(outgoingPieces([t.slice(0, 20_000)])).toEqual(refValues.outgoingPieces([t.slice(0, 20_000)]));
    }
  });

  it('shortLines of a long text stops at the cut, with the lines the whole split gives', () => {
    const t = Array.from({ length: 5000 }, (_, i) => `Invoice ${i} for Borealis Labs was paid.  Next one ${i + 1}; then Project Atlas ${i}?`).join('\r\n');
    expect(shortLines(t)).toEqual(refForms.shortLines(t));
    expect(shortLines(t).length).toBe(256);
  });
});
