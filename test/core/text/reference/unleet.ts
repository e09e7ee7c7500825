/**
 * The leet reading as it was before its count by runs (src/core/text/leet-words.ts): readings.ts `unleet` counting
 * its words with the expression alone. test/core/text/leet-words.test.ts compares the two.
 */
const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's' };
const LEET_WORD = /\b(?=[A-Za-z0-9@$]*[A-Za-z])(?=[A-Za-z0-9@$]*[013457@$])[A-Za-z0-9@$]{3,}\b/g;

export function unleet(text: string): string | undefined {
  let n = 0;
  for (const m of text.matchAll(LEET_WORD)) {
    if (/^[0-9a-f]+$/i.test(m[0]) && m[0].length >= 8) continue;
    if (/[A-Za-z]/.test(m[0]) && /\d/.test(m[0]) && ++n >= 3) break;
  }
  if (n < 3) return undefined;
  return text.replace(LEET_WORD, (w) => (/^[0-9a-f]{8,}$/i.test(w) ? w : w.replace(/[013457@$]/g, (c) => LEET[c] ?? c)));
}
