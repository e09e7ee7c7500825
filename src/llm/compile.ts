import { z } from 'zod';
import { compileDetector, detectorTypes, getDetectorDefinition } from '../detectors/index.js';
import { errorMessage, LlmError, PolicyError } from '../core/errors.js';
import { compileBook, formatDiagnostic, PolicyBookError } from '../policy/index.js';
import { PolicyBookSchema, type PolicyBook, type PolicyBookInput } from '../policy/schema.js';
import type { CallOptions, LlmClient } from './client.js';
import { COMPILER_SYSTEM, COMPILER_TAG, CompilerAnswerSchema, DETECTOR_CATALOGUE } from './prompts/compiler.js';
import { renderReviewSheet } from './review-sheet.js';
import type { LlmUsage } from './usage.js';

/**
 * Offline policy compilation (QuadSentinel §4.5): the strong tier decomposes a natural-language policy into
 * predicates and rules, proposes toolbox detectors, and the result is validated before a person reviews it.
 *
 * Validation, in order (a failure of 1, 2 or 4 rejects with `llm_malformed_output`: the model's book is unusable):
 * 1. the answer is JSON of the compiler's shape;
 * 2. name/version/source are set by us, and the whole book validates against `PolicyBookSchema`;
 * 3. each proposed detector must be of a type registered in the toolbox and compile with its options; one that
 *    does not is DROPPED from the book and listed in the review sheet, so its predicate falls back to semantic
 *    (a model's bad regex should not cost the whole translation);
 * 4. the policy checker (`compileBook`: formulas parse, predicates resolve, rules can fire…) lints the result;
 *    its errors reject, its warnings go to the review sheet.
 */

export interface CompilePolicyOptions {
  /** Book name (e.g. the folder name). */
  name: string;
  version?: string;
  /** File name of the source recorded in the book (default `policy.md`). */
  source?: string;
  /** Output budget of the strong model (default 6000 tokens). */
  maxTokens?: number;
}

export interface CompilePolicyResult {
  book: PolicyBookInput;
  /** Markdown for the human reviewer: each rule beside its sentence, each predicate with its detectors. */
  reviewSheet: string;
  /** Findings also listed in the review sheet (dropped detectors, unmatched sentences…). */
  notes: string[];
  usage: LlmUsage;
}

/** Longest policy text accepted (characters). */
export const MAX_POLICY_CHARS = 100_000;

const KNOWN_DETECTOR_TYPES = Object.keys(DETECTOR_CATALOGUE);

/**
 * Compiles a Markdown policy with the strong tier.
 *
 * @example
 * const { book, reviewSheet } = await compilePolicy(client, await readFile('policy.md', 'utf8'), { name: 'default' });
 */
export async function compilePolicy(
  client: LlmClient,
  markdown: string,
  options: CompilePolicyOptions,
  opts: CallOptions = {},
): Promise<CompilePolicyResult> {
  if (markdown.trim().length === 0) throw new PolicyError('policy_source_empty', 'the policy text is empty');
  if (markdown.length > MAX_POLICY_CHARS) {
    throw new PolicyError('policy_source_too_large', `the policy text has ${markdown.length} characters (at most ${MAX_POLICY_CHARS}); split it into several books`);
  }
  // The policy is operator-written (trusted) and must reach the model verbatim: neutralising would mangle rules
  // that quote attack phrases ("ignore previous instructions"). It still travels as a JSON value.
  const user = JSON.stringify({ policy_markdown: markdown, detector_catalogue: detectorCatalogue() }, null, 1);
  const { value, usage, model } = await client.chatJson(
    { tier: 'strong', system: COMPILER_SYSTEM, user, maxTokens: options.maxTokens ?? 6000, schemaTag: COMPILER_TAG },
    CompilerAnswerSchema,
    opts,
  );
  const candidate = {
    name: options.name,
    version: options.version ?? '0.1.0',
    ...(value.description !== undefined ? { description: value.description } : {}),
    source: options.source ?? 'policy.md',
    predicates: value.predicates,
    rules: value.rules,
  };
  const parsed = PolicyBookSchema.safeParse(candidate);
  if (!parsed.success) {
    throw new LlmError('llm_malformed_output', `the compiled book does not validate:\n${z.prettifyError(parsed.error)}`);
  }
  const notes: string[] = [];
  const checked = checkDetectors(parsed.data, notes);
  try {
    const { warnings } = compileBook(checked, { file: 'book.yaml' });
    for (const w of warnings) notes.push(`Lint: ${formatDiagnostic(w)}`);
  } catch (err) {
    const detail = err instanceof PolicyBookError ? err.errors.map(formatDiagnostic).join('\n') : errorMessage(err);
    throw new LlmError('llm_malformed_output', `the compiled book does not pass the policy checker:\n${detail}`, { cause: err });
  }
  notes.push(...unmatchedSentences(markdown, checked));
  const reviewSheet = renderReviewSheet({ book: checked, markdown, model, notes });
  return { book: checked, reviewSheet, notes, usage };
}

