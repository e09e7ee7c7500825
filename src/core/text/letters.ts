/**
 * Character classes of the data-flow scanners, as tables derived once from the regular expressions they stand for
 * (so a table lookup answers exactly what the regex would), and the normalised letters and digits of a text as char
 * codes: what `normaliseForFingerprint` returns as a string, without building the string.
 */

let bmpLetterOrDigit: Uint8Array | undefined;

/** 1 for each BMP code point (surrogates excluded) that `/[\p{L}\p{N}]/u` matches. */
function letterOrDigitTable(): Uint8Array {
  if (bmpLetterOrDigit) return bmpLetterOrDigit;
  const t = new Uint8Array(0x10000);
  const re = /[\p{L}\p{N}]/u;
  for (let c = 0; c < 0x10000; c++) if ((c < 0xd800 || c > 0xdfff) && re.test(String.fromCharCode(c))) t[c] = 1;
  return (bmpLetterOrDigit = t);
}

const ASTRAL_LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/** Whether code point `cp` is a letter or a digit (`\p{L}` or `\p{N}`); lone surrogates are not. */
export function isLetterOrDigit(cp: number): boolean {
  if (cp < 0x10000) return letterOrDigitTable()[cp] === 1;
  return ASTRAL_LETTER_OR_DIGIT.test(String.fromCodePoint(cp));
}

/** Normalised text as UTF-16 code units: bytes when it is all ASCII. */
export type Codes = Uint8Array | Uint16Array;

/** ASCII letters and digits, lower case; 0 for every other byte. */
const ASCII_NORMAL = new Uint8Array(256);
for (let c = 48; c <= 57; c++) ASCII_NORMAL[c] = c;
for (let c = 97; c <= 122; c++) ASCII_NORMAL[c] = c;
for (let c = 65; c <= 90; c++) ASCII_NORMAL[c] = c + 32;

/**
 * The letters and digits of `text`, NFKC, lower case, as UTF-16 code units: equal, unit for unit, to
 * `text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '')`. ASCII text (most of it) is NFKC already and
 * its letters and digits are [A-Za-z0-9]: it is encoded once (UTF-8, as long as the text only when it is all ASCII)
 * and filtered in place. Other text is normalised and lower-cased by the engine (lower case depends on context: a
 * final sigma) and then filtered code point by code point.
 */
export function normalisedCodes(text: string): Codes {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length !== text.length) return filterLettersAndDigits(text.normalize('NFKC').toLowerCase());
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = ASCII_NORMAL[bytes[i]!]!;
    if (c !== 0) bytes[n++] = c;
  }
  return bytes.subarray(0, n);
}

/**
 * The UTF-16 code units of `text`: its UTF-8 bytes when it is all ASCII (encoded by the engine, then read faster
 * than `charCodeAt` of a string that may be a rope), a copy of its code units otherwise.
 */
export function codeUnits(text: string): Codes {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === text.length) return bytes;
  const out = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** The letter and digit code points of `s`, as code units. */
function filterLettersAndDigits(s: string): Uint16Array {
  const table = letterOrDigitTable();
  // Never more code units out than in.
  const out = new Uint16Array(s.length);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) {
      if (table[c] === 1) out[n++] = c;
    } else if (c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        if (ASTRAL_LETTER_OR_DIGIT.test(String.fromCharCode(c, d))) {
          out[n++] = c;
          out[n++] = d;
        }
      }
    }
  }
  return out.subarray(0, n);
}

