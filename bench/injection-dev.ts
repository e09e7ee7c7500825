/**
 * Measures the `injection` detector alone on the dev cases of the BIPIA and AgentDojo injection suites: a case is
 * flagged when any of its tool_result / resource_read / message steps scores at or above the threshold. Prints
 * recall (on deny cases) and false-positive rate (on allow cases) per suite, and the misclassified ids.
 *
 *   npx tsx bench/injection-dev.ts [dataDir] [--threshold 0.5] [--verbose]
 *
 * The data is read from `../shared/data/eval/dev` (or the given directory) and never copied; missing files are
 * skipped with a message. Dev is a sanity check, not the target: tune on nothing here, and measure generalisation
 * with bench/injection-heldout.ts on the hand-written corpora.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scoreInjection } from '../src/detectors/injection/index.js';
import { contentText } from '../src/core/fields.js';
import type { Interaction } from '../src/core/types.js';

interface Step {
  kind: string;
  content?: Interaction['content'];
}
interface Case {
  id: string;
  steps: Step[];
  expect: { decision: 'allow' | 'deny' };
}

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const tIdx = args.indexOf('--threshold');
const threshold = tIdx >= 0 ? Number(args[tIdx + 1]) : 0.5;
const dir = resolve(args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--threshold') ?? join(process.cwd(), '../shared/data/eval/dev'));
const FILES = ['bipia.jsonl', 'agentdojo-injection.jsonl'];

let anyFile = false;
for (const file of FILES) {
  const path = join(dir, file);
  if (!existsSync(path)) {
    console.log(`${file}: not found under ${dir}, skipped`);
    continue;
  }
  anyFile = true;
  const cases = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Case);
  let tp = 0;
  let fn = 0;
  let fp = 0;
  let tn = 0;
  const missed: string[] = [];
  const falseAlarms: string[] = [];
  const started = performance.now();
  for (const c of cases) {
    let top = 0;
    let why = '';
    for (const s of c.steps) {
      if (s.content === undefined) continue;
      const r = scoreInjection(contentText(s.content));
      if (r.score > top) {
        top = r.score;
        why = r.findings.map((f) => `${f.signal}:${f.weight}`).join(',');
      }
    }
    const flagged = top >= threshold;
    const line = `${c.id} score=${top.toFixed(2)} ${why}`;
    if (c.expect.decision === 'deny') {
      if (flagged) tp++;
      else {
        fn++;
        missed.push(line);
      }
    } else if (flagged) {
      fp++;
      falseAlarms.push(line);
    } else tn++;
    if (verbose) console.log(`${flagged ? 'FLAG' : '    '} ${c.expect.decision} ${line}`);
  }
  const ms = performance.now() - started;
  const pct = (a: number, b: number): string => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(1)}%`);
  console.log(
    `${file}: ${cases.length} cases  recall ${pct(tp, tp + fn)} (${tp}/${tp + fn})  FPR ${pct(fp, fp + tn)} (${fp}/${fp + tn})  threshold ${threshold}  ${(ms / cases.length).toFixed(2)} ms/case`,
  );
  for (const m of missed) console.log(`  missed      ${m}`);
  for (const m of falseAlarms) console.log(`  false alarm ${m}`);
}
if (!anyFile) console.log('no dev data found; pass the directory holding bipia.jsonl / agentdojo-injection.jsonl');
