/**
 * Measures the `injection` detector on the hand-written corpora under test/fixtures/injection (the target: kinds of
 * attacks and hard negatives the dev data does not hold; `tuning` was developed against, `blind` was not), per
 * category and per carrier, then on the dev files of
 * BIPIA and AgentDojo as a sanity check (when ../shared/data/eval/dev exists; never copied).
 *
 *   npx tsx bench/injection-heldout.ts [--threshold 0.5] [--verbose]
 *
 * First-look figures (threshold 0.5), the honest estimate for unseen wording: the detector before the `directive`
 * signal scored tuning 17.5% recall / 5.6% FPR, blind 16.9% / 14.3%, fresh 20.0% / 6.7%. With it, blind was first
 * measured at 50.8% / 9.5% and fresh at 70.0% / 3.3%; later figures on a set include fixes it prompted.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contentText } from '../src/core/fields.js';
import { scoreInjection } from '../src/detectors/injection/index.js';
import type { ContentBlock } from '../src/core/types.js';
import { CORPUS_SETS, channelOfRow, type CorpusRow, loadCorpus, type Tally, tally } from '../test/fixtures/injection/corpus.js';

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const tIdx = args.indexOf('--threshold');
const threshold = tIdx >= 0 ? Number(args[tIdx + 1]) : 0.5;
const pct = (a: number, b: number): string => (b === 0 ? '   -  ' : `${((100 * a) / b).toFixed(1).padStart(5)}%`);

function table(title: string, rows: CorpusRow[], key: (r: CorpusRow) => string): void {
  console.log(`\n${title}`);
  const t = [...tally(rows, key, threshold).entries()].sort((a, b) => a[0].localeCompare(b[0]));
  for (const [k, v] of t) console.log(`  ${k.padEnd(24)} recall ${pct(v.caught, v.attacks)} (${v.caught}/${v.attacks})  FPR ${pct(v.falseAlarms, v.benign)} (${v.falseAlarms}/${v.benign})`);
}

for (const set of CORPUS_SETS) {
  const rows = loadCorpus(set);
  const total = tally(rows, () => '', threshold).get('') as Tally;
  console.log(`\n=== ${set} corpus: ${rows.length} rows  recall ${pct(total.caught, total.attacks)} (${total.caught}/${total.attacks})  FPR ${pct(total.falseAlarms, total.benign)} (${total.falseAlarms}/${total.benign})  threshold ${threshold}`);
  table('attacks by category', rows.filter((r) => r.label === 'attack'), (r) => r.category);
  table('benign by category', rows.filter((r) => r.label === 'benign'), (r) => r.category);
  table('by carrier', rows, (r) => r.carrier);
  if (verbose) {
    console.log('\nmisclassified:');
    for (const r of rows) {
      const s = scoreInjection(r.text, undefined, 0, channelOfRow(r));
      if ((s.score >= threshold) !== (r.label === 'attack')) {
        console.log(`  ${r.label === 'attack' ? 'missed' : 'false alarm'} [${r.category}/${r.carrier}/${r.note}] ${s.score} ${s.findings.map((f) => `${f.signal}:${f.detail}`).join('; ')}`);
        console.log(`    ${r.text.replace(/\n/g, ' ⏎ ').slice(0, 400)}`);
      }
    }
  }
}

interface DevCase {
  steps: { content?: string | ContentBlock[] }[];
  expect: { decision: 'allow' | 'deny' };
}
const dir = join(process.cwd(), '../shared/data/eval/dev');
for (const file of ['bipia.jsonl', 'agentdojo-injection.jsonl']) {
  const path = join(dir, file);
  if (!existsSync(path)) {
    console.log(`\ndev ${file}: not present, skipped`);
    continue;
  }
  const t: Tally = { attacks: 0, caught: 0, benign: 0, falseAlarms: 0 };
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const c = JSON.parse(line) as DevCase;
    const top = Math.max(0, ...c.steps.filter((s) => s.content !== undefined).map((s) => scoreInjection(contentText(s.content)).score));
    const flagged = top >= threshold;
    if (c.expect.decision === 'deny') {
      t.attacks++;
      if (flagged) t.caught++;
    } else {
      t.benign++;
      if (flagged) t.falseAlarms++;
    }
  }
  console.log(`\ndev ${file}: recall ${pct(t.caught, t.attacks)} (${t.caught}/${t.attacks})  FPR ${pct(t.falseAlarms, t.benign)} (${t.falseAlarms}/${t.benign})`);
}
