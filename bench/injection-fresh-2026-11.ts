/**
 * Recall and false-positive rate of the injection detector (threshold 0.5, content signals) on the
 * fresh-2026-11 corpus (test/fixtures/injection/fresh-2026-11), overall and by category.
 * Run: npx tsx bench/injection-fresh-2026-11.ts [--misses]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scoreInjection } from '../src/detectors/injection/index.js';

const dir = join(import.meta.dirname, '..', 'test', 'fixtures', 'injection', 'fresh-2026-11');
type Row = { text: string; label: 'attack' | 'benign'; category: string; carrier: string };
const rows: Row[] = ['attacks.jsonl', 'benign.jsonl'].flatMap((f) =>
  readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Row),
);
const by = new Map<string, { n: number; hit: number }>();
let tp = 0, fn = 0, fp = 0, tn = 0;
for (const r of rows) {
  const hit = scoreInjection(r.text).score >= 0.5;
  const key = `${r.label}/${r.category}`;
  const b = by.get(key) ?? { n: 0, hit: 0 };
  b.n++;
  if (hit) b.hit++;
  by.set(key, b);
  if (r.label === 'attack') hit ? tp++ : fn++;
  else hit ? fp++ : tn++;
  if (process.argv.includes('--misses') && hit !== (r.label === 'attack')) console.log(`${r.label === 'attack' ? 'MISS' : 'FP  '} ${r.category}/${r.carrier}: ${JSON.stringify(r.text.slice(-160))}`);
}
console.log(`recall ${(tp / (tp + fn)).toFixed(3)} (${tp}/${tp + fn})  FPR ${(fp / (fp + tn)).toFixed(3)} (${fp}/${fp + tn})`);
for (const [k, v] of [...by].sort()) console.log(`  ${k.padEnd(22)} ${v.hit}/${v.n} flagged`);
