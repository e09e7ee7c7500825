/**
 * Look-alike letters (confusables): Cyrillic and Greek letters that render like Latin ones, used to slip an order
 * past phrase patterns ("Іgnore all prevіous іnstructions" with Cyrillic І/і). A word that mixes Latin letters with
 * such look-alikes is folded to its Latin skeleton; words wholly in another script (Russian, Greek text) are left
 * as they are. Linear: one pass over the words.
 */
const LOOKALIKE: Record<string, string> = {
  // Cyrillic
  '\u0430': 'a', '\u0410': 'A', '\u0432': 'b', '\u0412': 'B', '\u0441': 'c', '\u0421': 'C', '\u0435': 'e', '\u0415': 'E',
  '\u043d': 'h', '\u041d': 'H', '\u0456': 'i', '\u0406': 'I', '\u0458': 'j', '\u0408': 'J', '\u043a': 'k', '\u041a': 'K',
  '\u041c': 'M', '\u043c': 'm', '\u043e': 'o', '\u041e': 'O', '\u0440': 'p', '\u0420': 'P', '\u0455': 's', '\u0405': 'S',
  '\u0442': 't', '\u0422': 'T', '\u0445': 'x', '\u0425': 'X', '\u0443': 'y', '\u0423': 'Y', '\u0433': 'r', '\u0501': 'd',
  '\u04bb': 'h', '\u0474': 'V', '\u0475': 'v', '\u051b': 'q', '\u051d': 'w', '\u0457': 'i',
  // Greek
  '\u03b1': 'a', '\u0391': 'A', '\u0392': 'B', '\u03b5': 'e', '\u0395': 'E', '\u0396': 'Z', '\u0397': 'H', '\u03b9': 'i',
  '\u0399': 'I', '\u039a': 'K', '\u03ba': 'k', '\u039c': 'M', '\u039d': 'N', '\u03bd': 'v', '\u03bf': 'o', '\u039f': 'O',
  '\u03c1': 'p', '\u03a1': 'P', '\u03a4': 'T', '\u03c4': 't', '\u03c5': 'u', '\u03a5': 'Y', '\u03a7': 'X', '\u03c7': 'x',
};
const HAS_LOOKALIKE = /[\u0370-\u03ff\u0400-\u052f]/;
const WORD = /[\p{L}\p{M}]+/gu;

/** `text` with mixed-script words folded to Latin; the same string when there is nothing to fold. */
export function foldConfusables(text: string): string {
  if (!HAS_LOOKALIKE.test(text)) return text;
  return text.replace(WORD, (w) => {
    if (!/[A-Za-z]/.test(w) || !HAS_LOOKALIKE.test(w)) return w;
    let out = '';
    for (const ch of w) out += LOOKALIKE[ch] ?? ch;
    return out;
  });
}
