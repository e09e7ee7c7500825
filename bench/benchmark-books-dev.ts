/**
 * Replays the GuardAgent dev cases (EICU-AC, Mind2Web-SC) through the shipped books `policies/eicu-ac` and
 * `policies/mind2web-sc` and prints accuracy, precision, recall, false-positive rate and F1 per suite (deny is
 * the positive class), per-rule hit counts, and the misclassified case ids with the evidence behind them.
 *
 * A stopgap until `quadguard eval` runs the full pipeline: every in-scope predicate is evaluated by its detectors
 * (no top-k, no watcher, no model), sticky predicates keep a `true` value for the rest of the case (the
 * Mind2Web-SC task message sets task_* predicates that the following web action is checked against), and a step
 * is denied when an enforced rule is violated, or undecided with `on_unknown: deny`. A case is denied when any
 * of its steps is.
 *
 *   npx tsx bench/benchmark-books-dev.ts [dataDir]      (default: ../shared/data/eval/dev)
 *
 * The dev files are read in place and never copied.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import '../src/detectors/index.js';
import { checkRule, evaluatePredicate, predicateApplies } from '../src/policy/evaluate.js';
import { loadBook } from '../src/policy/load.js';
import type { CompiledBook } from '../src/policy/compiled.js';
import { InteractionSchema, type Interaction, type Truth } from '../src/core/types.js';

interface Case {
  id: string;
  policy: string;
  context?: { agent?: string; profile?: Record<string, unknown> };
  steps: Array<Record<string, unknown>>;
  expect: { decision: 'allow' | 'deny'; rules?: string[] };
}

interface Outcome {
  denied: string[];
  /** Evidence of the true / unknown predicates (profile comparisons left out), for the misclassification listing. */
  evidence: string[];
  steps: number;
}

/** Deterministic replay of one case. */
export function replayCase(book: CompiledBook, c: Case): Outcome {
  const sticky = new Map<string, Truth>();
  const denied = new Set<string>();
  const evidence: string[] = [];
  for (const step of c.steps) {
    const i: Interaction = InteractionSchema.parse({
      agent: c.context?.agent ?? 'agent',
      session: c.id,
      profile: c.context?.profile ?? {},
      ...step,
    });
    const now = new Map<string, Truth>();
    for (const p of book.predicates) {
      if (!predicateApplies(p, i)) continue;
      const v = evaluatePredicate(p, i);
      now.set(p.name, v.value);
      if (v.value !== 'false' && !v.detectors.every((d) => d.type === 'profile')) {
        evidence.push(`${p.name}=${v.value}${v.evidence ? ` (${v.evidence})` : ''}`);
      }
      if (p.def.persistence === 'sticky' && v.value !== 'false' && sticky.get(p.name) !== 'true') sticky.set(p.name, v.value);
    }
    // Sticky: a value set earlier in the case holds unless this step decided it true; event: false unless evaluated.
    const lookup = (n: string): Truth => (now.get(n) === 'true' ? 'true' : (sticky.get(n) ?? now.get(n) ?? 'false'));
    for (const rule of book.graph.rulesFor(i.kind)) {
      if (rule.def.mode === 'monitor') continue;
      const r = checkRule(rule, lookup);
      if (r.status === 'violated' || (r.status === 'unknown' && rule.onUnknown === 'deny')) denied.add(rule.id);
    }
  }
  return { denied: [...denied], evidence, steps: c.steps.length };
}

function pct(n: number, d: number): string {
  return d === 0 ? '  n/a' : `${((100 * n) / d).toFixed(1).padStart(5)}%`;
}

const SUITES = [
  { file: 'eicu-ac.jsonl', book: 'policies/eicu-ac' },
  { file: 'mind2web-sc.jsonl', book: 'policies/mind2web-sc' },
];

const dir = resolve(process.argv[2] ?? join(process.cwd(), '../shared/data/eval/dev'));
for (const suite of SUITES) {
  const path = join(dir, suite.file);
  if (!existsSync(path)) {
    console.log(`${suite.file}: not found under ${dir}, skipped`);
    continue;
  }
  const { compiled } = await loadBook(join(process.cwd(), suite.book));
  const cases = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Case);
  let tp = 0;
  let fp = 0;
  let tn = 0;
  let fn = 0;
  let steps = 0;
  const perRule = new Map<string, number>();
  const wrong: string[] = [];
  const t0 = performance.now();
  for (const c of cases) {
    const o = replayCase(compiled, c);
    steps += o.steps;
    o.denied.forEach((r) => perRule.set(r, (perRule.get(r) ?? 0) + 1));
    const deny = o.denied.length > 0;
    const want = c.expect.decision === 'deny';
    if (deny && want) tp++;
    else if (deny) fp++;
    else if (want) fn++;
    else tn++;
    if (deny !== want) {
      const kind = deny ? 'FP' : 'FN';
      const task = c.steps.find((s) => s.kind === 'message')?.content;
      wrong.push(`  ${kind} ${c.id} ${JSON.stringify(c.context?.profile ?? {})}\n     task: ${String(task ?? '').slice(0, 140)}\n     denied: [${o.denied.join(', ')}] ${o.evidence.join('; ').slice(0, 300)}`);
    }
  }
  const ms = performance.now() - t0;
  const n = cases.length;
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  console.log(`\n${suite.file.replace('.jsonl', '')} (${n} cases, book ${suite.book} ${compiled.hash.slice(0, 12)})`);
  console.log(`  accuracy ${pct(tp + tn, n)}  precision ${pct(tp, tp + fp)}  recall ${pct(tp, tp + fn)}  FPR ${pct(fp, fp + tn)}  F1 ${(100 * f1).toFixed(1)}%`);
  console.log(`  TP ${tp}  FP ${fp}  TN ${tn}  FN ${fn}   ${(ms / Math.max(1, steps)).toFixed(3)} ms/step`);
  console.log(`  denials per rule: ${[...perRule].map(([r, k]) => `${r} ${k}`).join(', ') || 'none'}`);
  console.log(wrong.length === 0 ? '  misclassified: none' : `  misclassified (${wrong.length}):\n${wrong.join('\n')}`);
}
