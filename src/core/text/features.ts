/**
 * Text normalisation and feature extraction for the local hashing embedder: lower-casing, accent folding,
 * light suffix stemming, word unigrams and bigrams, and character 3–5-grams of each word.
 */

/**
 * Relative weights of the three feature families: a word's unigram, its bigram with the next word, and the total
 * (root of the squared mass) of its character n-grams. Words dominate; character grams add robustness to spelling.
 */
export const FEATURE_WEIGHTS = { unigram: 1, bigram: 0.7, chargram: 0.8 } as const;

/** Character n-gram lengths of each padded word. */
export const CHARGRAM = { min: 3, max: 5 } as const;

/** Lower-cases, folds accents and turns everything but letters and digits into single spaces. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * A deliberately light stemmer (plural and common verb suffixes), enough to make "flights"/"flight" and
 * "booking"/"booked"/"book" meet. Short words are left alone.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('ie')) w = `${w.slice(0, -2)}y`; // so that movie meets movies
  else if (w.length > 4 && w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  // "booking" -> "book", "shopped" -> "shopp" -> "shop": undouble a final consonant pair left by a suffix.
  if (w.length > 3 && w !== word && /([b-df-hj-np-tv-z])\1$/.test(w)) w = w.slice(0, -1);
  return w;
}

/** Normalised, stemmed word tokens of a text. */
export function stemmedTokens(text: string): string[] {
  const norm = normalizeText(text);
  return norm.length === 0 ? [] : norm.split(' ').map(stem);
}

/**
 * Function words that carry no topic: dropped before features are built, so two texts do not look alike
 * because both say "the … of … for".
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  ('a an and are as at be by for from has have i in is it its me my of on or our so than that the their them then ' +
    'there these this those to was we were what when where which who will with you your').split(' '),
);
