/** The shipped default book with its sandbox set to a test's own directory (as the book tells operators to do). */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './proxy-harness.js';

const BOOK = join(ROOT, 'policies', 'default');

/** The default book with its sandbox lists replaced by `sandbox` (both the path rule and the shell rule). */
export function bookFor(dir: string, sandbox: string): string {
  const out = join(dir, 'book');
  mkdirSync(out, { recursive: true });
  let yaml = readFileSync(join(BOOK, 'book.yaml'), 'utf8');
  const before = yaml;
  yaml = yaml.replace('under: [/tmp, /workspace, /sandbox, ~/workspace, ~/sandbox]', `under: ['${sandbox}']`);
  yaml = yaml.replace('sandbox: [/tmp, /workspace, /sandbox, ~/workspace, ~/sandbox, sandbox, workspace]', `sandbox: ['${sandbox}']`);
  if (yaml === before || (yaml.match(new RegExp(sandbox.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g')) ?? []).length !== 2) throw new Error('the default book changed: update bookFor');
  writeFileSync(join(out, 'book.yaml'), yaml);
  writeFileSync(join(out, 'policy.md'), readFileSync(join(BOOK, 'policy.md')));
  return out;
}

