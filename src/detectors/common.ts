import { z } from 'zod';
import { DetectorConfigError } from '../core/errors.js';
import type { Interaction } from '../core/types.js';
import { isValidSelector, selectFields, type FieldText } from '../core/fields.js';
import { isResultKind } from '../core/kinds.js';
import { mayHaveReadingsUnder, readingsOf, SECRET_READINGS } from '../core/text/readings.js';
import type { DetectorContext, DetectorResult } from './types.js';

/**
 * Helpers shared by the generic detectors: bounded field selection, masking of caught values, span collection
 * and config errors that name the book path.
 */

/**
 * Characters inspected per interaction over all selected fields together (16 MiB: a 10 MB tool result is read whole). Everything the proxy accepts
 * (arguments up to `limits.max_argument_bytes`, 1 MB by default; HTTP bodies up to 4 MB) is scanned whole; text
 * beyond this is not scanned, and a detector that found nothing in the part it read answers `unknown` (see `cut`).
 */
export const MAX_TOTAL_CHARS = 16 * 1024 * 1024;
/** Kept for callers that bound one field: the same as the total (every field is read to its end). */
export const MAX_FIELD_CHARS = MAX_TOTAL_CHARS;
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

/** Selected texts, with `cut` set when some text was not inspected (over `MAX_TOTAL_CHARS`). */
export type InspectedFields = FieldText[] & { cut?: string };

/**
 * Selected texts, all together capped at `MAX_TOTAL_CHARS` (only the tail is cut, so offsets stay offsets into the
 * original). When the cap cut something, `cut` says what: a detector that found nothing must then answer
 * `unknown` (`cutOrNo`), never `false`.
 */
export function inspectedFields(i: Interaction, selector: string): InspectedFields {
  const out: InspectedFields = [];
  let budget = MAX_TOTAL_CHARS;
  for (const f of selectFields(i, selector)) {
    if (budget <= 0) {
      out.cut ??= `${f.field} not inspected (over ${MAX_TOTAL_CHARS} characters in all)`;
      break;
    }
    const text = f.text.length > budget ? f.text.slice(0, budget) : f.text;
    if (text.length < f.text.length) out.cut ??= `${f.field} inspected to ${text.length} of ${f.text.length} characters`;
    budget -= text.length;
    out.push({ field: f.field, text });
  }
  return out;
}

/** `unknown` when part of the input was not inspected, else `false`: for detectors that found nothing. */
export function cutOrNo(type: string, fields: InspectedFields): DetectorResult {
  return fields.cut === undefined ? no() : unknown(`${type}: ${fields.cut}; nothing found in the part read`);
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

/**
 * The other readings of a field's text a value can hide in, for what leaves (SECRET_READINGS of the one table of
 * readings: escapes undone, full-width and zero-width forms folded, URL, base64, base32, hex and char codes decoded,
 * doubled and interleaved letters undone, nested; without the text itself), and what was left unread (nested too
 * deep, over the budget): the caller fails closed on it. None for a result (a server's answer: injected text there
 * is the injection detector's to decode, and a 10 MB result is not decoded twice) or for a text no row applies to.
 */
export function encodedReadings(i: Interaction, text: string): { views: string[]; unread?: string } {
  if (isResultKind(i.kind) || !mayHaveReadingsUnder(text, SECRET_READINGS)) return { views: [] };
  const r = readingsOf(text, SECRET_READINGS);
  return r.unread === undefined ? { views: r.views.slice(1) } : { views: r.views.slice(1), unread: r.unread };
}
