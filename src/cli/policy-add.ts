import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Command } from 'commander';
import { PolicyError } from '../core/errors.js';
import { loadBook } from '../policy/load.js';
import { compileSentence, HAND_WRITTEN_YAML, SENTENCE_SHAPES, type SentenceRule } from '../policy/sentence.js';

/**
 * `quadguard policy add <book> "<sentence>"`: one rule from one sentence, offline (src/policy/sentence.ts). The book
 * gains the rule's predicates, rule and capability labels (comments and order kept); the change must load, its
 * eval case (appended to `<book>/cases.jsonl`) must be decided as the rule says, or the book is put back; a
 * signed book is signed again with `--key` (refused without it, before anything is written).
 */
export interface PolicyAddResult {
  rule: SentenceRule;
  /** The YAML that went into the book. */
  yaml: string;
  /** The eval case, one JSON line. */
  caseLine: string;
  casesFile: string;
  signed?: string;
}

export async function addSentence(bookPath: string, sentence: string, opts: { key?: string; dryRun?: boolean } = {}): Promise<PolicyAddResult> {
  const rule = compileSentence(sentence);
  if (!rule) {
    const shapes = SENTENCE_SHAPES.map((s) => `  ${s.shape}: "${s.example}"`).join('\n');
    throw new PolicyError('policy_sentence_unknown', `no rule shape matches "${sentence}". The shapes policy add compiles without a model:\n${shapes}\nFor anything else, add to ${bookPath}/book.yaml by hand (docs/detectors.md for the detectors), then: quadguard policy check ${bookPath}\n${HAND_WRITTEN_YAML}`);
  }
  const { file, compiled } = await loadBook(bookPath);
  if (!/\.ya?ml$/.test(file)) throw new PolicyError('policy_read_error', `${file}: policy add edits YAML books only; add the rule to this file by hand`);
  const { signatureState, signBook } = await import('../policy/sign.js');
  const sig = await signatureState(file, compiled);
  if (sig && opts.key === undefined && !opts.dryRun) {
    throw new PolicyError('policy_signature_invalid', `${file} is signed (${sig.sigFile}); a changed book must be signed again: pass --key <private.pem>, or sign it yourself afterwards`);
  }
  if (compiled.rules.some((r) => r.def.id === rule.rule.id)) throw new PolicyError('policy_invalid', `the book already has a rule ${rule.rule.id}; edit it in ${file}`);

  const { stringify } = await import('yaml');
  const before = await readFile(file, 'utf8');
  const existing = new Set(compiled.predicates.map((p) => p.name));
  // The same name: the book's own predicate, written the same way (`sends_message` of an earlier sentence).
  const added = rule.predicates.filter((p) => !existing.has(p.name as string));
  // Text insertion, not a re-serialisation: the book's comments, folding and layout stay as they are.
  let text = insertItems(before, ['predicates'], added, 'end', stringify);
  text = insertItems(text, ['rules'], [rule.rule], 'end', stringify);
  if (rule.capabilities) {
    // First match wins: the sentence's labels go before the book's own.
    // eslint-disable-next-line regexp/no-super-linear-move -- the operator's policy file (the YAML book being edited)
    text = /^capabilities:/m.test(text) ? insertItems(text, ['capabilities', 'tools'], rule.capabilities, 'start', stringify) : `${text.replace(/\n*$/, '\n')}\n${stringify({ capabilities: { tools: rule.capabilities } }, { lineWidth: 0 })}`;
  }
  const fragment: Record<string, unknown> = { predicates: added, rules: [rule.rule], ...(rule.capabilities ? { capabilities: { tools: rule.capabilities } } : {}) };
  const yaml = stringify(fragment, { lineWidth: 0 });
  const dir = dirname(file);
  const caseLine = JSON.stringify({ id: `${basename(dir)}/${rule.rule.id}`, suite: 'policy-add', policy: basename(dir), steps: rule.caseSteps, expect: { decision: 'deny', rules: [rule.rule.id] } });
  const casesFile = join(dir, 'cases.jsonl');
  if (opts.dryRun) return { rule, yaml, caseLine, casesFile };

  await writeFile(file, text, 'utf8');
  try {
    await loadBook(bookPath);
    await checkCase(dirname(dir), caseLine, rule.rule.id);
  } catch (err) {
    await writeFile(file, before, 'utf8');
    throw new PolicyError('policy_invalid', `the rule for "${sentence}" did not work in ${file}, which is left as it was: ${(err as Error).message}`, { cause: err });
  }
  await appendFile(casesFile, `${caseLine}\n`, 'utf8');
  const md = join(dir, 'policy.md');
  await readFile(md, 'utf8').then((text) => appendFile(md, `${text.endsWith('\n') ? '' : '\n'}- ${sentence.trim()}\n`, 'utf8'), () => undefined);
  let signed: string | undefined;
  if (sig && opts.key !== undefined) signed = (await signBook(bookPath, await readFile(opts.key, 'utf8'))).sigFile;
  return { rule, yaml, caseLine, casesFile, ...(signed ? { signed } : {}) };
}

