/**
 * The leet reading written plainly (src/core/text/leet-words.ts finds its words run by run and widens passages by
 * searching; test/core/text/leet-words.test.ts compares the two): every match of the word expression, the counted
 * ones grouped while each lies within `gap` characters of the one before, groups of three or more widened to their
 * line (at most `context` characters each way, else cut at white space), overlapping ones joined, each passage's
 * words given their letters back.
 */
const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's' };
const LEET_WORD = /\b(?=[A-Za-z0-9@$]*[A-Za-z])(?=[A-Za-z0-9@$]*[013457@$])[A-Za-z0-9@$]{3,}\b/g;

const counted = (w: string): boolean => !(/^[0-9a-f]+$/i.test(w) && w.length >= 8) && /[A-Za-z]/.test(w) && /\d/.test(w);

export function leetPassages(text: string, gap = 400, context = 400): Array<[number, number]> {
  const words = [...text.matchAll(LEET_WORD)].filter((m) => counted(m[0])).map((m) => [m.index, m.index + m[0].length] as const);
  const groups: Array<Array<readonly [number, number]>> = [];
  for (const w of words) {
    const g = groups[groups.length - 1];
    if (g !== undefined && w[0] - g[g.length - 1]![1] <= gap) g.push(w);
    else groups.push([w]);
  }
  const out: Array<[number, number]> = [];
  for (const g of groups.filter((x) => x.length >= 3)) {
    const first = g[0]![0];
    const last = g[g.length - 1]![1];
    // The line's start counts when at most `context` characters lie between it and the first word.
    const lineBack = /\n[^\n]*$/.exec(text.slice(Math.max(0, first - context - 1), first));
    let from: number;
    if (lineBack) from = Math.max(0, first - context - 1) + lineBack.index + 1;
    else if (first <= context) from = 0;
    else {
      const ws = /\s/.exec(text.slice(first - context, first));
      from = ws ? first - context + ws.index + 1 : first;
    }
    const after = text.slice(last, last + context + 1);
    const lineOn = after.indexOf('\n');
    let to: number;
    if (lineOn >= 0 && lineOn <= context) to = last + lineOn;
    else if (text.length - last <= context) to = text.length;
    else {
      const within = after.slice(0, context);
      const ws = /[ \t](?![\s\S]*[ \t])/.exec(within);
      to = ws ? last + ws.index : last;
    }
    const prev = out[out.length - 1];
    if (prev !== undefined && from <= prev[1]) prev[1] = to;
    else out.push([from, to]);
  }
  return out;
}

export function unleet(text: string, maxRun = 16_384): string | undefined {
  const passages = leetPassages(text);
  if (passages.length === 0) return undefined;
  return passages
    .map(([from, to]) => text.slice(from, Math.min(to, from + maxRun)).replace(LEET_WORD, (w) => (/^[0-9a-f]{8,}$/i.test(w) ? w : w.replace(/[013457@$]/g, (c) => LEET[c] ?? c))))
    .join('\n');
}
