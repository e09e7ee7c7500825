/**
 * False matches of short private values (src/core/text/short-values.ts, docs/data-flow.md "Short values") on
 * ordinary text: every text of the eval cases (../shared/data/eval/dev, when present: tool results, messages, tool
 * arguments) and of the repo's benign corpora (test/fixtures/injection: mails, tables, code, documents) is read as a
 * private read and sent as an outgoing text. A text counts as a false match when one of its pieces equals a
 * distinctive value of a text from another source (another suite, or another corpus file): unrelated ordinary text
 * that would be flagged as carrying private data. Texts of the same suite are reported apart, because the cases of
 * one suite share their environment (the same account numbers, the same ids): a match there is the same data.
 * Run: npx tsx bench/short-values-fp.ts [--show]
 */
import { distinctiveValues, outgoingPieces } from '../src/core/text/short-values.js';
import { benignTexts } from './benign-texts.js';

const docs = benignTexts();
const words = docs.reduce((n, d) => n + d.text.split(/\s+/).filter(Boolean).length, 0);
const valuesOf = docs.map((d) => new Set(distinctiveValues(d.text)));
const owners = new Map<string, Set<number>>();
valuesOf.forEach((vs, i) => vs.forEach((v) => (owners.get(v) ?? owners.set(v, new Set()).get(v)!).add(i)));

let withValues = 0;
let values = 0;
for (const vs of valuesOf) {
  if (vs.size > 0) withValues++;
  values += vs.size;
}
let crossFlagged = 0;
let sameFlagged = 0;
let crossPairs = 0;
const shown = new Map<string, number>();
const sameShown = new Map<string, number>();
docs.forEach((d, i) => {
  let cross = false;
  let same = false;
  for (const p of outgoingPieces([d.text])) {
    for (const j of owners.get(p) ?? []) {
      if (j === i || docs[j]!.text === d.text) continue;
      if (docs[j]!.group === d.group) {
        same = true;
        sameShown.set(`${d.group} ${p}`, (sameShown.get(`${d.group} ${p}`) ?? 0) + 1);
      }
      else {
        cross = true;
        crossPairs++;
        shown.set(p, (shown.get(p) ?? 0) + 1);
      }
    }
  }
  if (cross) crossFlagged++;
  if (same) sameFlagged++;
});
const groups = new Map<string, number>();
for (const d of docs) groups.set(d.group, (groups.get(d.group) ?? 0) + 1);
let pairs = 0;
for (const n of groups.values()) pairs += n * (docs.length - n);
const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(2)}%`;
console.log(`${docs.length} texts, ${words} words, ${groups.size} sources (${[...groups].map(([g, n]) => `${g}: ${n}`).join(', ')})`);
console.log(`texts with a distinctive short value: ${withValues} (${pct(withValues, docs.length)}); values in all: ${values} (${((1000 * values) / words).toFixed(2)} per 1,000 words)`);
console.log(`false match, another source: ${crossFlagged}/${docs.length} texts (${pct(crossFlagged, docs.length)}) would be flagged if every text of every other source had been read; ${crossPairs} of ${pairs} (read, send) pairs (${((100 * crossPairs) / Math.max(1, pairs)).toFixed(4)}%)`);
console.log(`match within the same source (shared environment data): ${sameFlagged}/${docs.length} texts (${pct(sameFlagged, docs.length)})`);
if (process.argv.includes('--show')) {
  console.log('values matched across sources (pairs):');
  for (const [v, n] of [...shown].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${n}\t${v}`);
  console.log('values matched within a source (pairs):');
  for (const [v, n] of [...sameShown].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${n}\t${v}`);
}

if (process.argv.includes('--cost')) {
  // Time per MB of ordinary prose (the benign corpora repeated), best of 5, next to the gram fingerprints of the same text.
  const { createFingerprinter } = await import('../src/core/text/fingerprint.js');
  const prose = docs.filter((d) => d.group.startsWith('fixtures/')).map((d) => d.text).join('\n');
  let mb = '';
  while (mb.length < 1_000_000) mb += `${prose}\n`;
  mb = mb.slice(0, 1_000_000);
  const best = (f: () => unknown) => {
    let b = Infinity;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      f();
      b = Math.min(b, performance.now() - t);
    }
    return `${b.toFixed(0)} ms`;
  };
  const fp = createFingerprinter(Buffer.alloc(32, 1));
  console.log(`1 MB of prose: distinctiveValues (a read) ${best(() => distinctiveValues(mb))}, outgoingPieces (a send) ${best(() => outgoingPieces([mb]))}; gram fingerprints of the same MB ${best(() => fp.ofBounded(mb, 4096))}`);
}
