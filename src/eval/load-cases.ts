import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import { EvalRunError } from '../core/errors.js';
import { EvalCaseSchema, type EvalCase } from './cases.js';

/** A loaded case with where it came from, so later errors and reports can point at `file:line`. */
export interface LoadedCase {
  case: EvalCase;
  file: string;
  line: number;
}

/** At most this many problems are listed in one error; the rest are counted. */
export const MAX_REPORTED_PROBLEMS = 20;

/**
 * Loads evaluation cases from one `.jsonl` file or from every `*.jsonl` file of a directory (sorted by name, not
 * recursive). Empty lines are skipped. Every bad line is collected (invalid JSON, schema violations, duplicate
 * ids across all files) and reported together, each as `file:line: code: path: message`:
 *
 *     cases.jsonl:17: eval_case_invalid: steps.1.kind: expected one of message|tool_call|tool_result|resource_read
 *
 * One problem throws that `EvalRunError` itself (its `location` names file, line and zod path); several throw one
 * `eval_cases_invalid` error listing them, with the individual errors in `problems`.
 *
 * @example
 * const cases = await loadCases('../shared/data/eval/dev');
 */
export async function loadCases(path: string): Promise<LoadedCase[]> {
  const files = await caseFiles(path);
  const problems: EvalRunError[] = [];
  const loaded: LoadedCase[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i]!;
      if (raw.trim() === '') continue;
      const line = i + 1;
      const parsed = parseLine(raw, file, line);
      if (parsed instanceof EvalRunError) {
        problems.push(parsed);
        continue;
      }
      const first = seen.get(parsed.id);
      if (first !== undefined) {
        problems.push(
          new EvalRunError('eval_case_duplicate', `duplicate id ${JSON.stringify(parsed.id)} (first at ${first})`, {
            location: { file, line, path: 'id' },
          }),
        );
        continue;
      }
      seen.set(parsed.id, `${file}:${line}`);
      loaded.push({ case: parsed, file, line });
    }
  }
  if (problems.length === 1) throw problems[0]!;
  if (problems.length > 1) throw new CaseProblems(problems);
  return loaded;
}

/** Several bad lines at once; `problems` holds each one with its location. */
export class CaseProblems extends EvalRunError {
  readonly problems: readonly EvalRunError[];

  constructor(problems: EvalRunError[]) {
    const shown = problems.slice(0, MAX_REPORTED_PROBLEMS).map((p) => `  ${p.format()}`);
    const more = problems.length > MAX_REPORTED_PROBLEMS ? [`  … and ${problems.length - MAX_REPORTED_PROBLEMS} more`] : [];
    super('eval_cases_invalid', `${problems.length} bad case lines:\n${[...shown, ...more].join('\n')}`, {
      location: problems[0]!.location ?? {},
    });
    this.problems = problems;
  }

  /** The list alone reads best: every entry already carries its own `file:line: code:`. */
  override format(): string {
    return `${this.code}: ${this.message}`;
  }
}

/** The `.jsonl` files named by `path`: the file itself, or a directory's `*.jsonl` files in name order. */
async function caseFiles(path: string): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    throw new EvalRunError('eval_cases_missing', `cannot read cases at ${path}: ${(err as Error).message}`, {
      cause: err,
      location: { file: path },
    });
  }
  if (!info.isDirectory()) return [path];
  const names = (await readdir(path)).filter((n) => n.endsWith('.jsonl')).sort();
  if (names.length === 0) {
    throw new EvalRunError('eval_cases_missing', `no *.jsonl case files in directory ${path}`, { location: { file: path } });
  }
  return names.map((n) => join(path, n));
}

/** One non-empty line → a case, or the `EvalRunError` that says what is wrong with it. */
function parseLine(raw: string, file: string, line: number): EvalCase | EvalRunError {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    return new EvalRunError('eval_case_json', `not valid JSON: ${(err as Error).message}`, { cause: err, location: { file, line } });
  }
  const r = EvalCaseSchema.safeParse(json);
  if (r.success) return r.data;
  // The first issue is the one to fix first; the count says whether more follow.
  const issue = r.error.issues[0]!;
  const path = dotPath(issue.path);
  const more = r.error.issues.length > 1 ? ` (+${r.error.issues.length - 1} more)` : '';
  return new EvalRunError('eval_case_invalid', `${path || '(case)'}: ${describeIssue(issue)}${more}`, {
    cause: r.error,
    location: { file, line, path },
  });
}

/** `["steps", 1, "kind"]` → `steps.1.kind`. */
function dotPath(path: readonly PropertyKey[]): string {
  return path.map((p) => String(p)).join('.');
}

/** Short, fix-oriented wording for the issues case authors hit; zod's own message otherwise. */
function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_union':
      if ('options' in issue && Array.isArray(issue.options)) return `expected one of ${issue.options.join('|')}`;
      return issue.message;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => String(v)).join('|')}`;
    case 'invalid_type':
      return issue.message.endsWith('received undefined')
        ? `missing required field (expected ${issue.expected})`
        : `expected ${issue.expected}`;
    case 'unrecognized_keys':
      return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    default:
      return issue.message;
  }
}
