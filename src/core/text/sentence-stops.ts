/**
 * The sentence ends of scripts that do not use `.`: the CJK full stops 。！？ and the halfwidth ｡ (written with no
 * space after them), the Devanagari danda and double danda । ॥, the Arabic question mark ؟, the Urdu full stop ۔, the
 * Ethiopic full stop and question mark ። ፧, the Armenian full stop ։, the Burmese section mark ။, the Tibetan shad །,
 * the Khmer khan ។ and the Mongolian full stop ᠃. Each ends a sentence wherever it stands (there is no capital letter
 * after them to look for). Every reader that cuts text into sentences (the injection detector's lines and cells,
 * provenance's action requests) takes them from here.
 */
export const SCRIPT_STOPS = '。！？｡।॥؟۔።፧։။།។᠃';

/**
 * What a sentence after `. ` (or `! `, `? `) can start with, for a character class: a capital of any script (Latin,
 * Cyrillic, Greek, Armenian, …), a letter of a script without case (Arabic, Hebrew, Devanagari, CJK, …), or an
 * opening quote or parenthesis. A small letter of a cased script does not start one ("e.g. this"). Needs the `u` flag.
 */
export const SENTENCE_OPENERS = String.raw`\p{Lu}\p{Lt}\p{Lo}"'(`;
