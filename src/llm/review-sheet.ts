import type { PolicyBook } from '../policy/schema.js';

/**
 * The review sheet of a compiled book (QuadSentinel §4.5, human-in-the-loop): Markdown that puts each rule next
 * to the policy sentence it came from and each predicate next to its definition and detectors, so a reviewer can
 * check the translation before signing.
 */
export function renderReviewSheet(input: { book: PolicyBook; markdown: string; model: string; notes: string[] }): string {
  const { book } = input;
  const lines: string[] = [
    `# Review sheet: ${book.name} ${book.version}`,
    '',
    `Compiled from \`${book.source ?? 'policy.md'}\` by model \`${input.model}\`. Check every rule against its sentence, every predicate against its definition and detectors, then edit \`book.yaml\`, run \`quadguard policy check\` and sign.`,
    '',
    `${book.rules.length} rules, ${book.predicates.length} predicates (${book.predicates.filter((p) => p.detectors.length === 0).length} semantic: decided only by a model).`,
    '',
    '## Rules',
    '',
  ];
  const byName = new Map(book.predicates.map((p) => [p.name, p]));
  for (const r of book.rules) {
    const flags = [r.severity, r.hard ? 'hard' : 'soft', r.mode, `applies to ${r.applies_to.join(', ')}`];
    lines.push(`### \`${r.id}\` (${flags.join('; ')})`, '', `> ${r.text.replace(/\n/g, '\n> ')}`, '', `- Formula (must hold): \`${r.formula}\``);
    const used = [...new Set(r.formula.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [])].filter((n) => byName.has(n));
    if (used.length > 0) lines.push(`- Predicates: ${used.map((n) => `\`${n}\``).join(', ')}`);
    if (r.remediation) lines.push(`- Remediation: ${r.remediation}`);
    lines.push('');
  }
  lines.push('## Predicates', '');
  for (const p of book.predicates) {
    lines.push(`### \`${p.name}\` (${p.scope}, ${p.persistence})`, '', p.description, '');
    if (p.keywords.length > 0) lines.push(`- Keywords: ${p.keywords.join(', ')}`);
    if (p.tools && p.tools.length > 0) lines.push(`- Must-check for tools: ${p.tools.map((t) => `\`${t}\``).join(', ')}`);
    if (p.detectors.length === 0) lines.push('- Detectors: none (semantic: unknown until a model is configured)');
    else {
      lines.push(`- Detectors (${p.combine}):`);
      for (const d of p.detectors) lines.push(`  - \`${JSON.stringify(d)}\``);
    }
    lines.push('');
  }
  lines.push('## Notes', '');
  for (const n of input.notes) lines.push(`- ${n}`);
  if (input.notes.length === 0) lines.push('- none');
  lines.push('');
  return lines.join('\n');
}
