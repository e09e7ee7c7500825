/**
 * Guard pipeline time per interaction vs policy size: `GuardPipeline.check` (tracker with TopK ∪ MustCheck,
 * verifier, watcher, referee, audit row in an in-memory store) on typical allow-path interactions, for books of
 * the default book's general rules plus 10, 100, 1,000 and 10,000 synthetic predicates (keyword/regex detectors,
 * tool globs on distinct synthetic tools, n/2 rules). The claim under test: cost follows the message, not the
 * policy (target: 10,000 vs 10 ≤ 2×). Two tracker settings: the default top-k budget (10% of the predicates, at most 32,
 * at least 5) and a fixed budget (k = 10 whatever the size), which isolates the
 * cost of retrieval, must-check and the rest of the pipeline.
 *
 *   npx tsx bench/pipeline-scaling.ts [budgetMsPerCase=1500]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { buildGuard } from '../src/guard/build.js';
import type { GuardPipeline } from '../src/guard/pipeline.js';
import { InteractionSchema, type Interaction } from '../src/core/types.js';
import { compileBook, type PolicyBookInput } from '../src/policy/index.js';
import { buildPredicateIndex } from '../src/retrieval/predicate-index.js';
import { ROOT, summarize, syntheticParts, timed } from './common.js';

const SIZES = [10, 100, 1_000, 10_000];
const BUDGET = Number(process.argv[2] ?? 1500);
const DEFAULT_DIR = join(ROOT, 'policies', 'default');

const CASES: Array<[string, Interaction]> = [
  ['call ws__read_file', InteractionSchema.parse({ kind: 'tool_call', agent: 'a', session: 's', server: 'ws', tool: 'read_file', arguments: { path: 'notes/plan.txt' } })],
  ['result ws__read_file', InteractionSchema.parse({ kind: 'tool_result', agent: 'a', session: 's', server: 'ws', tool: 'read_file', content: [{ type: 'text', text: 'Meeting notes: ship the release on Friday, then review the backlog with the team.' }] })],
  ['call svc7__tool', InteractionSchema.parse({ kind: 'tool_call', agent: 'a', session: 's', server: 'svc7', tool: 'tool', arguments: { body: 'a routine request to service seven', n: 3 } })],
];

type Tracker = { k_fraction?: number; k_min?: number };

async function pipelineFor(n: number, tracker: Tracker): Promise<{ pipeline: GuardPipeline; close: () => void; preds: number; rules: number; buildMs: number }> {
  const t0 = performance.now();
  const base = YAML.parse(readFileSync(join(DEFAULT_DIR, 'book.yaml'), 'utf8')) as PolicyBookInput;
  const extra = syntheticParts(n);
  const book = { ...base, name: `default+${n}`, predicates: [...base.predicates, ...extra.predicates], rules: [...base.rules, ...extra.rules] } as PolicyBookInput;
  const { compiled } = compileBook(book, { bookDir: DEFAULT_DIR });
  const index = await buildPredicateIndex(compiled.predicates.map((p) => ({ name: p.name, description: p.def.description, keywords: p.def.keywords })));
  // Repeated calls must not look like a burst: the watcher would raise the level (and the top-k budget) or quarantine.
  const { pipeline, close } = await buildGuard({ policy: { book: compiled, index, warnings: [] }, settings: { tracker, watcher: { burst_threshold: 1e9, quarantine: false } } });
  return { pipeline, close, preds: compiled.predicates.length, rules: compiled.rules.length, buildMs: performance.now() - t0 };
}

console.log(`node ${process.version}, ${process.platform}/${process.arch}; GuardPipeline.check medians per interaction (µs), ~${BUDGET} ms per case after warm-up`);
for (const [label, tracker] of [['default top-k budget (10% of predicates, at least 5, at most 32)', {}], ['fixed top-k budget (k = 10)', { k_fraction: 0, k_min: 10 }]] as Array<[string, Tracker]>) {
  console.log(`-- ${label}`);
  console.log(`${'synthetic'.padStart(9)} ${'preds'.padStart(6)} ${'rules'.padStart(6)} ${'build'.padStart(9)}  ${CASES.map(([l]) => l.padStart(22)).join('')}  ${'p99 (all)'.padStart(10)}  decisions`);
  const medians: number[][] = [];
  for (const n of SIZES) {
    const g = await pipelineFor(n, tracker);
    const row: number[] = [];
    const all: number[] = [];
    const verdicts: string[] = [];
    for (const [, i] of CASES) {
      const ms = await timed(() => g.pipeline.check(i), { warmup: 20, min: 20, max: 20_000, budgetMs: BUDGET });
      row.push(summarize(ms).median * 1000);
      all.push(...ms);
      verdicts.push((await g.pipeline.check(i)).decision);
    }
    g.close();
    medians.push(row);
    console.log(
      `${String(n).padStart(9)} ${String(g.preds).padStart(6)} ${String(g.rules).padStart(6)} ${`${g.buildMs.toFixed(0)} ms`.padStart(9)}  ${row.map((us) => `${us.toFixed(1)} µs`.padStart(22)).join('')}  ${`${(summarize(all).p99 * 1000).toFixed(0)} µs`.padStart(10)}  ${verdicts.join('/')}`,
    );
  }
  const first = medians[0]!;
  const last = medians[medians.length - 1]!;
  console.log(`ratio ${SIZES[SIZES.length - 1]} vs ${SIZES[0]} (median per case): ${CASES.map(([l], k) => `${l} ${(last[k]! / first[k]!).toFixed(2)}×`).join(', ')}  (target ≤ 2×)`);
}
