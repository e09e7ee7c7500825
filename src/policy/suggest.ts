/** "Did you mean …" suggestions by edit distance, for undefined names. */

/** Levenshtein distance (insert, delete, substitute), O(|a|·|b|). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The closest known name within a distance of max(2, a third of the name's length), or undefined.
 *
 * @example didYouMean('publish_contnet', ['publish_content', 'sensitive_info']) // 'publish_content'
 */
export function didYouMean(name: string, known: Iterable<string>): string | undefined {
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(name, k);
    if (d < bestD || (d === bestD && best !== undefined && k < best)) {
      best = k;
      bestD = d;
    }
  }
  return bestD <= limit ? best : undefined;
}
