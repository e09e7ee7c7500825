/**
 * Replays the dev cases whose `policy` is `default` (BIPIA, AgentDojo injection, AgentHarm) through the default
 * policy book with a minimal deterministic replay: every in-scope predicate is evaluated by its detectors, sticky
 * predicates carry over within a case, semantic predicates stay unknown, and a step is denied when an enforced
 * rule of severity medium or above is violated (or unknown with on_unknown deny), as the deterministic referee
 * does at threat level 0. It measures the book, not the pipeline (no top-k, no watcher).
 *
 *   npx tsx bench/default-book-dev.ts [dataDir]
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import '../src/detectors/index.js';
import { loadBook } from '../src/policy/load.js';
import { checkRule, evaluatePredicate, predicateApplies } from '../src/policy/evaluate.js';
import { SEVERITY_RANK } from '../src/policy/schema.js';
import type { CompiledBook } from '../src/policy/compiled.js';
import { InteractionSchema, type Interaction, type Truth } from '../src/core/types.js';

interface Case {
  id: string;
  policy: string;
  context?: { agent?: string; profile?: Record<string, unknown> };
  steps: Array<Record<string, unknown>>;
  expect: { decision: 'allow' | 'deny' };
}

/** Deterministic replay of one case; returns the ids of the rules that denied a step. */
export function replayCase(book: CompiledBook, c: Case): string[] {
  const sticky = new Map<string, Truth>();
  const denied: string[] = [];
  for (const step of c.steps) {
    const i: Interaction = InteractionSchema.parse({ agent: c.context?.agent ?? 'agent', session: c.id, profile: c.context?.profile ?? {}, ...step });
    const now = new Map<string, Truth>();
    for (const p of book.predicates) {
      if (!predicateApplies(p, i)) continue;
      const v = evaluatePredicate(p, i).value;
      now.set(p.name, v);
      if (p.def.persistence === 'sticky' && v !== 'false' && sticky.get(p.name) !== 'true') sticky.set(p.name, v);
    }
    const lookup = (n: string): Truth => now.get(n) === 'true' ? 'true' : (sticky.get(n) ?? now.get(n) ?? 'false');
    for (const rule of book.graph.rulesFor(i.kind)) {
      const r = checkRule(rule, lookup);
      if (rule.def.mode === 'monitor') continue;
      const enforced = rule.def.hard || SEVERITY_RANK[rule.def.severity] >= SEVERITY_RANK.medium;
      if (r.status === 'violated' && enforced) denied.push(rule.id);
      if (r.status === 'unknown' && rule.onUnknown === 'deny') denied.push(rule.id);
    }
  }
  return [...new Set(denied)];
}

const dir = resolve(process.argv[2] ?? join(process.cwd(), '../shared/data/eval/dev'));
const { compiled } = await loadBook(join(process.cwd(), 'policies/default'));
for (const file of ['bipia.jsonl', 'agentdojo-injection.jsonl', 'agentharm.jsonl']) {
  const path = join(dir, file);
  if (!existsSync(path)) {
    console.log(`${file}: not found under ${dir}, skipped`);
    continue;
  }
  const cases = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Case).filter((c) => c.policy === 'default');
  let tp = 0, fn = 0, fp = 0, tn = 0;
  const wrong: string[] = [];
  for (const c of cases) {
    const rules = replayCase(compiled, c);
    const deny = rules.length > 0;
    if (c.expect.decision === 'deny' && deny) tp++;
    else if (c.expect.decision === 'deny') {
      fn++;
      wrong.push(`  missed      ${c.id}`);
    } else if (deny) {
      fp++;
      wrong.push(`  false alarm ${c.id} [${rules.join(', ')}]`);
    } else tn++;
  }
  const pct = (a: number, b: number): string => (b ? `${((100 * a) / b).toFixed(1)}%` : 'n/a');
  console.log(`${file}: ${cases.length} cases  recall ${pct(tp, tp + fn)} (${tp}/${tp + fn})  FPR ${pct(fp, fp + tn)} (${fp}/${fp + tn})`);
  for (const w of wrong) console.log(w);
}
