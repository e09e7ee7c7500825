/**
 * Ordinary texts to measure false matches on: every text of the eval cases (../shared/data/eval/dev, when present:
 * tool results, messages, tool arguments) and of the repo's benign corpora (test/fixtures/injection: mails, tables,
 * code, documents), each with its source (the suite or corpus file it came from).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './common.js';

export interface BenignText {
  group: string;
  text: string;
}

const strings = (v: unknown, out: string[] = []): string[] => {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => strings(x, out));
  return out;
};

export function benignTexts(): BenignText[] {
  const docs: BenignText[] = [];
  const evalDir = join(ROOT, '..', 'shared', 'data', 'eval', 'dev');
  if (existsSync(evalDir)) {
    for (const f of readdirSync(evalDir).filter((x) => x.endsWith('.jsonl'))) {
      for (const line of readFileSync(join(evalDir, f), 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const c = JSON.parse(line) as { steps: Array<{ content?: unknown; arguments?: unknown }> };
        for (const s of c.steps) {
          const t = strings(s.content ?? s.arguments).join('\n');
          if (t.trim()) docs.push({ group: `eval/${f}`, text: t });
        }
      }
    }
  }
  const fx = join(ROOT, 'test', 'fixtures', 'injection');
  for (const f of ['benign.jsonl', 'fresh-2026-11/benign.jsonl']) {
    for (const line of readFileSync(join(fx, f), 'utf8').split('\n')) if (line.trim()) docs.push({ group: `fixtures/${f}`, text: (JSON.parse(line) as { text: string }).text });
  }
  return docs;
}
