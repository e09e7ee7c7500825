import { z } from 'zod';
import { DetectorConfigError } from '../core/errors.js';
import type { Interaction } from '../core/types.js';
import { isValidSelector, selectFields, type FieldText } from '../core/fields.js';
import type { DetectorContext, DetectorResult } from './types.js';

/**
 * Helpers shared by the generic detectors: bounded field selection, masking of caught values, span collection
 * and config errors that name the book path.
 */

/** Characters inspected per field: the first 256 KiB. Text beyond it is not scanned (bounded work per interaction). */
export const MAX_FIELD_CHARS = 256 * 1024;
/** Characters inspected per interaction over all selected fields together (1 MiB). */
export const MAX_TOTAL_CHARS = 1024 * 1024;
/** Spans reported per result at most; evidence lists at most a few items. */
export const MAX_SPANS = 100;

/** A zod field selector option, validated against the selectors of `fields.ts`. */
export const FieldSelectorSchema = z
  .string()
  .refine(isValidSelector, {
    message: 'unknown field selector (use any, arguments, arguments.<path>, content, tool, server, uri, sender, recipient)',
  });

/** A span of inspected text: `[start, end)` offsets into the selected field's text. */
export type Span = NonNullable<DetectorResult['spans']>[number];

/**
 * Selected texts, each capped at `MAX_FIELD_CHARS` and all together at `MAX_TOTAL_CHARS`. Offsets into a capped
 * text are offsets into the original, since only the tail is cut.
 */
export function inspectedFields(i: Interaction, selector: string): FieldText[] {
  const out: FieldText[] = [];
  let budget = MAX_TOTAL_CHARS;
  for (const f of selectFields(i, selector)) {
    if (budget <= 0) break;
    const cap = Math.min(MAX_FIELD_CHARS, budget);
    const text = f.text.length > cap ? f.text.slice(0, cap) : f.text;
    budget -= text.length;
    out.push({ field: f.field, text });
  }
  return out;
}

/**
 * A caught value for evidence: a short prefix, `…`, and its length (`ghp_…40`). The prefix is at most 4 characters
 * and at most a third of the value, so short secrets reveal little.
 */
export function mask(value: string): string {
  const keep = Math.min(4, Math.floor(value.length / 3));
  return `${value.slice(0, keep)}…${value.length}`;
}

/** Non-secret text for evidence (paths, commands, tool names), shortened to `max` characters. */
export function clip(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A `DetectorConfigError` located at the detector spec, e.g. `predicates[2].detectors[0]: bad pattern: …`. */
export function configError(ctx: DetectorContext, message: string, cause?: unknown): DetectorConfigError {
  return new DetectorConfigError('detector_invalid_options', `${ctx.path}: ${message}`, {
    location: { path: ctx.path },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** A fresh `false` result (fresh, so that callers may annotate results without sharing state). */
export function no(): DetectorResult {
  return { value: 'false' };
}

/** `unknown` with a reason. */
export function unknown(evidence: string): DetectorResult {
  return { value: 'unknown', evidence };
}

/** One finding of a scanner: what kind, where, and the matched text (kept out of evidence unless `show`). */
export interface Finding {
  kind: string;
  field: string;
  start: number;
  end: number;
  /** Masked or otherwise safe description of the match. */
  shown: string;
}

/** A `true` result from findings: evidence lists the first few (already masked), spans all of them (capped). */
export function fromFindings(type: string, findings: Finding[], score = 1): DetectorResult {
  if (findings.length === 0) return no();
  const listed = findings
    .slice(0, 3)
    .map((f) => `${f.kind} ${f.shown} in ${f.field}`)
    .join('; ');
  const more = findings.length > 3 ? ` (+${findings.length - 3} more)` : '';
  return {
    value: 'true',
    score,
    evidence: `${type}: ${listed}${more}`,
    spans: findings.slice(0, MAX_SPANS).map((f) => ({ field: f.field, start: f.start, end: f.end })),
  };
}

/** Compiles a regular expression for a detector, turning a syntax error into a `DetectorConfigError`. */
export function compileRegex(source: string, flags: string, ctx: DetectorContext, what: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (err) {
    throw configError(ctx, `${what} does not compile: ${(err as Error).message}`, err);
  }
}