/**
 * Inserts list items into the block list at `path` (a top-level key, or one key below it), at its start or its end,
 * in the list's own indentation. Throws when the list is not there as a block list.
 */
function insertItems(text: string, path: string[], items: Array<Record<string, unknown>>, where: 'start' | 'end', stringify: (v: unknown, o: { lineWidth: number }) => string): string {
  if (items.length === 0) return text;
  const lines = text.split('\n');
  let from = 0;
  let keyIndent = -1;
  for (const key of path) {
    const at = lines.findIndex((l, i) => i >= from && new RegExp(`^${keyIndent < 0 ? '' : ' '.repeat(keyIndent + 2)}${key}:\\s*(#.*)?$`).test(l));
    if (at < 0) throw new PolicyError('policy_read_error', `policy add needs ${path.join('.')}: as a block list (one "- " item per line) in the book; add the rule by hand`);
    from = at + 1;
    keyIndent = keyIndent < 0 ? 0 : keyIndent + 2;
  }
  const first = lines.findIndex((l, i) => i >= from && /^\s*- /.test(l));
  const indent = first >= 0 ? /^(\s*)- /.exec(lines[first]!)![1]! : ' '.repeat(keyIndent + 2);
  // The list ends before the first line, after it, indented no deeper than its key (comments and blanks go with what follows).
  let end = from;
  for (let i = from; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.trim() === '' || /^\s*#/.test(l)) continue;
    if (l.length - l.trimStart().length <= keyIndent && !l.trimStart().startsWith('- ')) break;
    if (l.length - l.trimStart().length < indent.length) break;
    end = i + 1;
  }
  const block = stringify(items, { lineWidth: 0 }).trimEnd().split('\n').map((l) => `${indent}${l}`);
  const at = where === 'start' && first >= 0 ? first : end;
  const spaced = where === 'end' ? ['', ...block] : [...block];
  return [...lines.slice(0, at), ...spaced, ...lines.slice(at)].join('\n');
}

/** Replays the case through the real pipeline over the edited book: the new rule must deny (or hold) it. */
async function checkCase(policiesDir: string, caseLine: string, ruleId: string): Promise<void> {
  const [{ EvalCaseSchema }, { runEval }, { pipelineGuardFactory }] = await Promise.all([import('../eval/cases.js'), import('../eval/run.js'), import('../eval/guard-factory.js')]);
  const run = await runEval([EvalCaseSchema.parse(JSON.parse(caseLine))], { guardFor: pipelineGuardFactory(policiesDir) });
  const r = run.cases[0]!;
  if (r.actual !== 'deny' || !r.rules.includes(ruleId)) throw new Error(`its test case was ${r.actual === 'deny' ? `denied by ${r.rules.join(', ')}` : 'allowed'}, not by ${ruleId}`);
}

/** Adds `policy add` to the `policy` command group. */
export function addPolicyAddSubcommand(policy: Command): Command {
  return policy
    .command('add <book> <sentence>')
    .description(`Add a rule from one sentence, offline: ${SENTENCE_SHAPES.map((s) => s.shape).join('; ')}`)
    .option('--key <private.pem>', 'sign the book again (required when it is signed)')
    .option('--dry-run', 'show the YAML and the test case without writing')
    .action(async (book: string, sentence: string, opts: { key?: string; dryRun?: boolean }) => {
      const r = await addSentence(book, sentence, opts);
      const out = (s: string) => process.stdout.write(`${s}\n`);
      out(`${r.rule.shape}: rule ${r.rule.rule.id}${opts.dryRun ? ' (dry run: nothing written)' : ''}`);
      out(`\n${opts.dryRun ? 'would add' : 'added'} to the book:\n${r.yaml.trimEnd().replace(/^/gm, '  ')}`);
      out(`\ntest case${opts.dryRun ? '' : ` (appended to ${r.casesFile}; denied by ${r.rule.rule.id}, checked)`}:\n  ${r.caseLine}`);
      if (r.signed) out(`\nsigned again: ${r.signed}`);
      if (!opts.dryRun) out(`\nnext: quadguard policy check ${book}; quadguard eval --cases ${r.casesFile} --policies ${dirname(dirname(r.casesFile))}`);
    });
}