/** The catalogue shown to the model: the registered detectors with their option schemas (the built-in summaries when none is registered). */
function detectorCatalogue(): Array<{ type: string; summary: string; options?: unknown }> {
  const registered = detectorTypes();
  return (registered.length > 0 ? registered : KNOWN_DETECTOR_TYPES).map((type) => {
    const def = getDetectorDefinition(type);
    if (!def) return { type, summary: DETECTOR_CATALOGUE[type] ?? type };
    let options: unknown;
    try {
      options = z.toJSONSchema(def.options, { unrepresentable: 'any' });
    } catch {
      options = undefined;
    }
    return { type, summary: def.summary, ...(options !== undefined ? { options } : {}) };
  });
}

/** Drops detectors of unregistered type or with invalid options (noting why); returns the book without them. */
function checkDetectors(book: PolicyBook, notes: string[]): PolicyBook {
  const registered = new Set(detectorTypes());
  const predicates = book.predicates.map((p, i) => {
    const kept = p.detectors.filter((spec, j) => {
      const path = `predicates[${i}].detectors[${j}]`;
      if (!registered.has(spec.type)) {
        notes.push(`Dropped detector ${path} of predicate ${p.name}: detector type "${spec.type}" is not in this build's toolbox.`);
        return false;
      }
      try {
        compileDetector(spec, { path });
        return true;
      } catch (err) {
        notes.push(`Dropped detector ${path} of predicate ${p.name}: ${errorMessage(err).replace(/\s+/g, ' ')}`);
        return false;
      }
    });
    return { ...p, detectors: kept };
  });
  return { ...book, predicates };
}

/** Normalises text for "did this sentence come from the policy" checks: no Markdown emphasis, one space. */
export function normalizeSentence(s: string): string {
  return s
    .replace(/[*_`>#]/g, '')
    // eslint-disable-next-line regexp/no-super-linear-move -- the operator's policy text (at most MAX_POLICY_CHARS) and the compiling model's sentences from it
    .replace(/^\s*(?:[-+]|\d+[.)])\s+/gm, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

const NORMATIVE = /\b(must|never|do not|don't|should|shall|only|forbidden|not allowed|prohibited|may not|cannot|always)\b/i;

/** Rules whose text is not in the policy, and normative policy sentences no rule came from. */
function unmatchedSentences(markdown: string, book: PolicyBook): string[] {
  const source = normalizeSentence(markdown);
  const out: string[] = [];
  for (const r of book.rules) {
    if (!source.includes(normalizeSentence(r.text))) out.push(`Rule ${r.id}: its text is not a verbatim sentence of the policy; compare it with the source.`);
  }
  const ruleTexts = book.rules.map((r) => normalizeSentence(r.text));
  const sentences = markdown
    .split(/\n+/)
    .flatMap((line) => line.split(/(?<=[.!?])\s+/))
    .map((s) => s.trim())
    .filter((s) => s.length > 0 && !s.startsWith('#') && NORMATIVE.test(s));
  for (const s of sentences) {
    const n = normalizeSentence(s);
    if (n.length > 0 && !ruleTexts.some((t) => t.includes(n) || n.includes(t))) out.push(`No rule cites this sentence: "${s}"`);
  }
  return out;
}
